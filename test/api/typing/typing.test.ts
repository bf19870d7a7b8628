import t from 'tap';
import { checkEvent } from '../../helpers/openapi.js';
import { createUser, startTestServer } from '../../helpers/server.js';

/** POST /typing and POST /messages/{message_id}/typing, seen through real event queues. */
t.test('typing notifications', async (t) => {
  const ts = await startTestServer(t, { heartbeatSeconds: 1 });
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const cy = await createUser(ts, 'cy@example.com', 'Cy');
  const users = { ann, bob, cy };
  type Who = keyof typeof users;
  const as = (who: Who) => ts.as(users[who]);
  const queue = async (who: Who, caps: Record<string, boolean> = {}) => {
    const res = await as(who)('POST', '/register', { params: { event_types: ['typing', 'typing_edit_message'], client_capabilities: caps } });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body.queue_id as string;
  };
  const acked = new Map<string, number>();
  /** The queue's new events (acknowledging the ones seen before), each checked against the reference. */
  const drain = async (who: Who, queueId: string) => {
    const res = await as(who)('GET', '/events', { params: { queue_id: queueId, last_event_id: acked.get(queueId) ?? -1, dont_block: true } });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    const events = res.body.events as Record<string, any>[];
    for (const e of events) checkEvent(e);
    if (events.length) acked.set(queueId, events[events.length - 1].id);
    return events.map(({ id: _id, ...rest }) => rest);
  };
  const typing = (who: Who, params: Record<string, unknown>) => as(who)('POST', '/typing', { params });
  const general = (await as('ann')('GET', '/get_stream_id', { params: { stream: 'general' } })).body.stream_id as number;
  const person = (who: Who) => ({ user_id: users[who].userId, email: users[who].email });

  t.test('POST /typing: a direct message reaches its recipients, the typist included', async (t) => {
    const [qa, qb, qc] = [await queue('ann'), await queue('bob'), await queue('cy')];
    const res = await typing('ann', { op: 'start', to: [bob.userId] });
    t.same(res.body, { result: 'success', msg: '' }, 'accepted');
    const expected = { type: 'typing', message_type: 'direct', op: 'start', sender: person('ann'), recipients: [person('bob'), person('ann')] };
    t.same(await drain('bob', qb), [expected], 'Bob is told, with every participant listed');
    t.same(await drain('ann', qa), [expected], 'Ann\'s own clients too, as the reference does');
    t.same(await drain('cy', qc), [], 'Cy is not in the conversation');
    await typing('ann', { op: 'stop', to: [bob.userId, cy.userId] });
    t.match(await drain('cy', qc), [{ op: 'stop', recipients: [person('bob'), person('cy'), person('ann')] }], 'stop, to a group');
    await typing('ann', { type: 'private', op: 'start', to: [bob.userId] });
    t.match(await drain('bob', qb), [{ message_type: 'direct' }], 'the legacy type name "private" is accepted');
  });

  t.test('POST /typing: a parked poll is woken by a typing notification', async (t) => {
    const qb = await queue('bob');
    const poll = as('bob')('GET', '/events', { params: { queue_id: qb, last_event_id: -1 } });
    await new Promise((r) => setTimeout(r, 50));
    await typing('ann', { op: 'start', to: [bob.userId] });
    const got = await poll;
    t.equal(got.body.events[0]?.type, 'typing', 'the poll returns the typing event');
  });

  t.test('POST /typing: channel typing goes to subscribers whose clients support it', async (t) => {
    const qb = await queue('bob', { stream_typing_notifications: true });
    const qbModern = await queue('bob', { stream_typing_notifications: true, empty_topic_name: true });
    const qc = await queue('cy');
    await typing('ann', { type: 'stream', op: 'start', stream_id: general, topic: 'plans' });
    t.same(await drain('bob', qb), [{ type: 'typing', message_type: 'stream', op: 'start', sender: person('ann'), stream_id: general, topic: 'plans' }], 'Bob\'s capable client');
    t.match(await drain('bob', qbModern), [{ topic: 'plans' }], 'and his other one');
    t.same(await drain('cy', qc), [], 'not to a client without stream_typing_notifications');
    await typing('ann', { type: 'channel', op: 'stop', stream_id: general, topic: '' });
    t.match(await drain('bob', qb), [{ op: 'stop', topic: 'general chat' }], 'the empty topic reads "general chat" for older clients');
    t.match(await drain('bob', qbModern), [{ op: 'stop', topic: '' }], 'and "" for clients with empty_topic_name');
    await typing('ann', { type: 'stream', op: 'start', stream_id: general, topic: '(no topic)' });
    t.match(await drain('bob', qbModern), [{ topic: '' }], '"(no topic)" means the empty topic');
  });

  t.test('POST /messages/{message_id}/typing: editing a message', async (t) => {
    const qb = await queue('bob');
    const inChannel = (await as('ann')('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'draft', content: 'x' } })).body.id;
    const direct = (await as('ann')('POST', '/messages', { params: { type: 'direct', to: [bob.userId], content: 'y' } })).body.id;
    const res = await as('ann')('POST', `/messages/${inChannel}/typing`, { params: { op: 'start' } });
    t.equal(res.status, 200, 'accepted');
    t.same(await drain('bob', qb), [{ type: 'typing_edit_message', op: 'start', sender_id: ann.userId, message_id: inChannel, recipient: { type: 'channel', channel_id: general, topic: 'draft' } }], 'a channel message');
    await as('ann')('POST', `/messages/${direct}/typing`, { params: { op: 'stop' } });
    t.same(await drain('bob', qb), [{ type: 'typing_edit_message', op: 'stop', sender_id: ann.userId, message_id: direct, recipient: { type: 'direct', user_ids: [ann.userId, bob.userId].sort((a, b) => a - b) } }], 'a direct message');
    const foreign = await as('cy')('POST', `/messages/${direct}/typing`, { params: { op: 'start' } });
    t.same(foreign.body, { result: 'error', msg: 'Invalid message(s)', code: 'BAD_REQUEST' }, 'a message one cannot read');
    const missingOp = await as('ann')('POST', `/messages/${direct}/typing`);
    t.equal(missingOp.body.code, 'REQUEST_VARIABLE_MISSING', 'op is required');
  });

  t.test('POST /typing: errors', async (t) => {
    const error = async (params: Record<string, unknown>, who: Who = 'ann') => (await typing(who, params)).body;
    t.same(await error({ to: [bob.userId] }), { result: 'error', msg: "Missing 'op' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'op' }, 'op is required');
    t.same(await error({ op: 'pause', to: [bob.userId] }), { result: 'error', msg: 'Invalid op', code: 'REQUEST_VARIABLE_INVALID', var_name: 'op' }, 'op is start or stop');
    t.equal((await error({ op: 'start', type: 'smoke', to: [bob.userId] })).msg, 'Invalid type', 'an unknown type');
    t.same(await error({ op: 'start' }), { result: 'error', msg: "Missing 'to' argument", code: 'BAD_REQUEST' }, 'a direct message needs recipients');
    t.same(await error({ op: 'start', to: [] }), { result: 'error', msg: "Empty 'to' list", code: 'BAD_REQUEST' }, 'and at least one');
    t.same(await error({ op: 'start', to: [bob.userId, 99999] }), { result: 'error', msg: 'Invalid user ID 99999', code: 'BAD_REQUEST' }, 'every recipient must exist');
    t.equal((await error({ op: 'start', to: 'bob' })).code, 'INVALID_JSON', 'to is a JSON list');
    t.same(await error({ op: 'start', type: 'stream', topic: 'x' }), { result: 'error', msg: "Missing 'stream_id' argument", code: 'BAD_REQUEST' }, 'a channel needs stream_id');
    t.same(await error({ op: 'start', type: 'stream', stream_id: general }), { result: 'error', msg: 'Missing topic', code: 'BAD_REQUEST' }, 'and a topic');
    t.same(await error({ op: 'start', type: 'stream', stream_id: 99999, topic: 'x' }), { result: 'error', msg: 'Invalid channel ID', code: 'BAD_REQUEST' }, 'an unknown channel');
    const created = await as('cy')('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'secret' }], invite_only: true } });
    t.equal(created.status, 200, 'Cy makes a private channel');
    const secret = (await as('cy')('GET', '/get_stream_id', { params: { stream: 'secret' } })).body.stream_id;
    t.same(await error({ op: 'start', type: 'stream', stream_id: secret, topic: 'x' }), { result: 'error', msg: 'Invalid channel ID', code: 'BAD_REQUEST' }, 'a private channel one is not in');
    t.same(await error({ op: 'start', type: 'stream', stream_id: secret, topic: 'x' }, 'cy'), { result: 'success', msg: '' }, 'its member may');
  });
});
