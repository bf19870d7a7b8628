import t from 'tap';
import { doSetRealmDeactivated } from '../../../src/api/realm/deactivate.js';
import { jobKey, JOB_KIND } from '../../../src/api/scheduled-messages/actions.js';
import type { ScheduledMessageRecord } from '../../../src/model/personal.js';
import { setLogLevel } from '../../../src/lib/log.js';
import { jobsOf } from '../../../src/shard/jobs.js';
import { inProcessShard, type InProcessShard } from '../../helpers/shard.js';

/**
 * Failures that need a clock or a state HTTP cannot give, in-process on the shard's own job
 * runner: a message more than 10 minutes late, a deactivated realm, an unexpected error.
 */

// The runner logs the unexpected errors of the third test.
setLogLevel('silent');

async function setup(t: Parameters<typeof inProcessShard>[0]) {
  const s = await inProcessShard(t);
  const jobs = jobsOf(s.shard);
  // On a whole second, as the wheel's ticks are.
  let clock = Math.ceil(Date.now() / 1000) * 1000;
  const realNow = Date.now;
  // The handler reads Date.now (the send's timestamp, the late cutoff); the runner its own clock.
  Date.now = () => clock;
  t.teardown(() => (Date.now = realNow));
  jobs.now = () => clock;
  jobs.start();
  const advance = async (ms: number) => {
    clock += ms;
    s.shard.wheel.advance(clock);
    await jobs.idle();
  };
  return { ...s, jobs, advance, nowSeconds: () => Math.floor(clock / 1000) };
}

const record = (s: InProcessShard, userId: number, id: number) => s.shard.read<ScheduledMessageRecord>(s.shard.store.scheduled, [s.realm.id, userId, id])!;

async function botMessages(s: InProcessShard, userId: number) {
  const user = s.realm.users.get(userId)!;
  const res = await s.call(user, 'messages.list', { anchor: 'newest', num_before: 20, num_after: 0, apply_markdown: false });
  return (res.body.messages as { sender_email: string; content: string }[]).filter((m) => m.sender_email === 'notification-bot@zulip.com');
}

t.test('a message more than 10 minutes late fails, and its sender is told', async (t) => {
  const s = await setup(t);
  const res = await s.call(s.owner, 'scheduledMessages.create', { type: 'stream', to: 1, topic: 't', content: 'too late', scheduled_delivery_timestamp: s.nowSeconds() + 60 });
  const id = res.body.scheduled_message_id;
  const updates: unknown[] = [];
  s.shard.events.subscribe((_realm, event) => {
    if (event.type === 'scheduled_messages' && event.op === 'update') updates.push(event.scheduled_message);
  });
  // As if the server had been down from before it was due until 11 minutes after.
  s.shard.wheel.stop();
  await s.advance(60_000 + 11 * 60_000);
  const rec = record(s, s.owner.id, id);
  t.same([rec.failed, rec.failureMessage, rec.deliveredMessageId], [true, 'Message could not be sent at the scheduled time.', null], 'failed, with the reason');
  t.equal(updates.length, 1, 'an update event');
  const notices = await botMessages(s, s.owner.id);
  t.equal(notices.length, 1, 'one notice');
  t.match(notices[0].content, /^The message you scheduled for <time:[^>]+> was not sent because of the following error:\n\n> Message could not be sent at the scheduled time\.\n\n\[View scheduled messages\]\(#scheduled\)$/, 'the reference text');
  t.equal(jobsOf(s.shard).get(jobKey(s.realm.id, id)), undefined, 'no job left');
});

t.test('in a deactivated realm the message fails silently', async (t) => {
  const s = await setup(t);
  const res = await s.call(s.owner, 'scheduledMessages.create', { type: 'stream', to: 1, topic: 't', content: 'nobody hears', scheduled_delivery_timestamp: s.nowSeconds() + 5 });
  await doSetRealmDeactivated(s.shard, s.realm, true);
  await s.advance(6_000);
  const rec = record(s, s.owner.id, res.body.scheduled_message_id);
  t.same([rec.failed, rec.failureMessage], [true, 'This organization has been deactivated'], 'failed');
  await doSetRealmDeactivated(s.shard, s.realm, false);
  t.same(await botMessages(s, s.owner.id), [], 'no notice');
});

t.test('an unexpected error is retried, then the message fails with "Internal server error"', async (t) => {
  const s = await setup(t);
  const batch = s.shard.batch();
  const id = s.shard.allocate(batch, 'scheduled');
  // A record the send cannot handle (no content): every run throws a TypeError, not an ApiError.
  const broken = { id, realmId: s.realm.id, senderId: s.owner.id, kind: 'send_later', type: 'stream', streamId: 1, topic: 't', to: [1], rendered: '', client: 'test', deliverAt: s.nowSeconds() + 1, readBySender: false, failed: false, failureMessage: null, deliveredMessageId: null };
  batch.put(s.shard.store.scheduled, [s.realm.id, s.owner.id, id], broken);
  s.jobs.schedule(batch, { kind: JOB_KIND, key: jobKey(s.realm.id, id), realmId: s.realm.id, due: broken.deliverAt * 1000, data: { senderId: s.owner.id, id } });
  await batch.commit();
  await s.advance(2_000);
  t.equal(s.jobs.get(jobKey(s.realm.id, id))?.attempts, 1, 'the first failure is retried');
  t.equal(record(s, s.owner.id, id).failed, false, 'not failed yet');
  await s.advance(10_000);
  t.equal(s.jobs.get(jobKey(s.realm.id, id))?.attempts, 2, 'a second time, after the backoff');
  await s.advance(20_000);
  const rec = record(s, s.owner.id, id);
  t.same([rec.failed, rec.failureMessage], [true, 'Internal server error'], 'after the third, failed');
  t.equal(s.jobs.get(jobKey(s.realm.id, id)), undefined, 'and the job is gone');
  const notices = await botMessages(s, s.owner.id);
  t.equal(notices.length, 1, 'the sender is told once');
  t.match(notices[0].content, /> Internal server error/, 'with the reason');
});

t.test('a run that finds its message already sent only removes the job (the key recognises a repeat)', async (t) => {
  const s = await setup(t);
  const res = await s.call(s.owner, 'scheduledMessages.create', { type: 'stream', to: 1, topic: 't', content: 'once', scheduled_delivery_timestamp: s.nowSeconds() + 5 });
  const id = res.body.scheduled_message_id;
  const rec = record(s, s.owner.id, id);
  // The state an effect made outside the job's transaction would leave: sent, job still there.
  await s.shard.batch().put(s.shard.store.scheduled, [s.realm.id, s.owner.id, id], { ...rec, deliveredMessageId: 12345 }).commit();
  const sent: unknown[] = [];
  s.shard.events.subscribe((_realm, event) => {
    if (event.type === 'message') sent.push(event);
  });
  await s.advance(6_000);
  t.same(sent, [], 'nothing sent again');
  t.equal(s.jobs.get(jobKey(s.realm.id, id)), undefined, 'the job is gone');
});
