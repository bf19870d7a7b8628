import t from 'tap';
import { ROLE } from '../../../src/model/types.js';
import { createUser, startTestServer } from '../../helpers/server.js';
import { restart, setRoles } from './restart.js';

t.test('DELETE /users/{user_id} and POST /users/{user_id}/reactivate', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const ben = await createUser(ts, 'ben@example.com', 'Ben');
  const isActive = async (id: number) => (await ts.request('GET', `/users/${id}`)).body.user.is_active;

  t.test('DELETE /users/{user_id}: the owner deactivates a member, who is locked out', async (t) => {
    const res = await ts.request('DELETE', `/users/${ben.userId}`);
    t.equal(res.status, 200, 'status 200 (and the body matched the OpenAPI schema)');
    t.same(res.body, { result: 'success', msg: '' }, 'a bare success');
    t.equal(await isActive(ben.userId), false, 'is_active is false');
    const me = await ts.as(ben)('GET', '/users/me');
    t.equal(me.status, 401, 'their API key is refused');
    t.same([me.body.code, me.body.msg], ['UNAUTHORIZED', 'Account is deactivated'], 'saying why');
    const login = await ts.request('POST', '/fetch_api_key', { auth: null, params: { username: ben.email, password: ben.password } });
    t.equal(login.body.code, 'USER_DEACTIVATED', 'and password login is refused');
  });

  t.test('DELETE /users/{user_id}: an already deactivated user -> BAD_REQUEST', async (t) => {
    const res = await ts.request('DELETE', `/users/${ben.userId}`);
    t.equal(res.status, 400, 'status 400');
    t.equal(res.body.msg, 'User is deactivated', 'reference message');
  });

  t.test('POST /users/{user_id}/reactivate: the owner reactivates the user, whose old key works again', async (t) => {
    const res = await ts.request('POST', `/users/${ben.userId}/reactivate`);
    t.equal(res.status, 200, 'status 200 (and the body matched the OpenAPI schema)');
    t.equal(await isActive(ben.userId), true, 'is_active is true');
    const me = await ts.as(ben)('GET', '/users/me');
    t.equal(me.status, 200, 'the API key works again');
    const again = await ts.request('POST', `/users/${ben.userId}/reactivate`);
    t.equal(again.status, 200, 'reactivating an active user changes nothing and succeeds');
  });

  t.test('DELETE and reactivate: an unknown user -> BAD_REQUEST "No such user"', async (t) => {
    const del = await ts.request('DELETE', '/users/9999');
    t.equal(del.status, 400, 'DELETE: status 400');
    t.equal(del.body.msg, 'No such user', 'DELETE: reference message');
    const re = await ts.request('POST', '/users/9999/reactivate');
    t.equal(re.body.msg, 'No such user', 'reactivate: reference message');
    const notInt = await ts.request('DELETE', '/users/abc');
    // The reference's DELETE takes <int:user_id>; /users/abc is GET /users/{email}, so a wrong method.
    t.same([notInt.status, notInt.body.msg], [405, 'Method Not Allowed'], 'a non-numeric id is not DELETE /users/{user_id}');
  });

  t.test('DELETE and reactivate: a member may not -> BAD_REQUEST "Insufficient permission"', async (t) => {
    const del = await ts.as(ann)('DELETE', `/users/${ben.userId}`);
    t.equal(del.status, 400, 'DELETE: status 400');
    t.equal(del.body.msg, 'Insufficient permission', 'DELETE: reference message');
    t.equal(await isActive(ben.userId), true, 'the target is still active');
    await ts.request('DELETE', `/users/${ben.userId}`);
    const re = await ts.as(ann)('POST', `/users/${ben.userId}/reactivate`);
    t.equal(re.body.msg, 'Insufficient permission', 'reactivate: reference message');
    t.equal(await isActive(ben.userId), false, 'the target is still deactivated');
    await ts.request('POST', `/users/${ben.userId}/reactivate`);
  });

  t.test('DELETE /users/{user_id}: the only owner cannot be deactivated', async (t) => {
    const res = await ts.request('DELETE', `/users/${ts.owner.userId}`);
    t.equal(res.status, 400, 'status 400');
    t.equal(res.body.code, 'BAD_REQUEST', 'code BAD_REQUEST');
    t.equal(res.body.msg, 'Cannot deactivate the only organization owner', 'reference message');
    t.equal(await isActive(ts.owner.userId), true, 'the owner is still active');
  });

  t.test('DELETE /users/{user_id}: administrators and owners', async (t) => {
    const admin = await createUser(ts, 'admin@example.com');
    const owner2 = await createUser(ts, 'owner2@example.com');
    const victim = await createUser(ts, 'victim@example.com');
    await restart(t, ts, setRoles({ 'admin@example.com': ROLE.administrator, 'owner2@example.com': ROLE.owner }));

    const byAdmin = await ts.as(admin)('DELETE', `/users/${owner2.userId}`);
    t.equal(byAdmin.status, 400, 'an administrator cannot deactivate an owner: status 400');
    t.equal(byAdmin.body.code, 'UNAUTHORIZED_PRINCIPAL', 'code UNAUTHORIZED_PRINCIPAL');
    t.equal(byAdmin.body.msg, 'Must be an organization owner', 'reference message');
    const member = await ts.as(admin)('DELETE', `/users/${victim.userId}`);
    t.equal(member.status, 200, 'an administrator deactivates a member');
    const back = await ts.as(admin)('POST', `/users/${victim.userId}/reactivate`);
    t.equal(back.status, 200, 'an administrator reactivates a member');

    const otherOwner = await ts.as(owner2)('DELETE', `/users/${ts.owner.userId}`);
    t.equal(otherOwner.status, 200, 'with two owners, one owner deactivates the other');
    const last = await ts.as(owner2)('DELETE', `/users/${owner2.userId}`);
    t.equal(last.body.msg, 'Cannot deactivate the only organization owner', 'the remaining owner is now the last one');
  });
});
