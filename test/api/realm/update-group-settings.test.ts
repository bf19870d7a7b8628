import t from 'tap';
import { groupSettingForApi, realmGroupSetting, realmSetting } from '../../../src/model/realm-settings.js';
import type { GroupRecord } from '../../../src/model/types.js';
import { ROLE, startShard } from './harness.js';

t.test('PATCH /realm: permission group settings', async (t) => {
  const h = await startShard(t);
  const sys = (name: string) => h.realm.systemGroupId(name);
  const patch = (params: Record<string, unknown>) =>
    h.call('realm.update', h.owner, Object.fromEntries(Object.entries(params).map(([k, v]) => [k, JSON.stringify(v)])));
  const member = await h.user(ROLE.member);
  const other = await h.user(ROLE.member);

  // A user-defined group, as the user-groups endpoints will create them.
  const custom: GroupRecord = {
    id: 9000, name: 'frontend', description: '', isSystemGroup: false, members: [member.id], subgroups: [],
    dateCreated: 0, creatorId: h.owner.id, deactivated: false, settings: {},
  };
  h.realm.setGroup(custom);
  const retired: GroupRecord = { ...custom, id: 9001, name: 'retired', deactivated: true };
  h.realm.setGroup(retired);

  t.test('a system group id', async (t) => {
    const res = await patch({ can_resolve_topics_group: { new: sys('role:moderators') } });
    t.equal(res.status, 200, 'status 200');
    t.equal(res.body.can_resolve_topics_group, sys('role:moderators'), 'reported');
    t.equal(realmSetting(h.realm, 'can_resolve_topics_group'), sys('role:moderators'), 'stored');
  });

  t.test('a user-defined group and an anonymous group', async (t) => {
    let res = await patch({ can_add_custom_emoji_group: { new: custom.id } });
    t.equal(res.body.can_add_custom_emoji_group, custom.id, 'a named user group');
    const anonymous = { direct_members: [other.id, member.id], direct_subgroups: [sys('role:administrators')] };
    res = await patch({ can_delete_any_message_group: { new: anonymous } });
    t.equal(res.status, 200, 'status 200');
    const stored = { direct_members: [member.id, other.id].sort((a, b) => a - b), direct_subgroups: [sys('role:administrators')] };
    t.same(res.body.can_delete_any_message_group, stored, 'the anonymous group is reported');
    t.same(realmSetting(h.realm, 'can_delete_any_message_group'), stored, 'and stored');
  });

  t.test('one subgroup and no members is that subgroup', async (t) => {
    const res = await patch({ can_create_groups: { new: { direct_members: [], direct_subgroups: [sys('role:administrators')] } } });
    t.equal(res.body.can_create_groups, sys('role:administrators'), 'canonicalised to the group id');
    t.equal(realmSetting(h.realm, 'can_create_groups'), sys('role:administrators'), 'stored as the group id');
  });

  t.test('"old" must match the current value', async (t) => {
    let res = await patch({ can_move_messages_between_topics_group: { new: sys('role:members'), old: sys('role:moderators') } });
    t.equal(res.status, 400, 'status 400');
    t.match(res.body, { code: 'EXPECTATION_MISMATCH', msg: "'old' value does not match the expected value." }, 'the reference error');
    t.equal(realmSetting(h.realm, 'can_move_messages_between_topics_group'), sys('role:everyone'), 'unchanged');
    res = await patch({ can_move_messages_between_topics_group: { new: sys('role:members'), old: sys('role:everyone') } });
    t.equal(res.body.can_move_messages_between_topics_group, sys('role:members'), 'a matching "old" lets it change');
  });

  t.test('setting the current value again changes nothing', async (t) => {
    const res = await patch({ can_move_messages_between_topics_group: { new: sys('role:members') } });
    t.notOk('can_move_messages_between_topics_group' in res.body, 'not reported as changed');
  });

  t.test('values the setting does not allow', async (t) => {
    const cases: [Record<string, unknown>, string][] = [
      [{ can_invite_users_group: { new: sys('role:everyone') } }, "'can_invite_users_group' setting cannot be set to 'role:everyone' group."],
      [{ can_manage_all_groups: { new: sys('role:nobody') } }, "'can_manage_all_groups' setting cannot be set to 'role:nobody' group."],
      [{ can_resolve_topics_group: { new: sys('role:internet') } }, "'can_resolve_topics_group' setting cannot be set to 'role:internet' group."],
      [{ can_create_web_public_channel_group: { new: sys('role:members') } }, "'can_create_web_public_channel_group' setting cannot be set to 'role:members' group."],
      [{ can_access_all_users_group: { new: custom.id } }, "'can_access_all_users_group' must be a system user group."],
      [{ can_access_all_users_group: { new: { direct_members: [member.id], direct_subgroups: [] } } }, "'can_access_all_users_group' must be a system user group."],
      [{ can_resolve_topics_group: { new: 123456 } }, 'Invalid user group'],
      [{ can_resolve_topics_group: { new: retired.id } }, 'User group is deactivated.'],
      [{ can_resolve_topics_group: { new: { direct_members: [424242], direct_subgroups: [] } } }, 'Invalid user ID: 424242'],
      [{ can_resolve_topics_group: { new: { direct_members: [], direct_subgroups: [custom.id, 777777] } } }, 'Invalid user group ID: 777777'],
      [{ can_resolve_topics_group: { old: sys('role:members') } }, 'can_resolve_topics_group["new"] field is missing'],
      [{ can_resolve_topics_group: { new: 'moderators' } }, 'Invalid can_resolve_topics_group'],
    ];
    for (const [params, msg] of cases) {
      const res = await patch({ ...params, mandatory_topics: true });
      t.equal(res.status, 400, `${msg}: status 400`);
      t.equal(res.body.msg, msg, msg);
    }
    t.equal(realmSetting(h.realm, 'mandatory_topics'), false, 'the setting sent beside a bad value was not applied');
    t.equal(realmSetting(h.realm, 'can_resolve_topics_group'), sys('role:moderators'), 'the group setting kept its value');
  });

  t.test('a group setting that is not a JSON object', async (t) => {
    const res = await h.call('realm.update', h.owner, { can_resolve_topics_group: 'not json' });
    t.equal(res.status, 400, 'status 400');
    t.equal(res.body.code, 'INVALID_JSON', 'invalid JSON is reported as such');
  });

  t.test('deactivated members are not shown in an anonymous group', async (t) => {
    await patch({ can_summarize_topics_group: { new: { direct_members: [member.id, other.id], direct_subgroups: [] } } });
    h.realm.setUser({ ...other, isActive: false });
    t.teardown(() => h.realm.setUser({ ...other, isActive: true }));
    t.same(groupSettingForApi(h.realm, realmGroupSetting(h.realm, 'can_summarize_topics_group')), { direct_members: [member.id], direct_subgroups: [] }, 'only active members listed');
  });
});
