import t from 'tap';
import { ROLE } from '../../../src/model/types.js';
import { CAPABILITIES, convergenceHarness, type Viewer } from '../../helpers/convergence.js';
import { checkEvent } from '../../helpers/openapi.js';
import { createUser, startTestServer, type Credentials } from '../../helpers/server.js';

/**
 * can_access_all_users_group = role:members: a guest sees only themselves, bots, the users of
 * their channels and of their direct-message conversations; everyone else is "Unknown user".
 */
t.test('restricted user access for guests', async (t) => {
  const ts = await startTestServer(t);
  const owner: Viewer = ts.owner;
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob Secret');
  const cy = await createUser(ts, 'cy@example.com', 'Cy');
  const gus = await createUser(ts, 'gus@example.com', 'Gus');
  const { ok } = convergenceHarness(t, ts);
  const host = new URL(`http://${ts.server.config.externalHost}`).hostname;

  await ok(owner, 'PATCH', `/users/${gus.userId}`, { role: ROLE.guest });
  // Gus leaves the default channel, and shares one channel, with Ann only.
  await ok(gus, 'DELETE', '/users/me/subscriptions', { subscriptions: ['general'] });
  await ok(owner, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: 'guests' }], principals: [gus.userId, ann.userId] });
  const groups = (await ok(owner, 'POST', '/register', { fetch_event_types: ['realm_user_groups'] })).realm_user_groups as { id: number; name: string }[];
  const group = (name: string) => groups.find((g) => g.name === name)!.id;

  const users = async (as: Credentials, params: Record<string, unknown> = {}) => (await ok(as, 'GET', '/users', params)).members as any[];
  const byId = (list: any[], id: number) => list.find((u) => u.user_id === id);
  const events = async (as: Credentials, queue: { queue_id: string }) => {
    const got = await ok(as, 'GET', '/events', { queue_id: queue.queue_id, last_event_id: -1, dont_block: true });
    for (const e of got.events) checkEvent(e);
    return got.events.filter((e: any) => e.type !== 'heartbeat') as any[];
  };
  const leaks = (body: unknown) => /Bob Secret|bob@example\.com/.test(JSON.stringify(body));

  t.test('with role:everyone (the default) a guest sees everyone', async (t) => {
    t.equal(byId(await users(gus), bob.userId).full_name, 'Bob Secret', 'Bob by name');
    t.equal((await ts.as(gus)('GET', `/users/${bob.userId}`)).status, 200, 'and GET /users/{id} answers');
  });

  t.test('restricting', async (t) => {
    const res = await ts.as(owner)('PATCH', '/realm', { params: { can_access_all_users_group: JSON.stringify({ new: group('role:members') }) } });
    t.equal(res.status, 200, 'the owner sets can_access_all_users_group to role:members');
  });

  t.test('GET /users: placeholders for the inaccessible, nothing of them leaks', async (t) => {
    const list = await users(gus);
    t.equal(list.length, 5, 'one entry per user, accessible or not');
    const placeholder = byId(list, bob.userId);
    t.same(placeholder, {
      email: `user${bob.userId}@${host}`, user_id: bob.userId, avatar_version: 1, is_admin: false, is_owner: false, is_guest: false, role: 400,
      is_bot: false, full_name: 'Unknown user', timezone: '', is_active: true, date_joined: '1970-01-01T00:00:00+00:00', delivery_email: null,
      avatar_url: '/static/images/unknown-user-avatar.png', profile_data: {},
    }, 'Bob is the reference placeholder');
    t.equal(byId(list, owner.userId).full_name, 'Unknown user', 'so is the owner, who shares nothing with Gus');
    t.equal(byId(list, ann.userId).full_name, 'Ann', 'Ann shares a channel: shown');
    t.equal(byId(list, gus.userId).full_name, 'Gus', 'Gus himself: shown');
    t.notOk(leaks(list), "Bob's name and address appear nowhere");
    const some = await users(gus, { user_ids: JSON.stringify([bob.userId, ann.userId]) });
    t.same(some.map((u) => u.user_id), [ann.userId, bob.userId], 'user_ids: the two asked for');
    t.equal(byId(some, bob.userId).full_name, 'Unknown user', 'user_ids: Bob is a placeholder');
    t.equal(byId(await users(ann), bob.userId).full_name, 'Bob Secret', 'members still see everyone');
  });

  t.test('GET /users/{id} and /users/{email}: Insufficient permission', async (t) => {
    for (const key of [String(bob.userId), 'bob@example.com', `user${bob.userId}@${host}`]) {
      const res = await ts.as(gus)('GET', `/users/${encodeURIComponent(key)}`);
      t.equal(res.status, 400, `${key}: 400`);
      t.same([res.body.code, res.body.msg], ['BAD_REQUEST', 'Insufficient permission'], `${key}: the reference error`);
      t.notOk(leaks(res.body), `${key}: nothing of Bob`);
    }
    t.equal((await ts.as(gus)('GET', '/users/99999')).body.msg, 'No such user', 'an unknown id is still no such user');
    t.equal((await ts.as(gus)('GET', `/users/${ann.userId}`)).body.user.full_name, 'Ann', 'Ann answers');
    t.equal((await ts.as(gus)('GET', `/users/${gus.userId}`)).body.user.full_name, 'Gus', 'so does Gus himself');
  });

  t.test('POST /register: placeholders, or nothing with user_list_incomplete', async (t) => {
    const plain = await ok(gus, 'POST', '/register', { fetch_event_types: ['realm_user'] });
    const entry = byId(plain.realm_users, bob.userId);
    t.equal(entry.full_name, 'Unknown user', 'without the capability, Bob is an Unknown user');
    t.notOk('is_active' in entry, 'listed as active, without is_active like every realm_users entry');
    t.notOk(leaks(plain), 'nothing of Bob');
    const incomplete = await ok(gus, 'POST', '/register', { fetch_event_types: ['realm_user'], client_capabilities: JSON.stringify({ user_list_incomplete: true }) });
    t.same(incomplete.realm_users.map((u: any) => u.user_id).sort(), [ann.userId, gus.userId].sort(), 'with it, only Ann and Gus');
    t.same(incomplete.realm_non_active_users, [], 'and no inactive users');
    const member = await ok(ann, 'POST', '/register', { fetch_event_types: ['realm_user'], client_capabilities: JSON.stringify({ user_list_incomplete: true }) });
    t.ok(byId(member.realm_users, bob.userId)?.full_name === 'Bob Secret', 'a member registering still gets everyone');
  });

  t.test('a guest cannot write to users they cannot access', async (t) => {
    const res = await ts.as(gus)('POST', '/messages', { params: { type: 'direct', to: JSON.stringify([bob.userId]), content: 'hi' } });
    t.equal(res.status, 400, '400');
    t.equal(res.body.msg, 'You do not have permission to access some of the recipients.', 'the reference error');
    t.equal((await ts.as(gus)('POST', '/messages', { params: { type: 'direct', to: JSON.stringify([ann.userId]), content: 'hi' } })).status, 200, 'Ann is fine');
  });

  t.test('events', async (t) => {
    const capsOn = JSON.stringify({ user_list_incomplete: true });
    const plainQ = await ok(gus, 'POST', '/register', { event_types: JSON.stringify(['realm_user', 'message']) });
    const incompleteQ = await ok(gus, 'POST', '/register', { event_types: JSON.stringify(['realm_user', 'message']), client_capabilities: capsOn });
    const annQ = await ok(ann, 'POST', '/register', { event_types: JSON.stringify(['realm_user']) });

    // An inaccessible user's rename reaches members only.
    await ok(owner, 'PATCH', `/users/${cy.userId}`, { full_name: 'Cy Renamed' });
    t.same(await events(gus, plainQ), [], 'a rename of someone Gus cannot access: no event for him');
    t.equal((await events(ann, annQ)).length, 1, 'Ann hears it');

    // A newcomer: a placeholder, or nothing with user_list_incomplete.
    const dee = await ok(owner, 'POST', '/users', { email: 'dee@example.com', password: 'a-long-password-1', full_name: 'Dee Hidden' });
    const plainEvents = await events(gus, plainQ);
    t.same(plainEvents.map((e) => [e.op, e.person.user_id, e.person.full_name]), [['add', dee.user_id, 'Unknown user']], 'without the capability: an Unknown user add');
    t.notOk('inaccessible_user' in plainEvents[0], 'the internal marker is not sent');
    t.notOk(JSON.stringify(plainEvents).includes('Dee'), "nothing of Dee's name");
    t.same(await events(gus, incompleteQ), [], 'with user_list_incomplete: nothing');

    // A direct message from Bob: Gus meets Bob before reading him.
    await ok(bob, 'POST', '/messages', { type: 'direct', to: JSON.stringify([gus.userId]), content: 'hello guest' });
    const dm = await events(gus, incompleteQ);
    t.same(dm.map((e) => [e.type, e.op ?? null]), [['realm_user', 'add'], ['message', null]], 'realm_user add, then the message');
    t.equal(dm[0].person.full_name, 'Bob Secret', 'the full person');
    t.equal((await ts.as(gus)('GET', `/users/${bob.userId}`)).body.user.full_name, 'Bob Secret', 'Bob is accessible now');

    // Cy joins Gus's channel, then leaves it.
    await ok(owner, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: 'guests' }], principals: [cy.userId] });
    // The queue is read from its start each time: pick the events about Cy.
    const aboutCy = async () => (await events(gus, incompleteQ)).filter((e) => e.type === 'realm_user' && e.person.user_id === cy.userId);
    const met = await aboutCy();
    t.same(met.map((e) => [e.op, e.person.user_id, e.person.full_name]), [['add', cy.userId, 'Cy Renamed']], 'Gus meets Cy');
    await ok(cy, 'DELETE', '/users/me/subscriptions', { subscriptions: ['guests'] });
    const lost = (await aboutCy()).slice(1);
    t.same(lost, [{ type: 'realm_user', op: 'remove', person: { user_id: cy.userId, full_name: 'Unknown user' }, id: lost[0]?.id }], 'and loses him: realm_user remove, as the reference sends it');
    t.equal((await ts.as(gus)('GET', `/users/${cy.userId}`)).body.msg, 'Insufficient permission', 'Cy is out of reach again');
  });

  t.test('convergence', async (t) => {
    const { converges } = convergenceHarness(t, ts);
    const withCaps = { register: { client_capabilities: { ...CAPABILITIES, user_list_incomplete: true } } };
    // Gus comes back to the default channel, which Cy and the owner leave: a newcomer (who joins
    // it) becomes accessible to him at once; Cy and the owner stay out of his reach.
    await ok(cy, 'DELETE', '/users/me/subscriptions', { subscriptions: ['general'] });
    await ok(owner, 'DELETE', '/users/me/subscriptions', { subscriptions: ['general'] });
    await converges('a guest joins the default channel and meets its subscribers', () => ok(owner, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: 'general' }], principals: [gus.userId] }), [gus, ann], withCaps);
    for (const [label, options] of [['with user_list_incomplete', withCaps], ['without it', {}]] as const) {
      const n = label.length;
      // Eve is in the default channel only, with Gus; Cy and the owner are not.
      const eve: Viewer = await createUser(ts, `eve-${n}@example.com`, 'Eve');
      const viewers = [gus, ann, eve];
      await converges(`${label}: a guest gains a user through a channel`, () => ok(owner, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: 'guests' }], principals: [cy.userId] }), viewers, options);
      await converges(`${label}: and loses them`, () => ok(cy, 'DELETE', '/users/me/subscriptions', { subscriptions: ['guests'] }), viewers, options);
      await converges(`${label}: a new user`, () => createUser(ts, `new-${n}@example.com`, 'Newcomer'), viewers, options);
      await converges(`${label}: a member becomes a guest`, () => ok(owner, 'PATCH', `/users/${eve.userId}`, { role: ROLE.guest }), viewers, options);
      await converges(`${label}: a guest's rename`, () => ok(owner, 'PATCH', `/users/${gus.userId}`, { full_name: `Gus ${n}` }), viewers, options);
      await converges(`${label}: and a member again`, () => ok(owner, 'PATCH', `/users/${eve.userId}`, { role: ROLE.member }), viewers, options);
      await converges(`${label}: lifting the restriction`, () => ok(owner, 'PATCH', '/realm', { can_access_all_users_group: JSON.stringify({ new: group('role:everyone') }) }), viewers, options);
      await converges(`${label}: restricting again`, () => ok(owner, 'PATCH', '/realm', { can_access_all_users_group: JSON.stringify({ new: group('role:members') }) }), viewers, options);
    }
  });
});
