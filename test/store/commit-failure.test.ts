import t from 'tap';
import type { RealmState } from '../../src/model/realm-state.js';
import { inProcessShard } from '../helpers/shard.js';

/**
 * A failed LMDB commit (a full disk, an I/O error), simulated: the environment's transaction
 * rejects the way lmdb-js rejects a failed commit, with the cause in a second rejected promise.
 * The disk-full test (disk-full.test.ts) does the same on a real, full filesystem.
 */
function failNextCommits(env: { transaction: (fn: () => unknown) => Promise<unknown> }, count = 1): void {
  const real = env.transaction.bind(env);
  let left = count;
  env.transaction = (fn) => {
    if (left-- <= 0) return real(fn);
    const cause = Object.assign(new Error('No space left on device'), { code: 28 });
    const err = Object.assign(new Error('Commit failed (see commitError for details)'), { commitError: Promise.reject(cause) });
    return Promise.reject(err);
  };
}

/** What the shard holds in memory of a realm, comparable. */
function model(realm: RealmState): string {
  return JSON.stringify({
    users: [...realm.users.values()],
    streams: [...realm.streams.values()],
    subs: [...realm.subsByUser].map(([u, m]) => [u, [...m.values()]]),
    groups: [...realm.groups.values()],
    readMarks: [...realm.readMarks],
    subHistory: [...realm.subHistory].map(([u, m]) => [u, [...m]]),
  });
}

t.test('a failed commit fails its requests and leaves memory as the store has it', async (t) => {
  const s = await inProcessShard(t);
  const member = await s.member('member');
  const send = (content: string) => s.call(member, 'messages.send', { type: 'stream', to: 'general', topic: 'disk', content });
  t.equal((await send('before')).status, 200, 'a send before the failure');
  const before = model(s.realm);

  failNextCommits(s.shard.store.env);
  // A channel made by subscribing: the action changes memory (a new channel, a subscription,
  // its history) before its commit fails.
  const failed = await s.call(member, 'subscriptions.add', { subscriptions: [{ name: 'never made' }] });
  t.equal(failed.status, 503, '503');
  t.same(failed.body, { result: 'error', msg: 'The server could not save this change (storage error). Nothing was changed; try again later.', code: 'STORAGE_ERROR' }, 'a clear JSON error');
  await s.shard.recovering;
  t.equal(model(s.realm), before, 'memory was reloaded from the store: the failed change is gone from it too');
  t.notOk(s.realm.streamByName('never made'), 'no such channel');

  const read = await s.call(member, 'messages.list', { anchor: 'newest', num_before: 5, num_after: 0 });
  t.equal(read.status, 200, 'reads go on');
  t.same(read.body.messages.map((m: { content: string }) => m.content), ['<p>before</p>'], 'with what was stored');

  failNextCommits(s.shard.store.env);
  const lost = await send('lost');
  t.equal(lost.status, 503, 'a send that fails');
  await s.shard.recovering;
  const after = await send('after');
  t.equal(after.status, 200, 'writes work again once commits succeed');
  const made = await s.call(member, 'subscriptions.add', { subscriptions: [{ name: 'made now' }] });
  t.equal(made.status, 200, 'the channel can be made now');
  const list = await s.call(member, 'messages.list', { anchor: 'newest', num_before: 5, num_after: 0 });
  t.same(list.body.messages.map((m: { content: string }) => m.content), ['<p>before</p>', '<p>after</p>'], 'the failed send is not there; the later one is');
  t.ok(list.body.messages[1].id > lost.body.id || lost.body.id === undefined, 'ids go on increasing');
});

t.test('event queues: a failed register leaves no queue; events of a failed action are never delivered', async (t) => {
  const s = await inProcessShard(t);
  const member = await s.member('listener');
  const queue = (await s.call(member, 'events.register', { event_types: ['message'] })).body.queue_id as string;
  failNextCommits(s.shard.store.env);
  const failedRegister = await s.call(member, 'events.register', { event_types: ['message'] });
  t.equal(failedRegister.status, 503, 'a register whose queue row cannot be written fails');
  await s.shard.recovering;
  failNextCommits(s.shard.store.env);
  t.equal((await s.call(s.owner, 'messages.send', { type: 'stream', to: 'general', topic: 't', content: 'lost' })).status, 503, 'a failed send');
  await s.shard.recovering;
  t.equal((await s.call(s.owner, 'messages.send', { type: 'stream', to: 'general', topic: 't', content: 'kept' })).status, 200, 'a send that works');
  const polled = await s.call(member, 'events.get', { queue_id: queue, last_event_id: -1, dont_block: true });
  t.same(polled.body.events.map((e: { message: { content: string } }) => e.message.content), ['kept'], 'the queue got only the committed message');
});
