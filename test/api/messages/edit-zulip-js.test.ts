import { createRequire } from 'node:module';
import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

// zulip-js is CommonJS without type declarations: load it untyped and describe what we use.
type Call = (params?: Record<string, unknown>) => Promise<any>;
interface ZulipClient {
  messages: { send: Call; update: Call; getById: Call; getHistoryById: Call; deleteById: Call };
}
type ZulipInit = (config: { username: string; apiKey: string; realm: string }) => Promise<ZulipClient>;
const zulipInit = createRequire(import.meta.url)('zulip-js') as ZulipInit;

t.test('zulip-js and raw HTTP: edit, move, history and delete', async (t) => {
  const ts = await startTestServer(t);
  const realm = `http://localhost:${ts.port}`;
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const client = await zulipInit({ username: ann.email, apiKey: ann.apiKey, realm });
  const asBob = ts.as(bob);

  t.test('zulip-js: messages.update edits content and topic, and getHistoryById shows it', async (t) => {
    const sent = await client.messages.send({ type: 'stream', to: 'general', topic: 'js', content: 'from zulip-js' });
    t.equal(sent.result, 'success', 'sent');
    const edited = await client.messages.update({ message_id: sent.id, content: 'edited by zulip-js' });
    t.equal(edited.result, 'success', 'content edited');
    t.same(edited.detached_uploads, [], 'with detached_uploads');
    const moved = await client.messages.update({ message_id: sent.id, topic: 'js moved', propagate_mode: 'change_all', send_notification_to_new_thread: false });
    t.equal(moved.result, 'success', 'topic moved');
    const got = await client.messages.getById({ message_id: sent.id, apply_markdown: false });
    t.equal(got.message.content, 'edited by zulip-js', 'the new content');
    t.equal(got.message.subject, 'js moved', 'the new topic');
    const history = await client.messages.getHistoryById({ message_id: sent.id });
    t.equal(history.result, 'success', 'history answered');
    t.same(history.message_history.map((e: any) => e.content), ['from zulip-js', 'edited by zulip-js', 'edited by zulip-js'], 'three snapshots, oldest first');
    const gone = await client.messages.deleteById({ message_id: sent.id });
    t.equal(gone.result, 'success', 'deleted');
    const after = await client.messages.getById({ message_id: sent.id });
    t.equal(after.msg, 'Invalid message(s)', 'and gone');
  });

  t.test('HTTP: PATCH parameters in a urlencoded body and in the query string', async (t) => {
    const sent = await ts.as(ann)('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'http', content: 'one' } });
    const form = await ts.as(ann)('PATCH', `/messages/${sent.body.id}`, { params: { content: 'two' } });
    t.equal(form.status, 200, 'form body');
    const query = await ts.as(ann)('PATCH', `/messages/${sent.body.id}`, { params: { content: 'three' }, encoding: 'query' });
    t.equal(query.status, 200, 'query string');
    const denied = await asBob('PATCH', `/messages/${sent.body.id}`, { params: { content: 'mine now' } });
    t.same(denied.body, { result: 'error', msg: "You don't have permission to edit this message", code: 'BAD_REQUEST' }, "another user's edit is a 400");
    const got = await asBob('GET', `/messages/${sent.body.id}/history`);
    t.equal(got.body.message_history.at(-1).content, 'three', 'the last snapshot has the last content');
    const del = await asBob('DELETE', `/messages/${sent.body.id}`);
    t.equal(del.body.msg, "You don't have permission to delete this message", "Bob may not delete Ann's message");
  });
});
