import { createRequire } from 'node:module';
import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

// zulip-js is CommonJS without type declarations: load it untyped and describe what we use.
type Call = (params?: Record<string, unknown> | string) => Promise<any>;
interface ZulipClient {
  streams: { retrieve: Call; getStreamId: Call; subscriptions: { retrieve: Call } };
  users: { me: { subscriptions: { add: Call; remove: Call } } };
}
type ZulipInit = (config: { username: string; apiKey: string; realm: string }) => Promise<ZulipClient>;
const zulipInit = createRequire(import.meta.url)('zulip-js') as ZulipInit;

t.test('zulip-js: channels and subscriptions', async (t) => {
  const ts = await startTestServer(t);
  const realm = `http://localhost:${ts.port}`;
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const owner = await zulipInit({ username: ts.owner.email, apiKey: ts.owner.apiKey, realm });
  const annClient = await zulipInit({ username: ann.email, apiKey: ann.apiKey, realm });

  t.test('the owner creates a channel and subscribes a member to it', async (t) => {
    // zulip-js sends POST parameters as multipart form fields; lists go as JSON text.
    const res = await owner.users.me.subscriptions.add({
      subscriptions: JSON.stringify([{ name: 'design', description: 'Design talk' }]),
      principals: JSON.stringify([ts.owner.email, ann.email]),
    });
    t.equal(res.result, 'success', 'subscriptions.add succeeds');
    t.same(res.subscribed, { [String(ts.owner.userId)]: ['design'], [String(ann.userId)]: ['design'] }, 'both users are subscribed');
  });

  t.test('the member sees the channel through every lookup', async (t) => {
    const subs = await annClient.streams.subscriptions.retrieve();
    t.ok(subs.subscriptions.some((s: any) => s.name === 'design'), 'listed in the subscriptions');
    const id = await annClient.streams.getStreamId('design');
    t.equal(id.result, 'success', 'getStreamId succeeds');
    const all = await annClient.streams.retrieve();
    const found = all.streams.find((s: any) => s.name === 'design');
    t.equal(found?.stream_id, id.stream_id, 'streams.retrieve lists it with the same id');
    t.equal(found?.description, 'Design talk', 'with its description');
  });

  t.test('the member unsubscribes', async (t) => {
    // zulip-js sends DELETE parameters in the query string.
    const res = await annClient.users.me.subscriptions.remove({ subscriptions: JSON.stringify(['design']) });
    t.equal(res.result, 'success', 'subscriptions.remove succeeds');
    t.same(res.removed, ['design'], 'design is removed');
    const subs = await annClient.streams.subscriptions.retrieve();
    t.notOk(subs.subscriptions.some((s: any) => s.name === 'design'), 'no longer listed');
  });
});
