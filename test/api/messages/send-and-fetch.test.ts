import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

t.test('POST /messages and GET /messages/{message_id}', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const asAnn = ts.as(ann);
  const asBob = ts.as(bob);

  t.test('a channel message is stored and read back in the reference shape', async (t) => {
    const sent = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'greetings', content: 'Hello **world**' } });
    t.equal(sent.status, 200, 'status 200');
    t.type(sent.body.id, 'number', 'the new id');
    const got = await asBob('GET', `/messages/${sent.body.id}`);
    t.equal(got.status, 200, 'Bob, subscribed to general, reads it');
    t.equal(got.body.raw_content, 'Hello **world**', 'raw_content is the markup');
    t.match(got.body.message, { id: sent.body.id, type: 'stream', subject: 'greetings', sender_id: ann.userId, display_recipient: 'general' }, 'message fields');
    t.same(got.body.message.flags, [], 'unread for Bob');
    const own = await asAnn('GET', `/messages/${sent.body.id}`, { params: { apply_markdown: false } });
    t.equal(own.body.message.content, 'Hello **world**', 'apply_markdown=false gives the markup');
    t.equal(own.body.message.content_type, 'text/x-markdown', 'and says so');
  });

  t.test('message ids increase', async (t) => {
    const a = await asAnn('POST', '/messages', { params: { type: 'channel', to: 'general', topic: 't', content: 'one' } });
    const b = await asBob('POST', '/messages', { params: { type: 'channel', to: 'general', topic: 't', content: 'two' } });
    t.ok(b.body.id > a.body.id, 'later message, larger id');
  });

  t.test('a direct message reaches only its participants, with one recipient_id both ways', async (t) => {
    const sent = await asAnn('POST', '/messages', { params: { type: 'direct', to: [bob.userId], content: 'psst' } });
    t.equal(sent.status, 200, 'sent');
    const reply = await asBob('POST', '/messages', { params: { type: 'private', to: JSON.stringify([ann.email]), content: 'hi' } });
    const annView = await asAnn('GET', `/messages/${sent.body.id}`);
    const annReply = await asAnn('GET', `/messages/${reply.body.id}`);
    t.equal(annView.body.message.recipient_id, annReply.body.message.recipient_id, 'the same recipient_id in both directions');
    t.equal(annView.body.message.type, 'private', 'type private');
    const owner = await ts.request('GET', `/messages/${sent.body.id}`);
    t.equal(owner.status, 400, 'the owner, not a participant, cannot read it');
    t.equal(owner.body.msg, 'Invalid message(s)', 'reference message');
  });

  t.test('errors', async (t) => {
    const missing = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'nope', topic: 'x', content: 'y' } });
    t.same(missing.body, { result: 'error', msg: "Channel 'nope' does not exist", code: 'STREAM_DOES_NOT_EXIST', stream: 'nope' }, 'unknown channel');
    const empty = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'x', content: '   ' } });
    t.equal(empty.body.msg, 'Message must not be empty', 'empty content');
    const nul = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'x', content: 'a\u0000b' } });
    t.equal(nul.status, 400, 'NUL bytes are refused');
    const badUser = await asAnn('POST', '/messages', { params: { type: 'direct', to: [99999], content: 'y' } });
    t.equal(badUser.body.code, 'BAD_REQUEST', 'invalid user');
    const noLocal = await asAnn('POST', '/messages', { params: { type: 'direct', to: [bob.userId], content: 'y', queue_id: 'q' } });
    t.equal(noLocal.body.code, 'REQUEST_VARIABLE_MISSING', 'queue_id needs local_id');
  });

  t.test('topics: (no topic) is the empty topic; long topics and content are truncated', async (t) => {
    const sent = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: '(no topic)', content: 'x' } });
    const got = await asAnn('GET', `/messages/${sent.body.id}`);
    t.equal(got.body.message.subject, 'general chat', 'shown as the display name');
    const raw = await asAnn('GET', `/messages/${sent.body.id}`, { params: { allow_empty_topic_name: true } });
    t.equal(raw.body.message.subject, '', 'or as the empty topic when the client allows it');
    const long = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'x'.repeat(70), content: 'y'.repeat(10050) } });
    const gotLong = await asAnn('GET', `/messages/${long.body.id}`, { params: { apply_markdown: false } });
    t.equal(gotLong.body.message.subject, 'x'.repeat(57) + '...', 'topic cut to 60 with ...');
    t.equal(gotLong.body.raw_content.length, 10000, 'content cut to 10000');
    t.ok(gotLong.body.raw_content.endsWith('\n[message truncated]'), 'with the truncation notice');
  });

  t.test('content: leading newlines and trailing whitespace go, leading spaces stay', async (t) => {
    const sent = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'trim', content: '\n\n    code\nnext  \n\n' } });
    const got = await asAnn('GET', `/messages/${sent.body.id}`, { params: { apply_markdown: false } });
    t.equal(got.body.raw_content, '    code\nnext', 'as the reference normalizes a body');
  });
});
