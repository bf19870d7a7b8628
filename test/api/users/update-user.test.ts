import t from 'tap';
import { ROLE } from '../../../src/model/types.js';
import { convergenceHarness, type Viewer } from '../../helpers/convergence.js';
import { checkEvent } from '../../helpers/openapi.js';
import { createUser, startTestServer, type Credentials } from '../../helpers/server.js';

t.test('PATCH /users/{user_id}', async (t) => {
  const ts = await startTestServer(t);
  const owner: Viewer = ts.owner;
  const admin = await createUser(ts, 'admin@example.com', 'Admin');
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const patch = (as: Credentials, id: number, params: Record<string, unknown>) => ts.as(as)('PATCH', `/users/${id}`, { params });
  const user = async (id: number) => (await ts.request('GET', `/users/${id}`)).body.user;
  t.equal((await patch(owner, admin.userId, { role: ROLE.administrator })).status, 200, 'the owner makes an administrator');
  t.equal((await user(admin.userId)).role, ROLE.administrator, 'who has the role');

  t.test('errors change nothing', async (t) => {
    const cases: [string, Credentials, number, Record<string, unknown>, string][] = [
      ['a member', ann, bob.userId, { full_name: 'Bobby' }, 'Insufficient permission'],
      ['an unknown user', admin, 9999, { full_name: 'Nobody' }, 'No such user'],
      ['an unknown role', admin, bob.userId, { role: 350 }, 'Invalid role'],
      ['an administrator granting ownership', admin, bob.userId, { role: ROLE.owner }, 'Must be an organization owner'],
      ["an administrator changing an owner's role", admin, owner.userId, { role: ROLE.member }, 'Must be an organization owner'],
      ['the only owner stepping down', owner, owner.userId, { role: ROLE.administrator }, 'The owner permission cannot be removed from the only organization owner.'],
      ['a bad name', admin, bob.userId, { full_name: 'Bob *bold*' }, 'Invalid characters in name!'],
      ['a custom profile field that does not exist', admin, bob.userId, { profile_data: [{ id: 1, value: 'x' }] }, 'Field id 1 not found.'],
    ];
    for (const [what, as, id, params, msg] of cases) {
      const res = await patch(as, id, params);
      t.equal(res.status, 400, `${what}: 400`);
      t.equal(res.body.msg, msg, `${what}: "${msg}"`);
    }
    const bobNow = await user(bob.userId);
    t.equal(bobNow.full_name, 'Bob', "Bob's name is unchanged");
    t.equal(bobNow.role, ROLE.member, "and so is Bob's role");
    t.equal((await user(owner.userId)).role, ROLE.owner, 'the owner is still the owner');
  });

  t.test('a rename and a role change reach everyone, once each', async (t) => {
    const reg = await ts.as(ann)('POST', '/register', { params: { event_types: ['realm_user'] } });
    const res = await patch(admin, bob.userId, { full_name: 'Robert', role: ROLE.moderator });
    t.equal(res.status, 200, 'changed');
    const got = await ts.as(ann)('GET', '/events', { params: { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true } });
    for (const e of got.body.events) checkEvent(e);
    t.same(got.body.events.map((e: { person: unknown }) => e.person), [{ user_id: bob.userId, role: ROLE.moderator }, { user_id: bob.userId, full_name: 'Robert' }], "Ann's queue hears both");
    const bobNow = await user(bob.userId);
    t.same([bobNow.full_name, bobNow.role], ['Robert', ROLE.moderator], 'GET /users/{id} shows them');
    t.equal((await patch(admin, bob.userId, { full_name: 'Robert', role: ROLE.moderator })).status, 200, 'the same values again succeed');
    const again = await ts.as(ann)('GET', '/events', { params: { queue_id: reg.body.queue_id, last_event_id: got.body.events.at(-1).id, dont_block: true } });
    t.same(again.body.events, [], 'and tell nobody anything');
  });

  t.test('PATCH /users/{email} does the same', async (t) => {
    const res = await ts.as(admin)('PATCH', `/users/${encodeURIComponent(bob.email)}`, { params: { full_name: 'Bobby' } });
    t.equal(res.status, 200, 'renamed by address');
    t.equal((await user(bob.userId)).full_name, 'Bobby', 'the new name shows');
    const none = await ts.as(admin)('PATCH', '/users/nobody@example.com', { params: { full_name: 'X' } });
    t.equal(none.body.msg, 'No such user', 'an unknown address is no such user');
  });

  t.test('a deactivated user can be renamed', async (t) => {
    const dee = await createUser(ts, 'dee@example.com', 'Dee');
    await ts.request('DELETE', `/users/${dee.userId}`);
    t.equal((await patch(admin, dee.userId, { full_name: 'Deirdre' })).status, 200, 'renamed');
    t.equal((await user(dee.userId)).full_name, 'Deirdre', 'the new name shows');
  });

  t.test('role changes converge: groups, and the channels a guest stops or starts seeing', async (t) => {
    const { ok, converges } = convergenceHarness(t, ts);
    await ok(owner, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: 'town square' }] });
    const viewers: Viewer[] = [owner, ann, bob];
    await converges('a member becomes a guest', () => ok(admin, 'PATCH', `/users/${ann.userId}`, { role: ROLE.guest }), viewers);
    const asGuest = await ts.as(ann)('GET', '/streams');
    t.notOk(asGuest.body.streams.some((s: { name: string }) => s.name === 'town square'), 'the guest no longer sees a public channel she is not in');
    await converges('a guest becomes a member', () => ok(admin, 'PATCH', `/users/${ann.userId}`, { role: ROLE.member }), viewers);
    await converges('a member becomes an administrator', () => ok(owner, 'PATCH', `/users/${bob.userId}`, { role: ROLE.administrator }), viewers);
    await converges('an administrator renames a member', () => ok(owner, 'PATCH', `/users/${ann.userId}`, { full_name: 'Annabel' }), viewers);
  });
});
