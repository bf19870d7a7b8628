import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

t.test('GET /users/me/{stream_id}/topics', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const asAnn = ts.as(ann);
  const asBob = ts.as(bob);
  const send = async (as: typeof asAnn, to: string, topic: string) =>
    (await as('POST', '/messages', { params: { type: 'stream', to, topic, content: `about ${topic}` } })).body.id as number;
  const streamId = async (as: typeof asAnn, name: string) => (await as('GET', '/get_stream_id', { params: { stream: name } })).body.stream_id as number;

  const a1 = await send(asAnn, 'general', 'alpha');
  const b1 = await send(asBob, 'general', 'Beta');
  const a2 = await send(asBob, 'general', 'ALPHA');
  const e1 = await send(asAnn, 'general', '');
  const general = await streamId(asAnn, 'general');

  t.test('each topic once, with its newest message, newest first', async (t) => {
    const res = await asAnn('GET', `/users/me/${general}/topics`);
    t.equal(res.status, 200, 'status 200');
    t.same(res.body.topics, [
      { name: 'general chat', max_id: e1 },
      { name: 'ALPHA', max_id: a2 },
      { name: 'Beta', max_id: b1 },
    ], 'topics are case-insensitive, named as their newest message has it');
    t.ok(a1 < a2, 'the older alpha message is not the max');
    const raw = await asAnn('GET', `/users/me/${general}/topics`, { params: { allow_empty_topic_name: true } });
    t.equal(raw.body.topics[0].name, '', 'the empty topic with allow_empty_topic_name');
  });

  t.test('a private channel with protected history shows only what the user received', async (t) => {
    await asAnn('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'secret' }], invite_only: true } });
    await send(asAnn, 'secret', 'before bob');
    const secret = await streamId(asAnn, 'secret');
    const denied = await asBob('GET', `/users/me/${secret}/topics`);
    t.equal(denied.status, 400, 'not subscribed: refused');
    t.equal(denied.body.msg, 'Invalid channel ID', 'reference message');
    await asAnn('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'secret' }], principals: [bob.userId] } });
    const after = await send(asAnn, 'secret', 'after bob');
    const res = await asBob('GET', `/users/me/${secret}/topics`);
    t.same(res.body.topics, [{ name: 'after bob', max_id: after }], 'only the topic Bob received');
  });

  t.test('an unknown channel is refused', async (t) => {
    const res = await asAnn('GET', '/users/me/99999/topics');
    t.equal(res.body.msg, 'Invalid channel ID', 'reference message');
  });
});
