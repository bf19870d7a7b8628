import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

t.test('POST /messages/render', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const asAnn = ts.as(ann);

  t.test('POST /messages/render: the HTML that sending the content would store', async (t) => {
    const content = 'Hello **world**, @**Ann** and [a link](https://example.com)';
    const res = await asAnn('POST', '/messages/render', { params: { content } });
    t.equal(res.status, 200, 'status 200');
    t.type(res.body.rendered, 'string', 'rendered is a string');
    t.match(res.body.rendered, /^<p>/, 'HTML');
    t.match(res.body.rendered, new RegExp(`data-user-id="${ann.userId}"`), 'the mention is rendered');
    const sent = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'render', content } });
    const got = await asAnn('GET', `/messages/${sent.body.id}`);
    t.equal(res.body.rendered, got.body.message.content, 'identical to the sent message\'s rendering');
  });

  t.test('POST /messages/render: stores and sends nothing', async (t) => {
    const a = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'render', content: 'one' } });
    await asAnn('POST', '/messages/render', { params: { content: 'not a message' } });
    const b = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'render', content: 'two' } });
    t.equal(b.body.id, a.body.id + 1, 'no message id was used by the render');
  });

  t.test('POST /messages/render: JSON and multipart bodies too', async (t) => {
    const json = await asAnn('POST', '/messages/render', { params: { content: '*x*' }, encoding: 'json' });
    const multipart = await asAnn('POST', '/messages/render', { params: { content: '*x*' }, encoding: 'multipart' });
    t.equal(json.status, 200, 'JSON: 200');
    t.equal(json.body.rendered, multipart.body.rendered, 'the same answer either way');
  });

  t.test('POST /messages/render: errors', async (t) => {
    const missing = await asAnn('POST', '/messages/render', { params: {} });
    t.same(missing.body, { result: 'error', msg: "Missing 'content' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'content' }, 'content is required');
    const anon = await ts.request('POST', '/messages/render', { params: { content: 'x' }, auth: null });
    t.equal(anon.status, 401, 'needs credentials');
  });
});
