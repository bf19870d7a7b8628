import t from 'tap';
import { convergenceHarness } from '../../helpers/convergence.js';
import type { Credentials } from '../../helpers/server.js';
import { startWorld, type Person } from '../streams/world.js';

/**
 * Delivery over HTTP, on the server's own clock: a scheduled message is sent at its second as a
 * real send by its sender; a send that cannot be made marks it failed and tells the sender.
 */

const now = () => Math.floor(Date.now() / 1000);
const BOT = 'notification-bot@zulip.com';

t.test('delivery', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello, owner, admin } = w.root;
  const ok = async (who: Credentials, method: string, path: string, params: Record<string, unknown> = {}) => {
    const res = await w.as(who as Person)(method, path, { params });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const general = (await ok(hamlet, 'GET', '/get_stream_id', { stream: 'general' })).stream_id as number;
  const schedule = async (who: Person, params: Record<string, unknown>) => (await ok(who, 'POST', '/scheduled_messages', params)).scheduled_message_id as number;
  const pending = async (who: Person) => (await ok(who, 'GET', '/scheduled_messages')).scheduled_messages as Record<string, any>[];
  const newest = async (who: Person, n = 20) => (await ok(who, 'GET', '/messages', { anchor: 'newest', num_before: n, num_after: 0, apply_markdown: false })).messages as any[];
  /** Waits until none of `ids` is pending and unfailed for `who`. */
  const settled = async (who: Person, ids: number[], seconds = 30) => {
    const until = Date.now() + seconds * 1000;
    while (Date.now() < until) {
      const left = (await pending(who)).filter((m) => ids.includes(m.scheduled_message_id) && !m.failed);
      if (left.length === 0) {
        // The list already reads the delivery's writes while its commit, after which its events
        // go out, may be in flight. A register waits for commits in flight to finish.
        const queue = await ok(who, 'POST', '/register', { event_types: ['message'] });
        await ok(who, 'DELETE', '/events', { queue_id: queue.queue_id });
        return;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`scheduled messages ${ids} still pending after ${seconds} s`);
  };

  t.test('sent at the scheduled second, as a real send by the sender', async (t) => {
    const at = now() + 10; // room for the steps before it on a loaded machine
    const queue = await ok(othello, 'POST', '/register', { event_types: ['message'] });
    const mine = await ok(hamlet, 'POST', '/register', { event_types: ['message', 'scheduled_messages'] });
    const a = await schedule(hamlet, { type: 'stream', to: general, topic: 'later', content: 'hello @**othello**', scheduled_delivery_timestamp: at, read_by_sender: true });
    const b = await schedule(hamlet, { type: 'direct', to: [othello.userId], content: 'a **direct** one', scheduled_delivery_timestamp: at });
    const deleted = await schedule(hamlet, { type: 'stream', to: general, topic: 'later', content: 'never sent', scheduled_delivery_timestamp: at });
    const moved = await schedule(hamlet, { type: 'stream', to: general, topic: 'later', content: 'sent later', scheduled_delivery_timestamp: at });
    await ok(hamlet, 'DELETE', `/scheduled_messages/${deleted}`);
    await ok(hamlet, 'PATCH', `/scheduled_messages/${moved}`, { scheduled_delivery_timestamp: at + 3600 });
    t.same((await newest(othello, 5)).filter((m) => m.content === 'hello @**othello**'), [], 'nothing before the time');
    await settled(hamlet, [a, b]);
    const sent = (await newest(othello)).filter((m) => m.sender_email === hamlet.email && m.timestamp >= at);
    const channel = sent.find((m) => m.type === 'stream');
    const direct = sent.find((m) => m.type === 'private');
    t.ok(channel && direct, 'both arrived');
    t.same([channel.content, channel.subject, channel.stream_id], ['hello @**othello**', 'later', general], 'the channel message');
    t.ok(channel.timestamp >= at && channel.timestamp <= at + 5, `sent at its second (${channel.timestamp - at} s after)`);
    t.same(direct.display_recipient.map((r: { id: number }) => r.id).sort(), [hamlet.userId, othello.userId].sort(), 'the direct message, between the two');
    t.ok(channel.flags.includes('mentioned'), 'rendered at delivery: the mention flags othello');
    t.notOk(sent.some((m) => m.content === 'never sent' || m.content === 'sent later'), 'the deleted and the moved ones were not sent');
    const own = (await newest(hamlet)).find((m) => m.id === channel.id);
    t.ok(own.flags.includes('read'), 'read_by_sender: true');
    const ownDirect = (await newest(hamlet)).find((m) => m.id === direct.id);
    t.notOk(ownDirect.flags.includes('read'), 'without read_by_sender, an API client leaves it unread');
    t.same((await pending(hamlet)).map((m) => m.scheduled_message_id), [moved], 'only the moved one is still pending');
    const theirs = await ok(othello, 'GET', '/events', { queue_id: queue.queue_id, last_event_id: -1, dont_block: true });
    t.same(theirs.events.map((e: { message: { id: number } }) => e.message.id).sort(), [channel.id, direct.id].sort(), 'othello got both message events');
    const events = (await ok(hamlet, 'GET', '/events', { queue_id: mine.queue_id, last_event_id: -1, dont_block: true })).events;
    const removed = events.filter((e: { type: string; op: string }) => e.type === 'scheduled_messages' && e.op === 'remove').map((e: { scheduled_message_id: number }) => e.scheduled_message_id);
    t.same(removed.sort(), [a, b, deleted].sort(), 'remove events: the deleted one and each one sent');
    const msgAt = events.findIndex((e: { type: string; message?: { id: number } }) => e.type === 'message' && e.message!.id === channel.id);
    const removeAt = events.findIndex((e: { type: string; scheduled_message_id?: number }) => e.type === 'scheduled_messages' && e.scheduled_message_id === a);
    t.ok(msgAt >= 0 && msgAt < removeAt, 'the message event comes before its remove event');

    const again = await w.as(hamlet)('PATCH', `/scheduled_messages/${a}`, { params: { content: 'New message content', scheduled_delivery_timestamp: now() + 600 } });
    t.same([again.status, again.body.msg], [400, 'Scheduled message was already sent'], 'a sent message cannot be edited');
    const del = await w.as(hamlet)('DELETE', `/scheduled_messages/${a}`);
    t.equal(del.status, 200, 'but can be deleted, as in the reference');
  });

  t.test('a send that fails: marked failed, kept, and the sender told by the Notification Bot', async (t) => {
    await ok(owner, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: 'doomed' }], principals: [owner.userId, hamlet.userId] });
    const doomed = (await ok(owner, 'GET', '/get_stream_id', { stream: 'doomed' })).stream_id;
    const at = now() + 10; // room for the steps before it on a loaded machine
    const id = await schedule(hamlet, { type: 'stream', to: doomed, topic: 'soon', content: 'into the void', scheduled_delivery_timestamp: at });
    const silent = await schedule(othello, { type: 'stream', to: general, topic: 'soon', content: 'from a deactivated user', scheduled_delivery_timestamp: at });
    const queue = await ok(hamlet, 'POST', '/register', { event_types: ['scheduled_messages', 'message'] });
    await ok(owner, 'DELETE', `/streams/${doomed}`);
    await ok(admin, 'DELETE', `/users/${othello.userId}`);
    await settled(hamlet, [id]);
    const [failed] = (await pending(hamlet)).filter((m) => m.scheduled_message_id === id);
    t.same({ ...failed }, { scheduled_message_id: id, to: doomed, type: 'stream', content: 'into the void', rendered_content: '<p>into the void</p>', topic: 'soon', scheduled_delivery_timestamp: at, failed: true }, 'kept, with failed: true');
    const notice = (await newest(hamlet)).find((m) => m.sender_email === BOT);
    t.ok(notice, 'a direct message from the Notification Bot');
    const iso = new Date(at * 1000).toISOString().replace('.000Z', '+00:00');
    t.equal(notice.content, `The message you scheduled for <time:${iso}> was not sent because of the following error:\n\n> Not authorized to send to channel 'doomed'\n\n[View scheduled messages](#scheduled)`, 'the reference notice');
    t.same(notice.display_recipient.map((r: { id: number }) => r.id).sort(), [hamlet.userId, notice.sender_id].sort(), 'to the sender only');
    const events = (await ok(hamlet, 'GET', '/events', { queue_id: queue.queue_id, last_event_id: -1, dont_block: true })).events;
    const update = events.find((e: { type: string; op: string }) => e.type === 'scheduled_messages' && e.op === 'update');
    t.same(update?.scheduled_message, failed, 'an update event with failed: true');

    let res = await w.as(hamlet)('PATCH', `/scheduled_messages/${id}`, { params: { topic: 'Failed to send' } });
    t.same([res.status, res.body.msg], [400, 'Scheduled delivery time must be in the future.'], 'editing a failed message needs a new time');
    res = await w.as(hamlet)('PATCH', `/scheduled_messages/${id}`, { params: { type: 'stream', to: general, topic: 'rescued', scheduled_delivery_timestamp: now() + 4 } });
    t.equal(res.status, 200, 'a new time and a channel that works');
    t.equal((await pending(hamlet)).find((m) => m.scheduled_message_id === id)?.failed, false, 'no longer failed');
    await settled(hamlet, [id]);
    const rescued = (await newest(hamlet)).find((m) => m.content === 'into the void');
    t.same([rescued?.subject, rescued?.sender_email], ['rescued', hamlet.email], 'sent at its new time');

    await ok(admin, 'POST', `/users/${othello.userId}/reactivate`);
    const theirs = (await pending(othello)).find((m) => m.scheduled_message_id === silent);
    t.equal(theirs?.failed, true, "a deactivated sender's message failed");
    t.notOk((await newest(othello)).some((m) => m.sender_email === BOT), 'with no notice, as in the reference');
    t.notOk((await newest(hamlet)).some((m) => m.content === 'from a deactivated user'), 'and was not sent');
  });

  t.test('events converge through a delivery', async (t) => {
    const { converges } = convergenceHarness(t, w.ts);
    const opts = { sections: ['scheduled_messages'] };
    let id = 0;
    await converges('scheduling', async () => (id = await schedule(hamlet, { type: 'stream', to: general, topic: 'conv', content: 'converging', scheduled_delivery_timestamp: now() + 6 })), [hamlet, othello], opts);
    await converges('the delivery', () => settled(hamlet, [id]), [hamlet, othello], opts);
    let other = 0;
    await converges('scheduling a direct message', async () => (other = await schedule(hamlet, { type: 'direct', to: [othello.userId], content: 'edit me', scheduled_delivery_timestamp: now() + 3600 })), [hamlet, othello], opts);
    await converges('editing it', () => ok(hamlet, 'PATCH', `/scheduled_messages/${other}`, { type: 'channel', to: general, topic: 'edited', content: 'edited', scheduled_delivery_timestamp: now() + 1800 }), [hamlet, othello], opts);
    await converges('deleting it', () => ok(hamlet, 'DELETE', `/scheduled_messages/${other}`), [hamlet, othello], opts);
  });
});
