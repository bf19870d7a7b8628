import t from 'tap';
import { startWorld } from '../streams/world.js';

/** POST /register: realm_user, realm_bot and realm_user_groups, for users of each role. */
t.test('POST /register: people', async (t) => {
  const w = await startWorld(t);
  const { owner, admin, hamlet, othello, polonius, bot } = w.root;
  const register = async (who: typeof owner, params: Record<string, unknown>) => {
    const res = await w.as(who)('POST', '/register', { params });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body as Record<string, any>;
  };
  const ids = (list: { user_id: number }[]) => list.map((u) => u.user_id);

  t.test('POST /register: realm_users lists everyone of the realm, bots included, without is_active', async (t) => {
    const body = await register(hamlet, { fetch_event_types: ['realm_user'] });
    const expected = [owner, hamlet, admin, othello, polonius, bot].map((p) => p.userId).sort((a, b) => a - b);
    t.same(ids(body.realm_users), expected, 'every active user, in id order');
    t.same(body.realm_non_active_users, [], 'nobody is deactivated');
    t.ok(body.realm_users.every((u: object) => !('is_active' in u)), 'is_active is implied by the list');
    const botView = body.realm_users.find((u: { user_id: number }) => u.user_id === bot.userId);
    t.match(botView, { is_bot: true, bot_type: 1, bot_owner_id: hamlet.userId }, 'the bot, with its owner');
    t.notOk('profile_data' in botView, 'bots have no profile data');
    const hamletView = body.realm_users.find((u: { user_id: number }) => u.user_id === hamlet.userId);
    t.same(hamletView.profile_data, {}, 'humans have (empty) profile data');
    t.equal(hamletView.avatar_url, null, 'client_gravatar defaults to true: Gravatar URLs are left to the client');
    t.match(body.cross_realm_bots, [{ full_name: 'Notification Bot', is_system_bot: true }], 'the Notification Bot, as a cross-realm bot');
  });

  t.test('POST /register: other realms\' users are not listed', async (t) => {
    const body = await register(hamlet, { fetch_event_types: ['realm_user'] });
    const emails: string[] = body.realm_users.map((u: { email: string }) => u.email);
    t.ok(emails.every((e) => e.endsWith('@example.com')), 'only this realm');
    t.notOk(emails.some((e) => e.endsWith('other.example.com')), 'nobody of realm "other"');
  });

  t.test('POST /register: the user\'s own fields follow their role', async (t) => {
    const member = await register(hamlet, { fetch_event_types: ['realm_user'], client_gravatar: false });
    t.match(member, {
      user_id: hamlet.userId, email: hamlet.email, delivery_email: hamlet.email, full_name: 'hamlet', avatar_source: 'G',
      is_admin: false, is_owner: false, is_moderator: false, is_guest: false,
      can_create_public_streams: true, can_create_private_streams: true, can_create_web_public_streams: false, can_create_streams: true,
      can_subscribe_other_users: true, can_invite_others_to_realm: true,
    }, 'a member');
    t.match(member.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=1$/, 'own avatar URL always computed');
    t.match(member.avatar_url_medium, /\?d=identicon&s=500&version=1$/, 'the medium one at 500 pixels');
    t.ok(member.realm_users.every((u: { avatar_url: unknown }) => typeof u.avatar_url === 'string'), 'client_gravatar false: every URL computed');
    const guest = await register(polonius, { fetch_event_types: ['realm_user'] });
    t.match(guest, { is_guest: true, is_admin: false, can_create_public_streams: false, can_create_private_streams: false, can_subscribe_other_users: false, can_invite_others_to_realm: false }, 'a guest may do none of it');
    t.match(await register(admin, { fetch_event_types: ['realm_user'] }), { is_admin: true, is_owner: false }, 'an administrator');
    t.match(await register(owner, { fetch_event_types: ['realm_user'] }), { is_admin: true, is_owner: true, can_create_web_public_streams: true }, 'the owner');
  });

  t.test('POST /register: realm_bots shows one\'s own bots, and every bot to administrators', async (t) => {
    const mine = (await register(hamlet, { fetch_event_types: ['realm_bot'] })).realm_bots;
    t.same(ids(mine), [bot.userId], 'hamlet sees his bot');
    t.match(mine[0], { email: bot.email, owner_id: hamlet.userId, is_active: true, bot_type: 1, api_key: bot.apiKey, services: [], default_all_public_streams: false }, 'with its key and settings');
    t.same((await register(othello, { fetch_event_types: ['realm_bot'] })).realm_bots, [], 'othello owns none and sees none');
    t.same(ids((await register(admin, { fetch_event_types: ['realm_bot'] })).realm_bots), [bot.userId], 'an administrator sees every bot');
  });

  t.test('POST /register: realm_user_groups holds the system groups with their members', async (t) => {
    const groups: Record<string, any>[] = (await register(hamlet, { fetch_event_types: ['realm_user_groups'] })).realm_user_groups;
    const byName = new Map(groups.map((g) => [g.name, g]));
    t.same([...byName.keys()].filter((n) => n.startsWith('role:')).length, 8, 'the eight system groups');
    t.same(groups.map((g) => g.id), [...groups.map((g) => g.id)].sort((a, b) => a - b), 'in id order');
    const members = byName.get('role:members')!;
    t.same(members.members, [hamlet.userId, othello.userId, bot.userId].sort((a, b) => a - b), 'role:members: the members, bots too');
    t.same(members.direct_subgroup_ids, [byName.get('role:fullmembers')!.id], 'and its subgroup');
    t.same(byName.get('role:everyone')!.members, [polonius.userId], 'role:everyone: the guest');
    t.same(byName.get('role:owners')!.members, [owner.userId], 'role:owners: the owner');
    t.match(members, { is_system_group: true, deactivated: false, description: 'Members of this organization, not including guests' }, 'the group fields');
    t.type(members.can_mention_group, 'number', 'permission settings are group ids');
  });

  t.test('POST /register: a deactivated user moves to realm_non_active_users', async (t) => {
    const res = await w.as(owner)('DELETE', `/users/${othello.userId}`);
    t.equal(res.status, 200, 'othello deactivated');
    const body = await register(hamlet, { fetch_event_types: ['realm_user', 'realm_user_groups'] });
    t.same(ids(body.realm_non_active_users), [othello.userId], 'listed as non-active');
    t.notOk(ids(body.realm_users).includes(othello.userId), 'no longer active');
    const members = body.realm_user_groups.find((g: { name: string }) => g.name === 'role:members');
    t.notOk(members.members.includes(othello.userId), 'and out of the groups\' member lists');
  });
});
