import t, { type Test } from 'tap';
import type { UserRecord } from '../../../src/model/types.js';
import type { ShardEvent } from '../../../src/shard/events.js';
import { flipIds } from '../../../src/store/flips.js';
import { checkEvent } from '../../helpers/openapi.js';
import { inProcessShard } from '../../helpers/shard.js';

/**
 * The update_message_flags events of flag changes, checked against the reference's GET /events
 * schema, and the read-state bookkeeping behind them (the read mark moves, flips do not pile up).
 * The shard runs in this process so the test can listen on its event bus; requests go through
 * the server's own dispatcher.
 */
t.test('flag events and read state', async (t) => {
  const h = await inProcessShard(t, 'Flags');
  const { shard, realm, owner } = h;
  const make = (name: string) => h.member(name);
  const hamlet = await make('hamlet');
  const othello = await make('othello');
  const general = realm.streamByName('general')!.id;

  let seen: { event: ShardEvent; userIds: number[] }[] = [];
  shard.events.subscribe((realmId, event, userIds) => {
    if (realmId === 1 && event.type === 'update_message_flags') seen.push({ event, userIds: [...userIds] });
  });
  const call = async (user: UserRecord, op: string, params: Record<string, unknown> = {}) => {
    seen = [];
    return h.call(user, op, params);
  };
  const send = async (params: Record<string, unknown>) => (await call(othello, 'messages.send', params)).body.id as number;
  const only = (t: Test) => {
    t.equal(seen.length, 1, 'one event');
    t.same(seen[0].userIds, [hamlet.id], 'to the user alone');
    t.doesNotThrow(() => checkEvent(seen[0].event), 'matches the reference schema');
    return seen[0].event;
  };

  const s1 = await send({ type: 'stream', to: 'general', topic: 'lunch', content: 'hi @**hamlet**' });
  const s2 = await send({ type: 'stream', to: 'general', topic: '', content: 'no topic' });
  const d1 = await send({ type: 'direct', to: [hamlet.id], content: 'psst' });
  const d2 = await send({ type: 'direct', to: [hamlet.id, owner.id], content: 'group' });

  t.test('starred', async (t) => {
    await call(hamlet, 'messages.updateFlags', { messages: [s1, s2], op: 'add', flag: 'starred' });
    t.same(only(t), { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'starred', messages: [s1, s2], all: false }, 'add');
    await call(hamlet, 'messages.updateFlags', { messages: [s1, s2], op: 'add', flag: 'starred' });
    t.same(only(t).messages, [], 'nothing changed: an empty list, as the reference sends');
    await call(hamlet, 'messages.updateFlags', { messages: [s2], op: 'remove', flag: 'starred' });
    t.same(only(t), { type: 'update_message_flags', op: 'remove', operation: 'remove', flag: 'starred', messages: [s2], all: false }, 'remove');
  });

  t.test('read, and unread with message_details', async (t) => {
    await call(hamlet, 'messages.updateFlags', { messages: [s1, s2, d1, d2], op: 'add', flag: 'read' });
    t.same(only(t), { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: [s1, s2, d1, d2], all: false }, 'read');
    await call(hamlet, 'messages.updateFlags', { messages: [s1, s2, d1, d2], op: 'remove', flag: 'read' });
    const event = only(t);
    t.same(event.messages, [s1, s2, d1, d2], 'unread');
    t.same(event.message_details, {
      [s1]: { type: 'stream', stream_id: general, topic: 'lunch', unmuted_stream_msg: true, mentioned: true },
      [s2]: { type: 'stream', stream_id: general, topic: '', unmuted_stream_msg: true },
      [d1]: { type: 'private', user_ids: [othello.id] },
      [d2]: { type: 'private', user_ids: [owner.id, othello.id].sort((a, b) => a - b) },
    }, 'details for each message, mentions marked');
  });

  t.test('bulk read endpoints', async (t) => {
    await call(hamlet, 'messages.markTopicAsRead', { stream_id: general, topic_name: 'lunch' });
    t.same(only(t), { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: [s1], all: false }, 'mark_topic_as_read');
    await call(hamlet, 'messages.markStreamAsRead', { stream_id: general });
    t.same(only(t).messages, [s2], 'mark_stream_as_read: what was still unread');
    await call(hamlet, 'messages.markStreamAsRead', { stream_id: general });
    t.same(seen, [], 'nothing to mark: no event');
    await call(hamlet, 'messages.markAllAsRead');
    t.same(only(t), { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: [], all: true }, 'mark_all_as_read');
    await call(hamlet, 'messages.updateFlagsForNarrow', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [], op: 'add', flag: 'collapsed' });
    t.same(only(t).messages, [s1, s2, d1, d2], 'flags/narrow sends the same event');
  });

  t.test('the read mark keeps flips from piling up', async (t) => {
    const flips = () => [...flipIds(shard.store.flips, realm.id, hamlet.id)];
    const mark = () => realm.readMarks.get(hamlet.id) ?? 0;
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) ids.push(await send({ type: 'stream', to: 'general', topic: 'flood', content: `m${i}` }));
    await call(hamlet, 'messages.updateFlags', { messages: [ids[0]], op: 'add', flag: 'read' });
    t.equal(mark(), ids[0], 'reading the next message moves the mark');
    t.same(flips(), [], 'and leaves no flip');
    await call(hamlet, 'messages.updateFlags', { messages: [ids[3]], op: 'add', flag: 'read' });
    t.equal(mark(), ids[0], 'reading ahead does not move it');
    t.same(flips(), [ids[3]], 'one flip for the message read out of order');
    await call(hamlet, 'messages.updateFlags', { messages: [ids[1], ids[2]], op: 'add', flag: 'read' });
    t.equal(mark(), ids[3], 'filling the gap moves the mark past the read run');
    t.same(flips(), [], 'and drops the flip');
    await call(hamlet, 'messages.updateFlags', { messages: [ids[5], s1], op: 'remove', flag: 'read' });
    t.same(flips(), [s1], 'unreading below the mark flips; above it nothing to do');
    await call(hamlet, 'messages.markAllAsRead');
    t.same(flips(), [], 'mark_all_as_read drops the flips');
    t.equal(mark(), shard.messageIds.current(), 'and moves the mark to the newest id');
  });
});
