import { createRequire } from 'node:module';
import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';
import { png, uploadEmoji } from './fixtures.js';

// zulip-js is CommonJS without type declarations: load it untyped and describe what we use.
type Call = (params?: Record<string, unknown>) => Promise<any>;
interface ZulipClient {
  emojis: { retrieve: Call };
  messages: { send: Call; getById: Call };
  reactions: { add: Call; remove: Call };
}
type ZulipInit = (config: { username: string; apiKey: string; realm: string }) => Promise<ZulipClient>;
const zulipInit = createRequire(import.meta.url)('zulip-js') as ZulipInit;

t.test('zulip-js: custom emoji', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  await uploadEmoji(ts, 'green_tick', [png()], { auth: ann });
  const client = await zulipInit({ username: ann.email, apiKey: ann.apiKey, realm: `http://localhost:${ts.port}` });

  const listed = await client.emojis.retrieve();
  t.equal(listed.result, 'success', 'emojis.retrieve succeeds');
  const [emoji] = Object.values(listed.emoji) as { id: string; name: string; author_id: number }[];
  t.match(emoji, { name: 'green_tick', author_id: ann.userId }, 'and lists the emoji');

  const sent = await client.messages.send({ type: 'stream', to: 'general', topic: 'zulip-js', content: 'nice :green_tick:' });
  const added = await client.reactions.add({ message_id: sent.id, emoji_name: 'green_tick', emoji_code: emoji.id, reaction_type: 'realm_emoji' });
  t.equal(added.result, 'success', 'reactions.add with a realm_emoji');
  const got = await client.messages.getById({ message_id: sent.id });
  t.same(got.message.reactions, [{ emoji_name: 'green_tick', emoji_code: emoji.id, reaction_type: 'realm_emoji', user_id: ann.userId }], 'the reaction is on the message');
  t.match(got.message.content, /<img alt=":green_tick:" class="emoji" src="\/user_avatars\/\d+\/emoji\/images\/[0-9a-f]{8}\.png" title="green tick">/, 'and :green_tick: is its image');
  const removed = await client.reactions.remove({ message_id: sent.id, emoji_name: 'green_tick', emoji_code: emoji.id, reaction_type: 'realm_emoji' });
  t.equal(removed.result, 'success', 'reactions.remove');
});
