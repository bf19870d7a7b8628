import { createRequire } from 'node:module';
import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

// zulip-js is CommonJS without type declarations: load it untyped and describe what we use.
interface ZulipClient {
  users: {
    retrieve(params?: Record<string, unknown>): Promise<any>;
    create(params: Record<string, unknown>): Promise<any>;
    me: { getProfile(): Promise<any> };
  };
  config: { apiKey: string };
}
type ZulipInit = (config: { username: string; apiKey?: string; password?: string; realm: string }) => Promise<ZulipClient>;
const zulipInit = createRequire(import.meta.url)('zulip-js') as ZulipInit;

t.test('zulip-js against the users endpoints', async (t) => {
  const ts = await startTestServer(t);
  const realm = `http://localhost:${ts.port}`;
  const member = await createUser(ts, 'ann@example.com', 'Ann');

  t.test('zulip-js: the owner lists users, reads their profile and creates a user', async (t) => {
    const client = await zulipInit({ username: ts.owner.email, apiKey: ts.owner.apiKey, realm });
    const users = await client.users.retrieve();
    t.equal(users.result, 'success', 'users.retrieve succeeds');
    t.ok(users.members.some((m: any) => m.user_id === member.userId), 'the member is listed');
    const gravatars = await client.users.retrieve({ client_gravatar: false });
    t.ok(gravatars.members.every((m: any) => typeof m.avatar_url === 'string'), 'query parameters reach the server');

    const profile = await client.users.me.getProfile();
    t.equal(profile.result, 'success', 'users.me.getProfile succeeds');
    t.equal(profile.user_id, ts.owner.userId, 'the owner\'s own profile');
    t.equal(profile.is_owner, true, 'is_owner');

    const created = await client.users.create({ email: 'zjs@example.com', password: 'zulip-js-password', full_name: 'Made By Zulip JS' });
    t.equal(created.result, 'success', 'users.create succeeds (a multipart POST)');
    t.type(created.user_id, 'number', 'returns the new user_id');
  });

  t.test('zulip-js: logs in with a password through /fetch_api_key', async (t) => {
    const client = await zulipInit({ username: 'zjs@example.com', password: 'zulip-js-password', realm });
    t.match(client.config.apiKey, /^[A-Za-z0-9]{32}$/, 'zulip-js obtained an API key');
    const profile = await client.users.me.getProfile();
    t.equal(profile.full_name, 'Made By Zulip JS', 'and uses it as the created user');
  });

  t.test('zulip-js: a member is refused user creation with the reference error', async (t) => {
    const client = await zulipInit({ username: member.email, apiKey: member.apiKey, realm });
    const res = await client.users.create({ email: 'nope@example.com', password: 'zulip-js-password', full_name: 'Nope' });
    t.equal(res.result, 'error', 'an error envelope');
    t.equal(res.msg, 'Must be an organization administrator', 'reference message');
  });
});
