import t from 'tap';
import { startGroupWorld } from './world.js';

/** Members and subgroups: POST and GET /user_groups/{id}/members, /members/{user_id}, /subgroups. */
t.test('user group members and subgroups', async (t) => {
  const w = await startGroupWorld(t);
  const { owner, admin, hamlet, othello, polonius, bot } = w.root;
  const mod = w.moderator;
  const members = (id: number, direct = false) => w.ok(owner, 'GET', `/user_groups/${id}/members`, { direct_member_only: direct }).then((b) => b.members);
  const subgroups = (id: number, direct = false) => w.ok(owner, 'GET', `/user_groups/${id}/subgroups`, { direct_subgroup_only: direct }).then((b) => b.subgroups);
  const isMember = (id: number, userId: number, direct = false) =>
    w.ok(hamlet, 'GET', `/user_groups/${id}/members/${userId}`, { direct_member_only: direct }).then((b) => b.is_user_group_member);

  const leads = await w.create(owner, 'leads', { members: [admin.userId] });
  const devs = await w.create(owner, 'devs', { members: [hamlet.userId] });
  const staff = await w.create(owner, 'staff', { members: [mod.userId], subgroups: [devs] });

  t.test('adding and removing members and subgroups', async (t) => {
    await w.ok(owner, 'POST', `/user_groups/${devs}/members`, { add: [othello.userId, polonius.userId, bot.userId] });
    t.same(await members(devs, true), [hamlet.userId, othello.userId, polonius.userId, bot.userId].sort((a, b) => a - b), 'guests and bots can be members');
    await w.ok(owner, 'POST', `/user_groups/${devs}/members`, { delete: [polonius.userId, bot.userId] });
    t.same(await members(devs, true), [hamlet.userId, othello.userId].sort((a, b) => a - b));
    await w.ok(owner, 'POST', `/user_groups/${staff}/members`, { add_subgroups: [leads] });
    t.same(await subgroups(staff, true), [devs, leads].sort((a, b) => a - b));
    await w.ok(owner, 'POST', `/user_groups/${staff}/subgroups`, { delete: [leads] });
    await w.ok(owner, 'POST', `/user_groups/${staff}/subgroups`, { add: [leads] });
    await w.ok(owner, 'POST', `/user_groups/${staff}/members`, { delete_subgroups: [leads], add: [othello.userId] });
    t.same(await subgroups(staff, true), [devs]);
    t.same(await members(staff, true), [mod.userId, othello.userId].sort((a, b) => a - b));
    // The parts of one request apply in order: add, then delete.
    await w.ok(owner, 'POST', `/user_groups/${leads}/members`, { add: [othello.userId], delete: [othello.userId] });
    t.same(await members(leads, true), [admin.userId]);
  });

  t.test('recursive membership through subgroups', async (t) => {
    const top = await w.create(owner, 'top', { subgroups: [staff] });
    t.same(await members(top, true), [], 'no direct members');
    t.same(await members(top), [hamlet.userId, othello.userId, mod.userId].sort((a, b) => a - b), 'members of staff and of devs inside it');
    t.same(await subgroups(top), [devs, staff].sort((a, b) => a - b), 'recursive subgroups');
    t.same(await subgroups(top, true), [staff], 'direct subgroups');
    t.equal(await isMember(top, hamlet.userId), true, 'hamlet through devs');
    t.equal(await isMember(top, hamlet.userId, true), false, 'not directly');
    t.equal(await isMember(devs, hamlet.userId, true), true, 'directly in devs');
    t.equal(await isMember(top, admin.userId), false, 'admin is in none of them');
    t.same(await members(w.system['role:administrators']), [owner.userId, admin.userId].sort((a, b) => a - b), 'role groups: by role, owners included');
    t.same(await members(w.system['role:administrators'], true), [admin.userId], 'directly: the role itself');
    t.same(await subgroups(w.system['role:moderators']), [w.system['role:owners'], w.system['role:administrators']].sort((a, b) => a - b));
  });

  t.test('cycles are refused', async (t) => {
    const a = await w.create(owner, 'cycle-a');
    const b = await w.create(owner, 'cycle-b', { subgroups: [a] });
    const c = await w.create(owner, 'cycle-c', { subgroups: [b] });
    t.equal((await w.fails(owner, 'POST', `/user_groups/${a}/subgroups`, { add: [c] })).msg, `User group ${a} is already a subgroup of one of the passed subgroups.`, 'a -> c -> b -> a');
    t.equal((await w.fails(owner, 'POST', `/user_groups/${a}/subgroups`, { add: [a] })).msg, `User group ${a} is already a subgroup of one of the passed subgroups.`, 'a group in itself');
    t.equal((await w.fails(owner, 'POST', `/user_groups/${c}/members`, { add_subgroups: [b] })).msg, `User group ${b} is already a subgroup of this group.`);
    t.same(await subgroups(a, true), [], 'nothing changed');
  });

  t.test('errors', async (t) => {
    const post = (params: Record<string, unknown>, id = devs) => w.fails(owner, 'POST', `/user_groups/${id}/members`, params);
    t.equal((await post({})).msg, 'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
    t.equal((await post({ add: [] })).msg, 'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
    t.equal((await w.fails(owner, 'POST', `/user_groups/${devs}/subgroups`, {})).msg, 'Nothing to do. Specify at least one of "add" or "delete".');
    t.equal((await post({ add: [hamlet.userId] })).msg, `User ${hamlet.userId} is already a member of this group`);
    t.equal((await post({ add: [9999] })).msg, 'Invalid user ID: 9999');
    t.equal((await post({ delete: [admin.userId] })).msg, `There is no member '${admin.userId}' in this user group`);
    t.equal((await post({ delete: [9999] })).msg, 'Invalid user ID: 9999');
    t.equal((await post({ add_subgroups: [9999] })).msg, 'Invalid user group ID: 9999');
    t.equal((await post({ delete_subgroups: [leads] })).msg, `User group ${leads} is not a subgroup of this group.`);
    t.equal((await post({ add: [othello.userId] }, 9999)).msg, 'Invalid user group');
    t.equal((await post({ add: [othello.userId] }, w.system['role:members'])).msg, 'Insufficient permission', 'role groups follow roles');
    // A failing later part leaves the earlier ones undone.
    t.equal((await post({ add: [admin.userId], delete: [9999] })).msg, 'Invalid user ID: 9999');
    t.notOk((await members(devs, true)).includes(admin.userId), 'the add was not applied');
    t.equal((await w.fails(owner, 'GET', '/user_groups/9999/members')).msg, 'Invalid user group');
    t.equal((await w.fails(owner, 'GET', `/user_groups/${devs}/members/9999`)).msg, 'No such user');
    t.equal((await w.fails(owner, 'GET', `/user_groups/${devs}/members/${bot.userId}`)).msg, 'No such user', 'bots are not looked up');
    t.equal((await w.fails(owner, 'GET', `/user_groups/${devs}/members/${w.other.hamlet.userId}`)).msg, 'No such user', 'a user of another realm');
    t.equal((await w.fails(owner, 'GET', '/user_groups/9999/subgroups')).msg, 'Invalid user group');
    const other = await w.asOther(w.other.owner)('GET', `/user_groups/${devs}/members`);
    t.equal(other.body.msg, 'Invalid user group', "another realm's group is not found");
  });

  t.test('joining and leaving oneself vs. managing others', async (t) => {
    const club = await w.create(owner, 'club', { members: [hamlet.userId] });
    const self = (p: typeof owner, params: Record<string, unknown>) => w.as(p)('POST', `/user_groups/${club}/members`, { params });
    t.equal((await self(othello, { add: [othello.userId] })).body.msg, 'Insufficient permission', 'can_join_group: nobody');
    await w.ok(owner, 'PATCH', `/user_groups/${club}`, { can_join_group: { new: w.system['role:members'] } });
    t.equal((await self(othello, { add: [othello.userId] })).status, 200, 'joins with can_join_group');
    t.equal((await self(othello, { add: [admin.userId] })).body.msg, 'Insufficient permission', 'but may not add others');
    t.equal((await self(othello, { add: [othello.userId, admin.userId] })).body.msg, 'Insufficient permission', 'nor self and others');
    t.equal((await self(othello, { delete: [othello.userId] })).status, 200, 'leaves: can_leave_group is everyone');
    await w.ok(owner, 'PATCH', `/user_groups/${club}`, { can_leave_group: { new: w.system['role:nobody'] } });
    t.equal((await self(hamlet, { delete: [hamlet.userId] })).body.msg, 'Insufficient permission', 'can_leave_group: nobody');
    t.equal((await self(othello, { delete: [hamlet.userId] })).body.msg, 'Insufficient permission', 'removing others needs can_remove_members_group');
    await w.ok(owner, 'PATCH', `/user_groups/${club}`, { can_remove_members_group: { new: { direct_members: [othello.userId], direct_subgroups: [] } } });
    t.equal((await self(othello, { delete: [hamlet.userId] })).status, 200, 'can_remove_members_group');
    t.equal((await self(othello, { add: [hamlet.userId] })).body.msg, 'Insufficient permission', 'adding others needs can_add_members_group');
    await w.ok(owner, 'PATCH', `/user_groups/${club}`, { can_add_members_group: { new: w.system['role:moderators'] } });
    t.equal((await self(mod, { add: [hamlet.userId, mod.userId] })).status, 200, 'can_add_members_group: moderators');
    t.equal((await self(mod, { add_subgroups: [leads] })).status, 200, 'adding subgroups needs can_add_members_group too');
    t.equal((await self(mod, { delete_subgroups: [leads] })).body.msg, 'Insufficient permission', 'removing subgroups needs can_manage_group');
    t.equal((await self(polonius, { add: [polonius.userId] })).body.msg, 'Not allowed for guest users');
    t.equal((await self(bot, { add: [bot.userId] })).body.msg, 'This endpoint does not accept bot requests.');
    t.equal((await w.fails(polonius, 'GET', `/user_groups/${club}/members`)).msg, 'Not allowed for guest users');
    t.equal((await w.fails(polonius, 'GET', `/user_groups/${club}/subgroups`)).msg, 'Not allowed for guest users');
    t.equal((await w.fails(polonius, 'GET', `/user_groups/${club}/members/${hamlet.userId}`)).msg, 'Not allowed for guest users');
  });

  t.test('users added by someone else hear it from the Notification Bot', async (t) => {
    const news = await w.create(owner, 'news');
    await w.ok(owner, 'POST', `/user_groups/${news}/members`, { add: [owner.userId, hamlet.userId, bot.userId] });
    const dms = async (p: typeof owner) =>
      (await w.ok(p, 'GET', '/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }], apply_markdown: false })).messages as { sender_email: string; content: string }[];
    const got = (await dms(hamlet)).at(-1)!;
    t.equal(got.sender_email, 'notification-bot@zulip.com');
    t.equal(got.content, `@_**Owner|${owner.userId}** added you to the group @_*news*.`);
    t.notOk((await dms(owner)).some((m) => m.content.includes('@_*news*')), 'not the actor');
    await w.ok(owner, 'POST', `/user_groups/${news}/members`, { delete: [hamlet.userId] });
    t.equal((await dms(hamlet)).at(-1)!.content, `@_**Owner|${owner.userId}** removed you from the group @_*news*.`);
  });

  t.test('a deactivated user leaves their groups and comes back', async (t) => {
    const crew = await w.create(owner, 'crew', { members: [othello.userId, hamlet.userId], can_mention_group: { direct_members: [othello.userId, hamlet.userId], direct_subgroups: [] } });
    await w.ok(owner, 'DELETE', `/users/${othello.userId}`);
    t.same((await w.group(crew)).members, [hamlet.userId], 'gone from the member list');
    t.same((await w.group(crew)).can_mention_group, { direct_members: [hamlet.userId], direct_subgroups: [] }, 'and from anonymous setting values');
    t.same(await members(crew), [hamlet.userId], 'and from recursive members');
    t.equal((await w.fails(owner, 'GET', `/user_groups/${crew}/members/${othello.userId}`)).msg, 'User is deactivated');
    t.equal((await w.fails(owner, 'POST', `/user_groups/${crew}/members`, { delete: [othello.userId] })).msg, `Invalid user ID: ${othello.userId}`, 'cannot be removed');
    t.equal((await w.fails(owner, 'POST', `/user_groups/${crew}/members`, { add: [othello.userId] })).msg, `Invalid user ID: ${othello.userId}`, 'nor added');
    await w.ok(owner, 'POST', `/users/${othello.userId}/reactivate`);
    t.same((await w.group(crew)).members, [hamlet.userId, othello.userId].sort((a, b) => a - b), 'back on reactivation');
    t.same((await w.group(crew)).can_mention_group, { direct_members: [othello.userId, hamlet.userId].sort((a, b) => a - b), direct_subgroups: [] }, 'setting values too');
  });
});
