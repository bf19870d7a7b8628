import { createRequire } from 'node:module';
import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

// zulip-js is CommonJS without type declarations: load it untyped and describe what we use.
type Call = (params?: Record<string, unknown>) => Promise<any>;
interface ZulipClient {
  messages: { send: Call; getById: Call; deleteReactionById: Call };
  reactions: { add: Call; remove: Call };
}
type ZulipInit = (config: { username: string; apiKey: string; realm: string }) => Promise<ZulipClient>;
const zulipInit = createRequire(import.meta.url)('zulip-js') as ZulipInit;

t.test('zulip-js: reactions', async (t) => {
  const ts = await startTestServer(t);
  const realm = `http://localhost:${ts.port}`;
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const client = await zulipInit({ username: ann.email, apiKey: ann.apiKey, realm });
  const sent = await client.messages.send({ type: 'stream', to: 'general', topic: 'zulip-js', content: 'react' });
  t.equal(sent.result, 'success', 'message sent');

  t.test('zulip-js: reactions.add (a multipart POST) and reactions.remove (DELETE with a query string)', async (t) => {
    const added = await client.reactions.add({ message_id: sent.id, emoji_name: 'octopus' });
    t.equal(added.result, 'success', 'reactions.add succeeds');
    const got = await client.messages.getById({ message_id: sent.id });
    t.same(got.message.reactions, [{ emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji', user_id: ann.userId }], 'the reaction is on the message');
    const dup = await client.reactions.add({ message_id: sent.id, emoji_name: 'octopus' });
    t.equal(dup.code, 'REACTION_ALREADY_EXISTS', 'a duplicate is refused with its code');
    const removed = await client.reactions.remove({ message_id: sent.id, emoji_name: 'octopus' });
    t.equal(removed.result, 'success', 'reactions.remove succeeds');
    const again = await client.messages.deleteReactionById({ message_id: sent.id, emoji_name: 'octopus' });
    t.equal(again.code, 'REACTION_DOES_NOT_EXIST', 'messages.deleteReactionById of a removed reaction: REACTION_DOES_NOT_EXIST');
  });
});
