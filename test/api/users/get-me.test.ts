import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

t.test('GET /users/me', async (t) => {
  const ts = await startTestServer(t);
  const member = await createUser(ts, 'Bea@Example.com', 'Bea Member');

  t.test('GET /users/me: gives the requester their own record, in the reference shape', async (t) => {
    const res = await ts.as(member)('GET', '/users/me');
    t.equal(res.status, 200, 'status 200 (and the body matched the OpenAPI schema)');
    const me = res.body;
    t.equal(me.user_id, member.userId, 'user_id is the requester');
    t.equal(me.email, 'Bea@Example.com', 'email as the account was created');
    t.equal(me.delivery_email, 'Bea@Example.com', 'delivery_email is the real address');
    t.equal(me.full_name, 'Bea Member', 'full_name');
    t.equal(me.role, 400, 'role member');
    t.same([me.is_admin, me.is_owner, me.is_guest, me.is_bot, me.is_active], [false, false, false, false, true], 'role and state flags');
    t.match(me.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=1$/, 'avatar_url is always computed here');
    t.equal(me.avatar_version, 1, 'avatar_version');
    t.equal(me.timezone, '', 'timezone');
    t.match(me.date_joined, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/, 'date_joined in the reference isoformat');
    t.equal(me.max_message_id, -1, 'max_message_id is -1 before any message');
    t.same(me.profile_data, {}, 'profile_data is empty: no custom profile fields exist');
    t.notOk('bot_type' in me, 'no bot fields for a human (not in the reference schema)');
  });

  t.test('GET /users/me: the owner sees their own record, not another user\'s', async (t) => {
    const res = await ts.request('GET', '/users/me');
    t.equal(res.body.user_id, ts.owner.userId, 'the owner\'s id');
    t.equal(res.body.role, 100, 'role owner');
    t.equal(res.body.is_owner, true, 'is_owner');
    t.equal(res.body.is_admin, true, 'an owner is also an admin');
  });

  t.test('GET /users/me: email lookup for credentials is case-insensitive', async (t) => {
    const res = await ts.request('GET', '/users/me', { auth: { email: 'bea@example.com', apiKey: member.apiKey } });
    t.equal(res.status, 200, 'status 200');
    t.equal(res.body.user_id, member.userId, 'the same account');
  });

  t.test('GET /users/me: unknown parameters are reported', async (t) => {
    const res = await ts.as(member)('GET', '/users/me', { params: { client_gravatar: true } });
    t.same(res.body.ignored_parameters_unsupported, ['client_gravatar'], 'listed as ignored');
  });

  t.test('GET /users/me: max_message_id is the newest message the user received, as /register says', async (t) => {
    const send = (as: typeof member | null, params: Record<string, unknown>) => ts.request('POST', '/messages', { params, ...(as ? { auth: as } : {}) });
    const received = await send(null, { type: 'stream', to: 'general', topic: 'max', content: 'to everyone in general' });
    t.equal(received.status, 200, 'the owner posts to a channel the member is in');
    const other = await ts.request('POST', '/users/me/subscriptions', { params: { subscriptions: JSON.stringify([{ name: 'owners only' }]) } });
    t.equal(other.status, 200, 'a channel the member is not in');
    const unseen = await send(null, { type: 'stream', to: 'owners only', topic: 'max', content: 'not for the member' });
    t.equal(unseen.status, 200, 'a later message the member does not receive');

    const meNow = await ts.as(member)('GET', '/users/me');
    const register = await ts.as(member)('POST', '/register', { params: { fetch_event_types: JSON.stringify(['message']) } });
    t.equal(meNow.body.max_message_id, received.body.id, 'the newest message the member received, not the newest of the realm');
    t.equal(meNow.body.max_message_id, register.body.max_message_id, 'the same as /register');

    const own = await send(member, { type: 'stream', to: 'owners only', topic: 'max', content: 'the member posts where they are not subscribed' });
    t.equal(own.status, 200, 'the member sends to a public channel they are not in');
    t.equal((await ts.as(member)('GET', '/users/me')).body.max_message_id, own.body.id, 'a message they sent counts');
  });
});
