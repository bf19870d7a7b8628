import t from 'tap';
import { startTestServer } from '../helpers/server.js';

/**
 * GET /events is answered outside Koa (front/longpoll.ts) unless it carries a body. Both paths
 * must give clients the same answers.
 */
t.test('GET /events: the long-poll path answers as the Koa path does', async (t) => {
  const ts = await startTestServer(t, { heartbeatSeconds: 1 });
  const reg = await ts.request('POST', '/register', { params: { event_types: ['message'] } });
  t.equal(reg.status, 200, 'registered');
  const queueId = reg.body.queue_id as string;

  const both = async (params: Record<string, unknown>, auth?: null) => {
    const fast = await ts.request('GET', '/events', { params, ...(auth === null ? { auth } : {}) });
    const koa = await ts.request('GET', '/events', { params, encoding: 'form', ...(auth === null ? { auth } : {}) });
    return { fast, koa };
  };

  const unknown = await both({ queue_id: 'no-such-queue', last_event_id: -1, dont_block: true });
  t.equal(unknown.fast.status, 400, 'an unknown queue is a 400');
  t.same(unknown.fast.body, unknown.koa.body, 'with the same body on both paths');
  t.equal(unknown.fast.headers['content-type'], unknown.koa.headers['content-type'], 'and the same content type');

  const anonymous = await both({ queue_id: queueId, dont_block: true }, null);
  t.equal(anonymous.fast.status, 401, 'no credentials: 401');
  t.same(anonymous.fast.body, anonymous.koa.body, 'the same error on both paths');
  t.equal(anonymous.fast.headers['www-authenticate'], anonymous.koa.headers['www-authenticate'], 'with the same challenge header');

  const sent = await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'fast', content: 'hello' } });
  const got = await ts.request('GET', '/events', { params: { queue_id: queueId, last_event_id: -1 } });
  t.equal(got.status, 200, 'a poll with an event waiting is answered');
  t.same(got.body.events.map((e: { type: string; message?: { id: number } }) => [e.type, e.message?.id]), [['message', sent.body.id]], 'with that event');

  const parked = await ts.request('GET', '/events', { params: { queue_id: queueId, last_event_id: got.body.events[0].id } });
  t.same(parked.body.events.map((e: { type: string }) => e.type), ['heartbeat'], 'a parked poll gets its heartbeat');
});
