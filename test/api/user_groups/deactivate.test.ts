import t from 'tap';
import { streamId, subscribe } from '../streams/world.js';
import { startGroupWorld } from './world.js';

/** POST /user_groups/{id}/deactivate, refused while the group is in use. */
t.test('POST /user_groups/{id}/deactivate', async (t) => {
  const w = await startGroupWorld(t);
  const { owner, admin, hamlet, othello, polonius, bot } = w.root;
  const deactivate = (p: typeof owner, id: number) => w.ok(p, 'POST', `/user_groups/${id}/deactivate`);
  const refuse = (p: typeof owner, id: number) => w.fails(p, 'POST', `/user_groups/${id}/deactivate`);

  t.test('deactivates; the group is kept, marked, and usable nowhere', async (t) => {
    const id = await w.create(hamlet, 'old-team', { members: [hamlet.userId] });
    await deactivate(hamlet, id);
    t.match(await w.group(id), { id, deactivated: true, members: [hamlet.userId] });
    const listed = (await w.ok(hamlet, 'GET', '/user_groups')).user_groups as { id: number }[];
    t.notOk(listed.some((g) => g.id === id), 'not listed by default');
    t.equal((await refuse(hamlet, id)).msg, 'User group is deactivated.', 'twice');
    t.equal((await w.fails(hamlet, 'POST', `/user_groups/${id}/members`, { add: [othello.userId] })).msg, 'User group is deactivated.');
    t.equal((await w.fails(hamlet, 'GET', `/user_groups/${id}/members`)).msg, 'User group is deactivated.');
    t.equal((await w.fails(owner, 'PATCH', '/realm', { can_create_groups: { new: id } })).msg, 'User group is deactivated.', 'not as a realm setting');
    const other = await w.create(owner, 'other');
    t.equal((await w.fails(owner, 'POST', `/user_groups/${other}/subgroups`, { add: [id] })).msg, 'User group is deactivated.', 'not as a subgroup');
  });

  t.test('refused while in use, with the objections', async (t) => {
    const used = await w.create(owner, 'used');
    const parent = await w.create(owner, 'parent', { subgroups: [used] });
    const byGroup = await w.create(owner, 'by-group', { can_mention_group: used, can_join_group: { direct_members: [hamlet.userId], direct_subgroups: [used] } });
    await w.ok(owner, 'PATCH', '/realm', { can_create_groups: { new: { direct_members: [], direct_subgroups: [used, w.system['role:members']] } }, can_add_custom_emoji_group: { new: used } });
    await subscribe(w.as(owner), ['in-use']);
    const channel = await streamId(w.as(owner), 'in-use');
    await w.ok(owner, 'PATCH', `/streams/${channel}`, { can_send_message_group: { new: used } });

    const body = await refuse(owner, used);
    t.equal(body.code, 'CANNOT_DEACTIVATE_GROUP_IN_USE');
    t.equal(body.msg, 'Cannot deactivate user group in use.');
    t.same(body.objections, [
      { type: 'subgroup', supergroup_ids: [parent] },
      { type: 'channel', channel_id: channel, settings: ['can_send_message_group'] },
      { type: 'user_group', group_id: byGroup, settings: ['can_join_group', 'can_mention_group'] },
      { type: 'realm', settings: ['can_add_custom_emoji_group', 'can_create_groups'] },
    ]);

    // Once nothing uses it, it goes; a deactivated supergroup is no objection.
    await deactivate(owner, parent);
    await w.ok(owner, 'PATCH', `/user_groups/${byGroup}`, { can_mention_group: { new: w.system['role:everyone'] }, can_join_group: { new: w.system['role:nobody'] } });
    await w.ok(owner, 'PATCH', '/realm', { can_create_groups: { new: w.system['role:members'] }, can_add_custom_emoji_group: { new: w.system['role:members'] } });
    t.same((await refuse(owner, used)).objections, [{ type: 'channel', channel_id: channel, settings: ['can_send_message_group'] }], 'the channel remains');
    await w.ok(owner, 'DELETE', `/streams/${channel}`);
    await deactivate(owner, used);
    t.equal((await w.group(used)).deactivated, true, 'an archived channel is no objection');
  });

  t.test('errors and permissions', async (t) => {
    t.equal((await refuse(owner, 9999)).msg, 'Invalid user group');
    t.equal((await refuse(owner, w.system['role:members'])).msg, 'Insufficient permission');
    const id = await w.create(hamlet, 'hamlets');
    for (const p of [othello, admin, w.moderator, polonius, bot]) t.equal((await refuse(p, id)).msg, 'Insufficient permission', p.email);
    await w.ok(hamlet, 'PATCH', `/user_groups/${id}`, { can_manage_group: { new: { direct_members: [polonius.userId], direct_subgroups: [] } } });
    t.equal((await refuse(polonius, id)).msg, 'Insufficient permission', 'a guest never manages a group');
    await deactivate(owner, id);
    t.equal((await w.group(id)).deactivated, true, 'owners may');
  });
});
