import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

/**
 * The Notification Bot is a system bot, shown to clients as the reference shows its cross-realm
 * bots: in cross_realm_bots and nowhere else among the realm's people, a member of no group or
 * channel, readable but not manageable.
 */
t.test('the Notification Bot is a system bot', async (t) => {
  const ts = await startTestServer(t, { heartbeatSeconds: 1 });
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const asAnn = ts.as(ann);
  const asOwner = ts.as(ts.owner);
  const register = async (as: typeof asAnn) => (await as('POST', '/register', { params: { include_subscribers: true } })).body;

  const before = await register(asAnn);
  const bot = before.cross_realm_bots.find((u: { email: string }) => u.email === 'notification-bot@zulip.com');

  t.test('POST /register: in cross_realm_bots, in the reference shape', async (t) => {
    t.match(bot, { full_name: 'Notification Bot', is_bot: true, is_system_bot: true, bot_type: 1, bot_owner_id: null, role: 400, is_active: true }, 'the bot');
    t.type(bot.avatar_url, 'string', 'its avatar URL is always given');
    t.notOk(before.realm_users.some((u: { user_id: number }) => u.user_id === bot.user_id), 'not in realm_users');
    t.notOk(before.realm_non_active_users.some((u: { user_id: number }) => u.user_id === bot.user_id), 'nor in realm_non_active_users');
    const admin = await register(asOwner);
    t.notOk(admin.realm_bots.some((b: { user_id: number }) => b.user_id === bot.user_id), 'nor among the bots an administrator manages');
    t.ok(before.realm_user_groups.every((g: { members: number[] }) => !g.members.includes(bot.user_id)), 'a member of no group');
    t.ok(before.subscriptions.every((s: { subscribers: number[] }) => !s.subscribers.includes(bot.user_id)), 'subscribed to no channel');
  });

  t.test('GET /users leaves it out; GET /users/{id} finds it', async (t) => {
    const list = await asAnn('GET', '/users');
    t.notOk(list.body.members.some((u: { user_id: number }) => u.user_id === bot.user_id), 'not in the realm\'s list');
    const filtered = await asAnn('GET', '/users', { params: { user_ids: [bot.user_id] } });
    t.same(filtered.body, { result: 'error', msg: `Invalid user ID: ${bot.user_id}`, code: 'BAD_REQUEST' }, 'nor asked for by id');
    const one = await asAnn('GET', `/users/${bot.user_id}`);
    t.match(one.body.user, { user_id: bot.user_id, full_name: 'Notification Bot', is_bot: true }, 'read by id');
    const byEmail = await asAnn('GET', '/users/notification-bot@zulip.com');
    t.equal(byEmail.body.user?.user_id, bot.user_id, 'and by email');
  });

  t.test('nobody manages it', async (t) => {
    const noSuchUser = { result: 'error', msg: 'No such user', code: 'BAD_REQUEST' };
    t.same((await asOwner('PATCH', `/users/${bot.user_id}`, { params: { full_name: 'Renamed' } })).body, noSuchUser, 'PATCH /users/{id}');
    t.same((await asOwner('DELETE', `/users/${bot.user_id}`)).body, noSuchUser, 'DELETE /users/{id}');
    const sub = await asOwner('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'general' }], principals: [bot.user_id] } });
    t.same(sub.body, noSuchUser, 'subscribing it');
    t.match((await asOwner('GET', `/users/${bot.user_id}`)).body.user, { full_name: 'Notification Bot', is_active: true }, 'unchanged');
  });

  t.test('its notices reach clients with no realm_user event', async (t) => {
    const queue = (await asAnn('POST', '/register', { params: { event_types: ['message', 'realm_user', 'subscription', 'user_group'] } })).body;
    const sent = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'bug', content: 'broken' } });
    t.equal((await asAnn('PATCH', `/messages/${sent.body.id}`, { params: { topic: '✔ bug', propagate_mode: 'change_all' } })).status, 200, 'resolved');
    const events = (await asAnn('GET', '/events', { params: { queue_id: queue.queue_id, last_event_id: queue.last_event_id, dont_block: true } })).body.events;
    const notice = events.find((e: { type: string; message?: { sender_id: number } }) => e.type === 'message' && e.message!.sender_id === bot.user_id);
    t.match(notice?.message, { sender_full_name: 'Notification Bot', content: /marked this topic as resolved/ }, 'the notice, from the bot');
    t.same(events.filter((e: { type: string }) => e.type !== 'message').map((e: { type: string }) => e.type), [], 'and nothing about the bot itself');
  });
});
