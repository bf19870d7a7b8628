import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

t.test('GET /users/{user_id} and GET /users/{email}', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const ben = await createUser(ts, 'Ben@Example.com', 'Ben');

  t.test('GET /users/{user_id}: returns the user', async (t) => {
    const res = await ts.as(ann)('GET', `/users/${ben.userId}`);
    t.equal(res.status, 200, 'status 200 (and the body matched the OpenAPI schema)');
    t.equal(res.body.user.user_id, ben.userId, 'the asked user');
    t.equal(res.body.user.full_name, 'Ben', 'full_name');
    t.equal(res.body.user.email, 'Ben@Example.com', 'email');
    t.equal(res.body.user.avatar_url, null, 'client_gravatar defaults to true');
    t.notOk('profile_data' in res.body.user, 'no profile_data unless asked for');
  });

  t.test('GET /users/{user_id}: client_gravatar and include_custom_profile_fields', async (t) => {
    const res = await ts.as(ann)('GET', `/users/${ben.userId}`, { params: { client_gravatar: false, include_custom_profile_fields: true } });
    t.match(res.body.user.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\//, 'a Gravatar URL with client_gravatar=false');
    t.same(res.body.user.profile_data, {}, 'profile_data is {} when asked for');
    const alias = await ts.as(ann)('GET', `/users/${ben.userId}`, { params: { client_avatarhost: false } });
    t.type(alias.body.user.avatar_url, 'string', 'client_avatarhost=false does the same');
  });

  t.test('GET /users/{email}: finds the user by email, case-insensitively', async (t) => {
    const res = await ts.as(ann)('GET', '/users/ben@example.com');
    t.equal(res.status, 200, 'status 200');
    t.equal(res.body.user.user_id, ben.userId, 'the user with that email');
    const encoded = await ts.as(ann)('GET', `/users/${encodeURIComponent('BEN@EXAMPLE.COM')}`);
    t.equal(encoded.body.user.user_id, ben.userId, 'a percent-encoded address works too');
  });

  t.test('GET /users/{email}: accepts the legacy dummy address user<id>@<realm host>', async (t) => {
    const host = ts.server.config.externalHost.replace(/:\d+$/, '');
    const res = await ts.as(ann)('GET', `/users/user${ben.userId}@${host}`);
    t.equal(res.status, 200, 'status 200');
    t.equal(res.body.user.user_id, ben.userId, 'resolved by the embedded id');
  });

  t.test('GET /users/{user_id}: a deactivated user can still be fetched', async (t) => {
    const gone = await createUser(ts, 'gone@example.com');
    await ts.request('DELETE', `/users/${gone.userId}`);
    const res = await ts.as(ann)('GET', `/users/${gone.userId}`);
    t.equal(res.status, 200, 'status 200');
    t.equal(res.body.user.is_active, false, 'is_active false');
  });

  t.test('GET /users/{user_id}: an unknown id -> BAD_REQUEST "No such user"', async (t) => {
    const res = await ts.as(ann)('GET', '/users/9999');
    t.equal(res.status, 400, 'status 400');
    t.equal(res.body.code, 'BAD_REQUEST', 'code BAD_REQUEST');
    t.equal(res.body.msg, 'No such user', 'reference message');
  });

  t.test('GET /users/{email}: an unknown email -> BAD_REQUEST "No such user"', async (t) => {
    const res = await ts.as(ann)('GET', '/users/nobody@example.com');
    t.equal(res.status, 400, 'status 400');
    t.equal(res.body.msg, 'No such user', 'reference message');
    const dummy = await ts.as(ann)('GET', '/users/user9999@elsewhere.example');
    t.equal(dummy.body.msg, 'No such user', 'a dummy address on another host is not resolved');
  });

  t.test('GET /users/{user_id}: needs credentials', async (t) => {
    const res = await ts.request('GET', `/users/${ben.userId}`, { auth: null });
    t.equal(res.status, 401, 'status 401');
    t.equal(res.body.code, 'UNAUTHORIZED', 'code UNAUTHORIZED');
  });
});
