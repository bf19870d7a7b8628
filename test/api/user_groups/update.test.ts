import t from 'tap';
import { startGroupWorld } from './world.js';

/** PATCH /user_groups/{id}: name, description, and permission settings as {new, old}. */
t.test('PATCH /user_groups/{id}', async (t) => {
  const w = await startGroupWorld(t);
  const { owner, admin, hamlet, othello, polonius, bot } = w.root;
  const id = await w.create(hamlet, 'design', { members: [hamlet.userId] });
  const patch = (p = hamlet, params: Record<string, unknown> = {}, group = id) => w.ok(p, 'PATCH', `/user_groups/${group}`, params);
  const refuse = (p = hamlet, params: Record<string, unknown> = {}, group = id) => w.fails(p, 'PATCH', `/user_groups/${group}`, params);

  t.test('name and description', async (t) => {
    await patch(hamlet, { name: 'designers', description: 'Makes\nthings' });
    t.match(await w.group(id), { name: 'designers', description: 'Makes things' });
    await patch(hamlet, { name: 'designers' });
    t.equal((await w.group(id)).name, 'designers', 'an unchanged name is no change');
  });

  t.test('a permission setting, with and without old', async (t) => {
    const creator = { direct_members: [hamlet.userId], direct_subgroups: [] };
    await patch(hamlet, { can_mention_group: { new: w.system['role:members'] } });
    t.equal((await w.group(id)).can_mention_group, w.system['role:members']);
    await patch(hamlet, { can_mention_group: { new: { direct_members: [othello.userId], direct_subgroups: [w.system['role:moderators']] }, old: w.system['role:members'] } });
    t.same((await w.group(id)).can_mention_group, { direct_members: [othello.userId], direct_subgroups: [w.system['role:moderators']] });
    const stale = await refuse(hamlet, { can_mention_group: { new: w.system['role:everyone'], old: w.system['role:members'] } });
    t.match(stale, { code: 'EXPECTATION_MISMATCH', msg: "'old' value does not match the expected value." }, 'a stale old value');
    await patch(hamlet, { can_mention_group: { new: w.system['role:everyone'], old: { direct_members: [othello.userId], direct_subgroups: [w.system['role:moderators']] } } });
    t.equal((await w.group(id)).can_mention_group, w.system['role:everyone'], 'old as an anonymous group matches');
    t.same((await w.group(id)).can_manage_group, creator, 'the other settings are untouched');
  });

  t.test('errors', async (t) => {
    t.equal((await refuse(hamlet, {})).msg, 'No new data supplied');
    t.equal((await refuse(hamlet, { name: 'x' }, 9999)).msg, 'Invalid user group');
    t.equal((await refuse(owner, { name: 'x' }, w.system['role:members'])).msg, 'Insufficient permission', 'system groups change only with roles');
    t.equal((await refuse(hamlet, { name: '' })).msg, "User group name can't be empty!");
    t.equal((await refuse(hamlet, { name: 'role:x' })).msg, "User group name cannot start with 'role:'.");
    await w.create(owner, 'other-group');
    t.equal((await refuse(hamlet, { name: 'other-group' })).msg, "User group 'other-group' already exists.");
    t.equal((await refuse(hamlet, { can_manage_group: { new: w.system['role:everyone'] } })).msg, "'can_manage_group' setting cannot be set to 'role:everyone' group.");
    t.equal((await refuse(hamlet, { can_join_group: { new: 9999 } })).msg, 'Invalid user group');
    t.equal((await refuse(hamlet, { can_join_group: { old: 1 } })).msg, 'can_join_group["new"] field is missing');
    const bad = await refuse(hamlet, { can_join_group: 'nope' });
    t.equal(bad.code, 'INVALID_JSON', 'not JSON');
    // One bad part refuses the whole request.
    await refuse(hamlet, { description: 'never', can_manage_group: { new: w.system['role:everyone'] } });
    t.equal((await w.group(id)).description, 'Makes things', 'nothing changed');
  });

  t.test('permissions per role', async (t) => {
    t.equal((await refuse(othello, { description: 'x' })).msg, 'Insufficient permission', 'a member who does not manage it');
    t.equal((await refuse(w.moderator, { description: 'x' })).msg, 'Insufficient permission', 'a moderator');
    t.equal((await refuse(admin, { description: 'x' })).msg, 'Insufficient permission', 'an administrator: can_manage_all_groups is owners by default');
    t.equal((await refuse(polonius, { description: 'x' })).msg, 'Not allowed for guest users');
    t.equal((await refuse(bot, { description: 'x' })).msg, 'This endpoint does not accept bot requests.');
    await patch(owner, { description: 'by the owner' });
    t.equal((await w.group(id)).description, 'by the owner', 'owners manage all groups');
    await w.ok(owner, 'PATCH', '/realm', { can_manage_all_groups: { new: w.system['role:administrators'] } });
    await patch(admin, { description: 'by an administrator' });
    t.equal((await w.group(id)).description, 'by an administrator', 'can_manage_all_groups: administrators');
    await patch(hamlet, { can_manage_group: { new: { direct_members: [othello.userId], direct_subgroups: [] } } });
    await patch(othello, { description: 'by othello' });
    t.equal((await w.group(id)).description, 'by othello', 'can_manage_group names othello now');
    t.equal((await refuse(hamlet, { description: 'x' })).msg, 'Insufficient permission', 'the creator no longer manages it');
  });

  t.test('a deactivated group can still be edited', async (t) => {
    const old = await w.create(owner, 'retired');
    await w.ok(owner, 'POST', `/user_groups/${old}/deactivate`);
    await patch(owner, { name: 'retired-2', can_mention_group: { new: w.system['role:members'] } }, old);
    t.match(await w.group(old), { name: 'retired-2', deactivated: true, can_mention_group: w.system['role:members'] });
  });
});
