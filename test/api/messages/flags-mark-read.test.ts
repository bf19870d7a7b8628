import t from 'tap';
import { startWorld, streamId, subscribe, type Person } from '../streams/world.js';

/** The bulk read endpoints: /mark_all_as_read, /mark_stream_as_read, /mark_topic_as_read. */
t.test('marking as read in bulk', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello, polonius } = w.root;
  const asHamlet = w.as(hamlet);
  await subscribe(w.as(othello), ['verona']);
  await subscribe(asHamlet, ['verona']);
  const verona = await streamId(asHamlet, 'verona');
  const general = await streamId(asHamlet, 'general');
  const send = async (who: Person, params: Record<string, unknown>) => (await w.as(who)('POST', '/messages', { params })).body.id as number;
  const unread = async (who: Person = hamlet) => {
    const res = await w.as(who)('GET', '/messages', { params: { anchor: 'oldest', num_after: 1000, narrow: JSON.stringify([{ operator: 'is', operand: 'unread' }]) } });
    return (res.body.messages as { id: number }[]).map((m) => m.id);
  };
  const g1 = await send(othello, { type: 'stream', to: 'general', topic: 'lunch', content: 'a' });
  const g2 = await send(othello, { type: 'stream', to: 'general', topic: 'dinner', content: 'b' });
  const v1 = await send(othello, { type: 'stream', to: 'verona', topic: 'lunch', content: 'c' });
  const d1 = await send(othello, { type: 'direct', to: [hamlet.userId], content: 'd' });
  const e1 = await send(othello, { type: 'stream', to: 'general', topic: '', content: 'e' });

  t.test('mark_topic_as_read', async (t) => {
    const res = await asHamlet('POST', '/mark_topic_as_read', { params: { stream_id: general, topic_name: 'LUNCH' } });
    t.same(res.body, { result: 'success', msg: '' }, 'ok');
    t.same(await unread(), [g2, v1, d1, e1], 'only that topic of that channel, case aside');
    const empty = await asHamlet('POST', '/mark_topic_as_read', { params: { stream_id: general, topic_name: 'general chat' } });
    t.equal(empty.status, 200, 'the empty topic by its display name');
    t.same(await unread(), [g2, v1, d1], 'the empty topic read');
    const none = await asHamlet('POST', '/mark_topic_as_read', { params: { stream_id: general, topic_name: 'abc' } });
    t.same(none.body, { result: 'error', msg: "No such topic 'abc'", code: 'BAD_REQUEST' }, 'a topic Hamlet has no message in');
    const missing = await asHamlet('POST', '/mark_topic_as_read', { params: { stream_id: general } });
    t.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING', 'topic_name required');
  });

  t.test('mark_stream_as_read', async (t) => {
    const res = await asHamlet('POST', '/mark_stream_as_read', { params: { stream_id: verona } });
    t.same(res.body, { result: 'success', msg: '' }, 'ok');
    t.same(await unread(), [g2, d1], 'verona read, the rest not');
    t.same(await unread(othello), [g1, g2, v1, d1, e1], 'Othello\'s state untouched');
    const bad = await asHamlet('POST', '/mark_stream_as_read', { params: { stream_id: 99999 } });
    t.same(bad.body, { result: 'error', msg: 'Invalid channel ID', code: 'BAD_REQUEST' }, 'unknown channel');
    const guest = await w.as(polonius)('POST', '/mark_stream_as_read', { params: { stream_id: verona } });
    t.equal(guest.body.msg, 'Invalid channel ID', 'a guest outside a public channel cannot use it');
    const topicGuest = await w.as(polonius)('POST', '/mark_topic_as_read', { params: { stream_id: verona, topic_name: 'lunch' } });
    t.equal(topicGuest.body.msg, 'Invalid channel ID', 'nor mark one of its topics');
  });

  t.test('mark_all_as_read', async (t) => {
    const again = await w.as(othello)('POST', '/messages/flags', { params: { messages: JSON.stringify([g1]), op: 'add', flag: 'read' } });
    t.equal(again.status, 200, 'Othello read one');
    const res = await asHamlet('POST', '/mark_all_as_read');
    t.same(res.body, { result: 'success', msg: '', complete: true }, 'complete');
    t.same(await unread(), [], 'nothing unread');
    const later = await send(othello, { type: 'stream', to: 'general', topic: 'late', content: 'f' });
    t.same(await unread(), [later], 'new messages arrive unread');
    const back = await asHamlet('POST', '/messages/flags', { params: { messages: JSON.stringify([g1]), op: 'remove', flag: 'read' } });
    t.equal(back.status, 200, 'an old one marked unread again');
    t.same(await unread(), [g1, later], 'unread below the mark');
    await asHamlet('POST', '/mark_all_as_read');
    t.same(await unread(), [], 'and read again by mark_all_as_read');
    t.same(await unread(othello), [g2, v1, d1, e1, later], 'Othello unaffected');
  });
});
