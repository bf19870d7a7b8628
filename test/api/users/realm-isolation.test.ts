import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';
import { addRealm, restart } from './restart.js';

t.test('users endpoints keep realms apart', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');

  t.test('GET /users, GET /users/{email}, POST /fetch_api_key: nothing crosses realms', async (t) => {
    const other = await restart(t, ts, addRealm('other', 'boss@other.example'));
    const host = `other.${ts.server.config.externalHost}`;
    const boss = { email: other.owner.email, apiKey: other.owner.apiKey };

    const mine = await ts.as(boss)('GET', '/users', { host });
    t.equal(mine.status, 200, 'the other realm\'s owner lists their realm');
    t.same(mine.body.members.map((m: any) => m.email), ['boss@other.example'], 'only their own realm\'s users');

    const root = await ts.as(ann)('GET', '/users');
    t.notOk(root.body.members.some((m: any) => m.email === 'boss@other.example'), 'the root realm does not list the other realm\'s owner');

    const foreignKey = await ts.as(ann)('GET', '/users/me', { host });
    t.equal(foreignKey.status, 401, 'root realm credentials are refused in the other realm');
    t.same([foreignKey.body.code, foreignKey.body.msg], ['UNAUTHORIZED', 'Invalid API key'], 'as an invalid key');

    const byEmail = await ts.as(boss)('GET', '/users/ann@example.com', { host });
    t.equal(byEmail.body.msg, 'No such user', 'a user of another realm is not found by email');

    const login = await ts.request('POST', '/fetch_api_key', { auth: null, host, params: { username: ann.email, password: ann.password } });
    t.equal(login.status, 401, 'a root realm password does not log in to the other realm');
    t.equal(login.body.code, 'AUTHENTICATION_FAILED', 'AUTHENTICATION_FAILED');

    const del = await ts.as(boss)('DELETE', `/users/${ann.userId}`, { host });
    t.not(del.status, 200, 'the other realm\'s owner cannot deactivate a root realm user');
    const still = await ts.as(ann)('GET', '/users/me');
    t.equal(still.status, 200, 'the root realm user is untouched');
  });
});
