import t from 'tap';
import { ROLE } from '../../../src/model/types.js';
import { createUser, startTestServer } from '../../helpers/server.js';
import { restart, setRoles } from './restart.js';

const NEW = { email: 'new@example.com', password: 'a-long-password-1', full_name: 'New Person' };

t.test('POST /users', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');

  t.test('POST /users: the owner creates a user who can then log in', async (t) => {
    const res = await ts.request('POST', '/users', { params: NEW });
    t.equal(res.status, 200, 'status 200 (and the body matched the OpenAPI schema)');
    t.type(res.body.user_id, 'number', 'user_id of the new user');
    const key = await ts.request('POST', '/fetch_api_key', { auth: null, params: { username: NEW.email, password: NEW.password } });
    t.equal(key.status, 200, 'the new user logs in with the password');
    t.equal(key.body.user_id, res.body.user_id, 'as the created user');
    const me = await ts.as({ email: NEW.email, apiKey: key.body.api_key })('GET', '/users/me');
    t.same([me.body.full_name, me.body.role, me.body.is_active], ['New Person', 400, true], 'a member named as asked');
    const list = await ts.as(ann)('GET', '/users');
    t.ok(list.body.members.some((m: any) => m.user_id === res.body.user_id), 'listed in GET /users');
  });

  t.test('POST /users: multipart and JSON bodies work too', async (t) => {
    const multi = await ts.request('POST', '/users', { encoding: 'multipart', params: { ...NEW, email: 'multi@example.com' } });
    t.equal(multi.status, 200, 'multipart/form-data (zulip-js)');
    const json = await ts.request('POST', '/users', { encoding: 'json', params: { ...NEW, email: 'json@example.com' } });
    t.equal(json.status, 200, 'JSON body');
  });

  t.test('POST /users: a duplicate email -> BAD_REQUEST, case-insensitively', async (t) => {
    const res = await ts.request('POST', '/users', { params: { ...NEW, email: 'ANN@example.com' } });
    t.equal(res.status, 400, 'status 400');
    t.equal(res.body.code, 'BAD_REQUEST', 'code BAD_REQUEST');
    t.equal(res.body.msg, "Email 'ANN@example.com' already in use", 'reference message');
  });

  t.test('POST /users: an invalid email -> BAD_REQUEST "Bad name or username"', async (t) => {
    for (const email of ['not-an-email', 'two@@example.com', 'no-dot@example', 'sp ace@example.com']) {
      const res = await ts.request('POST', '/users', { params: { ...NEW, email } });
      t.equal(res.status, 400, `${email}: status 400`);
      t.equal(res.body.msg, 'Bad name or username', `${email}: reference message`);
    }
  });

  t.test('POST /users: missing parameters -> REQUEST_VARIABLE_MISSING', async (t) => {
    for (const name of ['email', 'password', 'full_name'] as const) {
      const params: Record<string, string> = { ...NEW };
      delete params[name];
      const res = await ts.request('POST', '/users', { params });
      t.equal(res.status, 400, `without ${name}: status 400`);
      t.equal(res.body.code, 'REQUEST_VARIABLE_MISSING', `without ${name}: code`);
      t.equal(res.body.var_name, name, `without ${name}: var_name`);
      t.equal(res.body.msg, `Missing '${name}' argument`, `without ${name}: reference message`);
    }
  });

  t.test('POST /users: bad names -> BAD_REQUEST', async (t) => {
    const cases: [string, string][] = [
      ['   ', 'Name too short!'],
      ['x'.repeat(101), 'Name too long!'],
      ['Evil *bold*', 'Invalid characters in name!'],
      ['at@sign', 'Invalid characters in name!'],
      ['Name|15', 'Invalid format!'],
    ];
    for (const [full_name, msg] of cases) {
      const res = await ts.request('POST', '/users', { params: { ...NEW, email: 'badname@example.com', full_name } });
      t.equal(res.body.msg, msg, `${JSON.stringify(full_name.slice(0, 12))}: ${msg}`);
    }
  });

  t.test('POST /users: a too short password -> BAD_REQUEST', async (t) => {
    const res = await ts.request('POST', '/users', { params: { ...NEW, email: 'weak@example.com', password: 'abc' } });
    t.equal(res.status, 400, 'status 400');
    t.equal(res.body.msg, 'The password is too weak.', 'reference message');
  });

  t.test('POST /users: a refused request creates nobody', async (t) => {
    const before = (await ts.as(ann)('GET', '/users')).body.members.length;
    await ts.request('POST', '/users', { params: { ...NEW, email: 'weak@example.com', password: 'abc' } });
    await ts.as(ann)('POST', '/users', { params: { ...NEW, email: 'bymember@example.com' } });
    const after = (await ts.as(ann)('GET', '/users')).body.members.length;
    t.equal(after, before, 'the user count is unchanged');
  });

  t.test('POST /users: only administrators may create users', async (t) => {
    const admin = await createUser(ts, 'admin@example.com');
    const mod = await createUser(ts, 'mod@example.com');
    const guest = await createUser(ts, 'guest@example.com');
    await restart(t, ts, setRoles({ 'admin@example.com': ROLE.administrator, 'mod@example.com': ROLE.moderator, 'guest@example.com': ROLE.guest }));

    for (const [who, creds] of [['member', ann], ['moderator', mod], ['guest', guest]] as const) {
      const res = await ts.as(creds)('POST', '/users', { params: { ...NEW, email: `by-${who}@example.com` } });
      t.equal(res.status, 400, `a ${who}: status 400`);
      t.equal(res.body.code, 'UNAUTHORIZED_PRINCIPAL', `a ${who}: code UNAUTHORIZED_PRINCIPAL`);
      t.equal(res.body.msg, 'Must be an organization administrator', `a ${who}: reference message`);
    }
    const missing = await ts.as(ann)('POST', '/users', { params: {} });
    t.equal(missing.body.msg, 'Must be an organization administrator', 'the permission is checked before the parameters');

    const res = await ts.as(admin)('POST', '/users', { params: { ...NEW, email: 'by-admin@example.com' } });
    t.equal(res.status, 200, 'an administrator creates a user');
  });
});
