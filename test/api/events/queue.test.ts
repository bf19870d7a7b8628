import t from 'tap';
import { checkEvent } from '../../helpers/openapi.js';
import { createUser, startTestServer } from '../../helpers/server.js';

t.test('POST /register, GET /events and DELETE /events', async (t) => {
  // A one-second heartbeat keeps the parked-poll tests short (STOA_HEARTBEAT_SECONDS in production).
  const ts = await startTestServer(t, { heartbeatSeconds: 1 });
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const asAnn = ts.as(ann);
  const asBob = ts.as(bob);
  const register = async (params: Record<string, unknown> = {}) => {
    const res = await asAnn('POST', '/register', { params });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body as { queue_id: string; last_event_id: number; [k: string]: unknown };
  };
  const send = (content: string, extra: Record<string, unknown> = {}) =>
    asBob('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'queue tests', content, ...extra } });

  t.test('register answers with a queue and the versions', async (t) => {
    const reg = await register();
    t.type(reg.queue_id, 'string', 'queue_id');
    t.equal(reg.last_event_id, -1, 'no events yet');
    t.ok((reg.zulip_feature_level as number) >= 372, 'feature level');
    t.type(reg.zulip_version, 'string', 'zulip_version');
  });

  t.test('a message sent after registering is delivered once, with flags', async (t) => {
    const reg = await register({ event_types: ['message'] });
    const empty = await asAnn('GET', '/events', { params: { queue_id: reg.queue_id, last_event_id: -1, dont_block: true } });
    t.same(empty.body.events, [], 'nothing yet');
    const sent = await send('hello queue');
    const got = await asAnn('GET', '/events', { params: { queue_id: reg.queue_id, last_event_id: -1, dont_block: true } });
    t.equal(got.body.events.length, 1, 'one event');
    const [event] = got.body.events;
    t.match(event, { type: 'message', id: 0, flags: [], message: { id: sent.body.id, content: 'hello queue' } }, 'the message, raw markup (apply_markdown defaults to false)');
    t.doesNotThrow(() => checkEvent(event), 'matches the reference event schema');
    const acked = await asAnn('GET', '/events', { params: { queue_id: reg.queue_id, last_event_id: 0, dont_block: true } });
    t.same(acked.body.events, [], 'acknowledged events are pruned');
  });

  t.test('a parked poll is woken by an event', async (t) => {
    const reg = await register({ event_types: ['message'], apply_markdown: true });
    const poll = asAnn('GET', '/events', { params: { queue_id: reg.queue_id, last_event_id: -1 } });
    await send('wake up');
    const got = await poll;
    t.equal(got.body.events[0]?.type, 'message', 'the poll returns the message');
    t.match(got.body.events[0].message.content, /<p>wake up<\/p>/, 'rendered, as the queue asked');
  });

  t.test('a parked poll with nothing to deliver ends with a heartbeat', async (t) => {
    const reg = await register({ event_types: ['message'] });
    const got = await asAnn('GET', '/events', { params: { queue_id: reg.queue_id, last_event_id: -1 } });
    t.equal(got.body.events.length, 1, 'one event');
    t.equal(got.body.events[0].type, 'heartbeat', 'a heartbeat');
    t.doesNotThrow(() => checkEvent(got.body.events[0]), 'heartbeat matches the reference');
  });

  t.test('a new poll on the same queue finishes the parked one', async (t) => {
    const reg = await register({ event_types: ['message'] });
    const first = asAnn('GET', '/events', { params: { queue_id: reg.queue_id, last_event_id: -1 } });
    await new Promise((r) => setTimeout(r, 50));
    const second = asAnn('GET', '/events', { params: { queue_id: reg.queue_id, last_event_id: -1, dont_block: true } });
    t.same((await first).body.events, [], 'the first poll ends empty');
    t.same((await second).body.events, [], 'the second answers');
  });

  t.test('the sender queue gets local_message_id', async (t) => {
    const reg = (await asBob('POST', '/register', { params: { event_types: ['message'] } })).body;
    await send('echo', { queue_id: reg.queue_id, local_id: '42.01' });
    const got = await asBob('GET', '/events', { params: { queue_id: reg.queue_id, dont_block: true } });
    t.equal(got.body.events[0].local_message_id, '42.01', 'local_id comes back to its queue');
  });

  t.test('narrowed queues get only matching messages', async (t) => {
    const reg = await register({ event_types: ['message'], narrow: [['topic', 'only this']] });
    await send('not this one');
    await asBob('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'only this', content: 'this one' } });
    const got = await asAnn('GET', '/events', { params: { queue_id: reg.queue_id, dont_block: true } });
    t.same(got.body.events.map((e: any) => e.message.content), ['this one'], 'one matching message');
  });

  t.test('errors', async (t) => {
    const unknown = await asAnn('GET', '/events', { params: { queue_id: 'nope', dont_block: true } });
    t.same(unknown.body, { result: 'error', msg: 'Bad event queue ID: nope', code: 'BAD_EVENT_QUEUE_ID', queue_id: 'nope' }, 'unknown queue');
    const reg = await register({ event_types: ['message'] });
    const foreign = await asBob('GET', '/events', { params: { queue_id: reg.queue_id, dont_block: true } });
    t.equal(foreign.body.code, 'BAD_EVENT_QUEUE_ID', "another user's queue is unknown to them");
    const future = await asAnn('GET', '/events', { params: { queue_id: reg.queue_id, last_event_id: 5, dont_block: true } });
    t.equal(future.body.msg, 'Event 5 was not in this queue', 'an id never handed out');
    await send('one');
    await send('two');
    await asAnn('GET', '/events', { params: { queue_id: reg.queue_id, last_event_id: 1, dont_block: true } });
    const pruned = await asAnn('GET', '/events', { params: { queue_id: reg.queue_id, last_event_id: 0, dont_block: true } });
    t.equal(pruned.body.msg, 'An event newer than 0 has already been pruned!', 'an id already pruned');
    const del = await asAnn('DELETE', '/events', { params: { queue_id: reg.queue_id } });
    t.equal(del.status, 200, 'DELETE /events');
    const gone = await asAnn('GET', '/events', { params: { queue_id: reg.queue_id, dont_block: true } });
    t.equal(gone.body.code, 'BAD_EVENT_QUEUE_ID', 'a deleted queue is gone');
  });
});

t.test('events about the empty topic read "general chat" for clients without empty_topic_name', async (t) => {
  const ts = await startTestServer(t, { heartbeatSeconds: 1 });
  const sent = await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: '', content: 'x' } });
  const plain = (await ts.request('POST', '/register', { params: { event_types: ['update_message', 'delete_message'] } })).body;
  const capable = (await ts.request('POST', '/register', { params: { event_types: ['update_message', 'delete_message'], client_capabilities: { empty_topic_name: true } } })).body;
  await ts.request('PATCH', `/messages/${sent.body.id}`, { params: { content: 'y' } });
  await ts.request('DELETE', `/messages/${sent.body.id}`);
  const a = await ts.request('GET', '/events', { params: { queue_id: plain.queue_id, dont_block: true } });
  const b = await ts.request('GET', '/events', { params: { queue_id: capable.queue_id, dont_block: true } });
  const topicsOf = (events: any[]) => events.map((e) => [e.type, e.orig_subject ?? e.subject ?? e.topic]);
  t.ok(topicsOf(a.body.events).every(([, topic]) => topic === undefined || topic === 'general chat'), 'plain client: the display name');
  t.ok(topicsOf(b.body.events).some(([, topic]) => topic === ''), 'capable client: the empty topic');
  t.ok(a.body.events.some((e: any) => e.type === 'delete_message'), 'the delete reached the plain client');
});
