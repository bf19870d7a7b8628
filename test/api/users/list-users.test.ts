import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

t.test('GET /users', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const ben = await createUser(ts, 'ben@example.com', 'Ben');
  const gone = await createUser(ts, 'gone@example.com', 'Gone');
  t.equal((await ts.request('DELETE', `/users/${gone.userId}`)).status, 200, 'setup: one user deactivated');
  const find = (members: any[], id: number) => members.find((m) => m.user_id === id);

  t.test('GET /users: lists every user, active and deactivated, in id order', async (t) => {
    const res = await ts.as(ann)('GET', '/users');
    t.equal(res.status, 200, 'status 200 (and the body matched the OpenAPI schema)');
    const ids = res.body.members.map((m: any) => m.user_id);
    t.same(ids, [ts.owner.userId, ann.userId, ben.userId, gone.userId], 'all four users, in id order');
    t.equal(find(res.body.members, gone.userId).is_active, false, 'the deactivated user is listed with is_active false');
    const owner = find(res.body.members, ts.owner.userId);
    t.same([owner.role, owner.is_owner, owner.is_admin], [100, true, true], 'the owner\'s role fields');
    const b = find(res.body.members, ben.userId);
    t.equal(b.email, 'ben@example.com', 'email');
    t.equal(b.delivery_email, 'ben@example.com', 'every email is visible: delivery_email is the address');
    t.equal(b.full_name, 'Ben', 'full_name');
    t.equal(b.bot_type, null, 'bot_type null for a human');
    t.notOk('bot_owner_id' in b, 'bot_owner_id only for bots');
    t.notOk('profile_data' in b, 'no profile_data unless asked for');
  });

  t.test('GET /users: client_gravatar defaults to true, so Gravatar users get a null avatar_url', async (t) => {
    const res = await ts.as(ann)('GET', '/users');
    t.ok(res.body.members.every((m: any) => m.avatar_url === null), 'every avatar_url is null');
  });

  t.test('GET /users: client_gravatar=false computes the Gravatar URL', async (t) => {
    const res = await ts.as(ann)('GET', '/users', { params: { client_gravatar: false } });
    const b = find(res.body.members, ben.userId);
    t.match(b.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=1$/, 'a Gravatar URL');
    t.notOk(res.body.ignored_parameters_unsupported, 'client_gravatar is a known parameter');
  });

  t.test('GET /users: client_avatarhost, our spec\'s name for client_gravatar, is accepted', async (t) => {
    const res = await ts.as(ann)('GET', '/users', { params: { client_avatarhost: 'false' } });
    t.equal(res.status, 200, 'status 200');
    t.type(find(res.body.members, ben.userId).avatar_url, 'string', 'client_avatarhost=false computes the URL');
    t.notOk(res.body.ignored_parameters_unsupported, 'client_avatarhost is not ignored');
  });

  t.test('GET /users: include_custom_profile_fields adds an empty profile_data to humans', async (t) => {
    const res = await ts.as(ann)('GET', '/users', { params: { include_custom_profile_fields: true } });
    t.ok(res.body.members.every((m: any) => JSON.stringify(m.profile_data) === '{}'), 'profile_data is {} for everyone');
  });

  t.test('GET /users: user_ids limits the result', async (t) => {
    const res = await ts.as(ann)('GET', '/users', { params: { user_ids: [ben.userId, gone.userId] } });
    t.equal(res.status, 200, 'status 200');
    t.same(res.body.members.map((m: any) => m.user_id), [ben.userId, gone.userId], 'only the asked users, deactivated included');
  });

  t.test('GET /users: user_ids with an unknown id -> BAD_REQUEST', async (t) => {
    const res = await ts.as(ann)('GET', '/users', { params: { user_ids: [ben.userId, 9999] } });
    t.equal(res.status, 400, 'status 400');
    t.equal(res.body.code, 'BAD_REQUEST', 'code BAD_REQUEST');
    t.equal(res.body.msg, 'Invalid user ID: 9999', 'names the unknown id');
  });

  t.test('GET /users: user_ids that is not JSON -> INVALID_JSON', async (t) => {
    const res = await ts.as(ann)('GET', '/users', { params: { user_ids: '[1,' } });
    t.equal(res.status, 400, 'status 400');
    t.equal(res.body.code, 'INVALID_JSON', 'code INVALID_JSON');
  });

  t.test('GET /users: user_ids that is not a list of integers -> REQUEST_VARIABLE_INVALID', async (t) => {
    const res = await ts.as(ann)('GET', '/users', { params: { user_ids: '["x"]' } });
    t.equal(res.status, 400, 'status 400');
    t.equal(res.body.code, 'REQUEST_VARIABLE_INVALID', 'code REQUEST_VARIABLE_INVALID');
    t.equal(res.body.var_name, 'user_ids', 'names the parameter');
  });

  t.test('GET /users: client_gravatar that is not a boolean -> REQUEST_VARIABLE_INVALID', async (t) => {
    const res = await ts.as(ann)('GET', '/users', { params: { client_gravatar: 'maybe' } });
    t.equal(res.status, 400, 'status 400');
    t.equal(res.body.code, 'REQUEST_VARIABLE_INVALID', 'code REQUEST_VARIABLE_INVALID');
    t.equal(res.body.var_name, 'client_gravatar', 'names the parameter');
  });

  t.test('GET /users: never shows API keys or password hashes', async (t) => {
    const res = await ts.as(ann)('GET', '/users', { params: { client_gravatar: false, include_custom_profile_fields: true } });
    const text = JSON.stringify(res.body);
    t.notOk(text.includes(ben.apiKey), 'no API key in the listing');
    t.notOk(/scrypt|api_key|password/i.test(text), 'no secret fields');
  });
});
