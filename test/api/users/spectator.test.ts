import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';
import { restart, setRealmSetting } from './restart.js';

t.test('GET /users: spectators', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');

  t.test('GET /users: with enable_spectator_access, anyone may list users, with private fields hidden', async (t) => {
    await restart(t, ts, setRealmSetting('enable_spectator_access', true));

    const res = await ts.request('GET', '/users', { auth: null, params: { client_gravatar: false, include_custom_profile_fields: true } });
    t.equal(res.status, 200, 'status 200 without credentials (and the body matched the OpenAPI schema)');
    const a = res.body.members.find((m: any) => m.user_id === ann.userId);
    t.ok(a, 'the member is listed');
    t.equal(a.full_name, 'Ann', 'full_name is shown');
    t.equal(a.delivery_email, null, 'delivery_email is hidden from spectators');
    t.notOk('timezone' in a, 'timezone is not sent to spectators');
    t.notOk('profile_data' in a, 'profile data is never sent to spectators');
    t.match(a.date_joined, /^\d{4}-\d\d-\d\d$/, 'date_joined to the day only');
    t.notOk(JSON.stringify(res.body).includes(ann.apiKey), 'no API key leaks');

    const authed = await ts.as(ann)('GET', '/users', { params: { include_custom_profile_fields: true } });
    const self = authed.body.members.find((m: any) => m.user_id === ann.userId);
    t.equal(self.delivery_email, 'ann@example.com', 'a member still sees delivery_email');
    t.same(self.profile_data, {}, 'a member still gets profile_data');

    const me = await ts.request('GET', '/users/me', { auth: null });
    t.equal(me.status, 401, 'GET /users/me still needs credentials');
    t.equal(me.body.code, 'UNAUTHORIZED', 'code UNAUTHORIZED');
    const one = await ts.request('GET', `/users/${ann.userId}`, { auth: null });
    t.equal(one.status, 401, 'GET /users/{user_id} still needs credentials');

    const bad = await ts.request('GET', '/users', { auth: { email: ann.email, apiKey: 'z'.repeat(32) } });
    t.same([bad.status, bad.body.msg], [401, 'Invalid API key'], 'wrong credentials are still refused, not downgraded to a spectator');
  });
});
