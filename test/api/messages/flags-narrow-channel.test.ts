import t from 'tap';
import type { UserRecord } from '../../../src/model/types.js';
import type { ShardEvent } from '../../../src/shard/events.js';
import { checkEvent } from '../../helpers/openapi.js';
import { inProcessShard } from '../../helpers/shard.js';

/**
 * POST /messages/flags/narrow over a channel (or topic) whose history the user may read reads
 * the index's ids and no message (narrow-plan.ts `exact`, read-state.ts setReadOfIds). Here two
 * users with the same history make the same updates, one through such a narrow and one through
 * the same narrow with `in:all` added (which the general path answers, reading every message):
 * their answers, their events, their flags and their unread counts must be the same, over
 * messages sent before they joined (historical), a message moved in from a channel they never
 * saw, and a topic.
 */
t.test('a channel narrow answers as the general path does', async (t) => {
  const h = await inProcessShard(t, 'Exact');
  const othello = await h.member('othello');
  const hamlet = await h.member('hamlet');
  const iago = await h.member('iago');
  const must = async (user: UserRecord, op: string, params: Record<string, unknown>) => {
    const res = await h.call(user, op, params);
    if (res.status !== 200) throw new Error(`${op}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const send = async (to: string, topic: string, content: string) => (await must(othello, 'messages.send', { type: 'stream', to, topic, content })).id as number;

  await must(othello, 'subscriptions.add', { subscriptions: [{ name: 'verona' }, { name: 'elsewhere' }] });
  const before = [await send('verona', 'a', 'before 1'), await send('verona', 'b', 'before 2')];
  for (const user of [hamlet, iago]) await must(user, 'subscriptions.add', { subscriptions: [{ name: 'verona' }] });
  const ids = [...before];
  for (let i = 0; i < 6; i++) ids.push(await send('verona', i % 2 ? 'b' : 'a', `m${i} @**hamlet** @**iago**`));
  const moved = await send('elsewhere', 'a', 'moved in');
  const verona = h.realm.streamByName('verona')!.id;
  await must(othello, 'messages.update', { message_id: moved, stream_id: verona, topic: 'a' });
  ids.push(moved);
  ids.push(await send('verona', 'a', 'last'));

  let seen: { event: ShardEvent; userIds: number[] }[] = [];
  h.shard.events.subscribe((realmId, event, userIds) => {
    if (event.type === 'update_message_flags') seen.push({ event, userIds: [...userIds] });
  });
  const channel = [{ operator: 'channel', operand: 'verona' }];
  const update = async (user: UserRecord, narrow: unknown[], params: Record<string, unknown>) => {
    seen = [];
    const body = await must(user, 'messages.updateFlagsForNarrow', { narrow: JSON.stringify(narrow), num_before: 0, ...params });
    t.equal(seen.length, 1, 'one event');
    t.doesNotThrow(() => checkEvent(seen[0].event), 'the event matches the reference schema');
    return { body, event: seen[0].event };
  };
  const shown = async (user: UserRecord) => {
    const page = await must(user, 'messages.list', { anchor: 'oldest', num_before: 0, num_after: 100, narrow: JSON.stringify(channel) });
    return (page.messages as { id: number; flags: string[] }[]).map((m) => [m.id, m.flags]);
  };
  const unread = async (user: UserRecord) => {
    const snap = await must(user, 'events.register', { fetch_event_types: ['update_message_flags', 'message'] });
    await must(user, 'events.delete', { queue_id: snap.queue_id });
    return snap.unread_msgs.streams;
  };
  const same = async (t: Test, narrow: unknown[], params: Record<string, unknown>) => {
    const exact = await update(hamlet, narrow, params);
    const general = await update(iago, [...narrow, { operator: 'in', operand: 'all' }], params);
    t.same(exact.body, general.body, 'the same answer');
    t.same(exact.event, general.event, 'the same event');
    t.same(await shown(hamlet), await shown(iago), 'the same flags');
    t.same(await unread(hamlet), await unread(iago), 'the same unread counts');
    return exact;
  };
  type Test = typeof t;

  t.test('marking the channel read, unread, then read', async (t) => {
    const first = await same(t, channel, { anchor: 'oldest', num_after: 100, op: 'add', flag: 'read' });
    t.same(first.body.processed_count, (await shown(hamlet)).length, 'every message processed');
    t.ok(first.body.updated_count > 0, 'what arrived since they joined was unread');
    const off = await same(t, channel, { anchor: 'oldest', num_after: 100, op: 'remove', flag: 'read' });
    const changed = off.event.messages as number[];
    t.notOk(changed.includes(before[0]), 'a message sent before they joined stays read (historical)');
    t.ok(changed.includes(ids[3]), 'a received one became unread');
    t.match(off.event.message_details, { [ids[3]]: { type: 'stream', stream_id: verona, topic: 'b', mentioned: true } }, 'with the details a client files it by');
    const on = await same(t, channel, { anchor: 'oldest', num_after: 100, op: 'add', flag: 'read' });
    t.same(on.event.messages, changed, 'the same ones read again');
    t.same(await unread(hamlet), [], 'nothing unread');
  });

  t.test('a range around an anchor, and a topic', async (t) => {
    await same(t, channel, { anchor: String(ids[4]), num_before: 2, num_after: 2, op: 'remove', flag: 'read' });
    const topicA = [...channel, { operator: 'topic', operand: 'a' }];
    await same(t, topicA, { anchor: 'newest', num_before: 100, num_after: 0, op: 'remove', flag: 'read' });
    await same(t, topicA, { anchor: String(ids[2]), include_anchor: false, num_after: 3, op: 'add', flag: 'read' });
    await same(t, channel, { anchor: 'first_unread', num_after: 100, op: 'add', flag: 'read' });
    await same(t, channel, { anchor: 'oldest', num_after: 100, op: 'add', flag: 'starred' });
    const again = await same(t, channel, { anchor: 'oldest', num_after: 100, op: 'add', flag: 'read' });
    t.same(again.body.updated_count, 0, 'nothing left to read');
  });

  t.test('a channel the user left', async (t) => {
    for (const user of [hamlet, iago]) await must(user, 'subscriptions.remove', { subscriptions: ['verona'] });
    const left = await same(t, channel, { anchor: 'oldest', num_after: 100, op: 'remove', flag: 'read' });
    t.same(left.body.ignored_because_not_subscribed_channels, [verona], 'reported, nothing made unread');
    t.same(left.event.messages, [], 'an empty event, as the general path sends');
  });
});
