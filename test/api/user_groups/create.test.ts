import t from 'tap';
import { startGroupWorld } from './world.js';

/** POST /user_groups/create and GET /user_groups. */
t.test('POST /user_groups/create', async (t) => {
  const w = await startGroupWorld(t);
  const { owner, admin, hamlet, othello, polonius, bot } = w.root;

  t.test('creates a group with its members, subgroups and default settings', async (t) => {
    const before = Math.floor(Date.now() / 1000);
    const id = await w.create(hamlet, 'support', { description: 'Support\nteam', members: [othello.userId, hamlet.userId] });
    const group = await w.group(id);
    t.match(group, { id, name: 'support', description: 'Support team', creator_id: hamlet.userId, members: [hamlet.userId, othello.userId], direct_subgroup_ids: [], is_system_group: false, deactivated: false }, 'the group as listed; newlines become spaces');
    t.ok(group.date_created >= before && group.date_created <= before + 60, 'date_created is now');
    t.same(group.can_manage_group, { direct_members: [hamlet.userId], direct_subgroups: [] }, 'the creator manages it');
    t.same(group.can_add_members_group, { direct_members: [hamlet.userId], direct_subgroups: [] }, 'the creator adds members');
    t.equal(group.can_join_group, w.system['role:nobody'], 'nobody joins by default');
    t.equal(group.can_leave_group, w.system['role:everyone'], 'everyone may leave');
    t.equal(group.can_mention_group, w.system['role:everyone'], 'everyone may mention it');
    t.equal(group.can_remove_members_group, w.system['role:nobody'], 'nobody removes members by default');

    const nested = await w.create(owner, 'leads', { members: [], subgroups: [id], can_mention_group: w.system['role:moderators'], can_manage_group: { direct_members: [admin.userId], direct_subgroups: [id] } });
    const leads = await w.group(nested);
    t.same(leads.direct_subgroup_ids, [id], 'created with a subgroup');
    t.equal(leads.can_mention_group, w.system['role:moderators'], 'a requested setting');
    t.same(leads.can_manage_group, { direct_members: [admin.userId], direct_subgroups: [id] }, 'an anonymous setting');
    const single = await w.create(owner, 'single', { can_manage_group: { direct_members: [], direct_subgroups: [id] } });
    t.equal((await w.group(single)).can_manage_group, id, 'an anonymous group of one subgroup is that group');
  });

  t.test('system groups have role:nobody for every setting', async (t) => {
    const members = await w.group(w.system['role:members']);
    for (const name of ['can_add_members_group', 'can_join_group', 'can_leave_group', 'can_manage_group', 'can_mention_group', 'can_remove_members_group']) {
      t.equal(members[name], w.system['role:nobody'], name);
    }
  });

  t.test('errors', async (t) => {
    const create = (params: Record<string, unknown>) => w.fails(owner, 'POST', '/user_groups/create', { name: 'x', description: '', members: [], ...params });
    t.equal((await create({ name: ' ' })).msg, "User group name can't be empty!");
    t.equal((await create({ name: 'a'.repeat(101) })).msg, 'User group name cannot exceed 100 characters.');
    for (const prefix of ['@', 'role:', 'user:', 'stream:', 'channel:']) {
      t.equal((await create({ name: `${prefix}x` })).msg, `User group name cannot start with '${prefix}'.`, prefix);
    }
    await w.create(owner, 'taken');
    t.equal((await create({ name: 'taken' })).msg, "User group 'taken' already exists.");
    t.equal((await create({ members: [hamlet.userId, 9999] })).msg, 'Invalid user ID: 9999');
    t.equal((await create({ members: [w.other.hamlet.userId] })).msg, `Invalid user ID: ${w.other.hamlet.userId}`, 'a user of another realm');
    t.equal((await create({ subgroups: [9999] })).msg, 'Invalid user group ID: 9999');
    t.equal((await create({ can_mention_group: 9999 })).msg, 'Invalid user group');
    t.equal((await create({ can_manage_group: w.system['role:everyone'] })).msg, "'can_manage_group' setting cannot be set to 'role:everyone' group.");
    t.equal((await create({ can_mention_group: w.system['role:internet'] })).msg, "'can_mention_group' setting cannot be set to 'role:internet' group.");
    t.equal((await create({ can_join_group: { direct_members: [9999], direct_subgroups: [] } })).msg, 'Invalid user ID: 9999');
    t.equal((await create({ can_join_group: { direct_members: [], direct_subgroups: [9998, 9999] } })).msg, 'Invalid user group ID: 9998');
    const missing = await w.fails(owner, 'POST', '/user_groups/create', { name: 'y', members: [] });
    t.match(missing, { code: 'REQUEST_VARIABLE_MISSING', var_name: 'description' });
    const badList = await w.fails(owner, 'POST', '/user_groups/create', { name: 'y', description: '', members: 'nope' });
    t.equal(badList.code, 'INVALID_JSON');
    const names = ((await w.ok(owner, 'GET', '/user_groups')).user_groups as { name: string }[]).map((g) => g.name);
    t.notOk(names.includes('x'), 'nothing was created by a failed request');
  });

  t.test('a deactivated user or subgroup is refused', async (t) => {
    const gone = await w.create(owner, 'gone');
    await w.ok(owner, 'POST', `/user_groups/${gone}/deactivate`);
    t.equal((await w.fails(owner, 'POST', '/user_groups/create', { name: 'z', description: '', members: [], subgroups: [gone] })).msg, 'User group is deactivated.');
    t.equal((await w.fails(owner, 'POST', '/user_groups/create', { name: 'z', description: '', members: [], can_mention_group: gone })).msg, 'User group is deactivated.');
    await w.ok(owner, 'DELETE', `/users/${w.moderator.userId}`);
    t.equal((await w.fails(owner, 'POST', '/user_groups/create', { name: 'z', description: '', members: [w.moderator.userId] })).msg, `Invalid user ID: ${w.moderator.userId}`);
    await w.ok(owner, 'POST', `/users/${w.moderator.userId}/reactivate`);
  });

  t.test('permissions per role', async (t) => {
    for (const [who, p] of [['owner', owner], ['admin', admin], ['moderator', w.moderator], ['member', hamlet]] as const) {
      t.ok(await w.create(p, `by-${who}`), `${who} may create a group`);
    }
    t.equal((await w.fails(polonius, 'POST', '/user_groups/create', { name: 'g', description: '', members: [] })).msg, 'Not allowed for guest users');
    t.equal((await w.fails(bot, 'POST', '/user_groups/create', { name: 'b', description: '', members: [] })).msg, 'This endpoint does not accept bot requests.');
    await w.ok(owner, 'PATCH', '/realm', { can_create_groups: { new: w.system['role:moderators'] } });
    t.equal((await w.fails(hamlet, 'POST', '/user_groups/create', { name: 'h', description: '', members: [] })).msg, 'Insufficient permission', 'can_create_groups: moderators');
    t.ok(await w.create(w.moderator, 'by-moderator-2'), 'a moderator still may');
    await w.ok(owner, 'PATCH', '/realm', { can_create_groups: { new: w.system['role:members'] } });
  });

  t.test('GET /user_groups', async (t) => {
    const listed = (await w.ok(hamlet, 'GET', '/user_groups')).user_groups as { id: number; deactivated: boolean }[];
    t.ok(listed.every((g) => !g.deactivated), 'no deactivated groups by default');
    t.same(listed.map((g) => g.id), [...listed.map((g) => g.id)].sort((a, b) => a - b), 'in id order');
    const all = (await w.ok(hamlet, 'GET', '/user_groups', { include_deactivated_groups: true })).user_groups as { deactivated: boolean }[];
    t.ok(all.some((g) => g.deactivated), 'deactivated groups when asked for');
    t.equal((await w.fails(polonius, 'GET', '/user_groups')).msg, 'Not allowed for guest users');
    t.equal((await w.fails(bot, 'GET', '/user_groups')).msg, 'This endpoint does not accept bot requests.');
    const other = (await w.asOther(w.other.owner)('GET', '/user_groups')).body.user_groups as { name: string }[];
    t.notOk(other.some((g) => g.name === 'support'), "another realm's groups do not leak");
  });
});
