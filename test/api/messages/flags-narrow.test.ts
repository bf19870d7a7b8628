import t from 'tap';
import { startWorld, streamId, subscribe, type Person } from '../streams/world.js';

/** POST /messages/flags/narrow: the range it touches and every field of its answer. */
t.test('POST /messages/flags/narrow', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello } = w.root;
  const asHamlet = w.as(hamlet);
  await subscribe(w.as(othello), ['verona']);
  await subscribe(asHamlet, ['verona']);
  const verona = await streamId(asHamlet, 'verona');
  const send = async (who: Person, params: Record<string, unknown>) => (await w.as(who)('POST', '/messages', { params })).body.id as number;
  const m: number[] = [];
  for (let i = 0; i < 10; i++) m.push(await send(othello, { type: 'stream', to: 'verona', topic: `topic ${i % 2}`, content: `m${i}` }));
  const post = (params: Record<string, unknown>) =>
    asHamlet('POST', '/messages/flags/narrow', { params: { narrow: '[]', ...params, ...(params.narrow && typeof params.narrow !== 'string' ? { narrow: JSON.stringify(params.narrow) } : {}) } });
  const starred = async () => {
    const res = await asHamlet('GET', '/messages', { params: { anchor: 'oldest', num_after: 100, narrow: JSON.stringify([{ operator: 'is', operand: 'starred' }]) } });
    return (res.body.messages as { id: number }[]).map((x) => x.id);
  };
  const topic1 = [
    { operator: 'channel', operand: 'verona' },
    { operator: 'topic', operand: 'topic 1' },
  ];

  t.test('a range around an anchor', async (t) => {
    const res = await post({ anchor: m[5], num_before: 2, num_after: 2, op: 'add', flag: 'read' });
    t.same(res.body, {
      result: 'success',
      msg: '',
      processed_count: 5,
      updated_count: 5,
      first_processed_id: m[3],
      last_processed_id: m[7],
      found_oldest: false,
      found_newest: false,
    }, 'five processed and updated, neither end reached');
    const again = await post({ anchor: m[5], num_before: 2, num_after: 2, op: 'add', flag: 'read' });
    t.equal(again.body.updated_count, 0, 'nothing left to update');
    t.equal(again.body.processed_count, 5, 'still processed');
  });

  t.test('a topic, anchor excluded', async (t) => {
    const res = await post({ anchor: m[3], include_anchor: false, num_before: 0, num_after: 5, narrow: topic1, op: 'add', flag: 'starred' });
    t.match(res.body, { processed_count: 3, updated_count: 3, first_processed_id: m[5], last_processed_id: m[9], found_oldest: false, found_newest: true }, 'what follows the anchor in the topic');
    t.same(await starred(), [m[5], m[7], m[9]], 'those are starred');
    const pairs = await post({ anchor: m[3], include_anchor: false, num_before: 0, num_after: 5, narrow: [['stream', 'verona'], ['topic', 'topic 1']], op: 'remove', flag: 'starred' });
    t.equal(pairs.body.updated_count, 3, 'legacy pairs work too');
    t.same(await starred(), [], 'unstarred');
  });

  t.test('everything unread, newest first', async (t) => {
    const res = await post({ anchor: 'newest', num_before: 5000, num_after: 0, narrow: [{ operator: 'is', operand: 'unread' }], op: 'add', flag: 'read' });
    t.match(res.body, { found_oldest: true, found_newest: true }, 'both ends reached');
    t.ok(res.body.updated_count >= 5, 'the unread ones updated');
    const unread = await asHamlet('GET', '/messages', { params: { anchor: 'newest', num_before: 100, narrow: JSON.stringify([{ operator: 'is', operand: 'unread' }]) } });
    t.same(unread.body.messages, [], 'nothing unread');
    const empty = await post({ anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'is', operand: 'unread' }], op: 'add', flag: 'read' });
    t.match(empty.body, { processed_count: 0, updated_count: 0, first_processed_id: null, last_processed_id: null }, 'an empty range: null ids');
  });

  t.test('marking unread reports and skips unsubscribed channels', async (t) => {
    const unsub = await w.as(othello)('DELETE', '/users/me/subscriptions', { params: { subscriptions: JSON.stringify(['verona']) } });
    t.equal(unsub.status, 200, 'Othello left verona');
    const res = await w.as(othello)('POST', '/messages/flags/narrow', {
      params: { anchor: 'oldest', num_before: 0, num_after: 100, narrow: JSON.stringify([{ operator: 'channel', operand: 'verona' }]), op: 'remove', flag: 'read' },
    });
    t.match(res.body, { processed_count: 10, updated_count: 0, ignored_because_not_subscribed_channels: [verona] }, 'the channel is reported, nothing made unread');
    const own = await post({ anchor: m[0], num_before: 0, num_after: 0, op: 'remove', flag: 'read' });
    t.match(own.body, { updated_count: 1, ignored_because_not_subscribed_channels: [] }, 'Hamlet, subscribed, can');
  });

  t.test('limits and errors', async (t) => {
    const big = await post({ anchor: 'newest', num_before: 6000, num_after: 6000, op: 'add', flag: 'collapsed' });
    t.equal(big.status, 200, 'counts over the limit are lowered, not refused');
    const excluded = await post({ anchor: m[5], include_anchor: false, num_before: 1, num_after: 1, op: 'add', flag: 'read' });
    t.equal(excluded.body.msg, 'The anchor can only be excluded at an end of the range', 'the anchor only excluded at an end');
    const first = await post({ anchor: 'first_unread', num_before: 0, num_after: 1, op: 'add', flag: 'read' });
    t.equal(first.status, 200, 'first_unread is an anchor here too');
    const badAnchor = await post({ anchor: 'soon', num_before: 0, num_after: 1, op: 'add', flag: 'read' });
    t.equal(badAnchor.body.msg, 'Invalid anchor', 'bad anchor');
    const badFlag = await post({ anchor: 'newest', num_before: 1, num_after: 0, op: 'add', flag: 'group_mentioned' });
    t.equal(badFlag.body.msg, "Flag not editable: 'group_mentioned'", 'non-editable flag');
    const missing = await asHamlet('POST', '/messages/flags/narrow', { params: { anchor: 'newest', num_after: 0, narrow: '[]', op: 'add', flag: 'read' } });
    t.same(missing.body, { result: 'error', msg: "Missing 'num_before' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'num_before' }, 'num_before required');
  });
});
