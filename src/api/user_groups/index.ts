import { badRequest } from '../../lib/errors.js';
import { GROUP_PERMISSION_SETTINGS, recursiveMemberIds, recursiveSubgroupIds } from '../../model/groups.js';
import { groupSettingForApi } from '../../model/realm-settings.js';
import type { GroupSetting } from '../../model/types.js';
import { me, operation, type OpContext } from '../../api-kit/operation.js';
import { checkGroupSettingValue, groupSettingChanges, parseGroupSettingChange, parseGroupSettingValue } from './group-values.js';
import { noSuchUser } from '../users/access.js';
import {
  activeUsersByIds,
  checkCanCreateGroups,
  checkGroupName,
  checkMemberOrAdmin,
  checkNameFree,
  checkNotInUse,
  groupById,
  groupForUpdate,
  subgroupsByIds,
} from './access.js';
import { checkMembershipChange, doChangeMembership, doCreateGroup, doDeactivateGroup, doUpdateGroup, type GroupUpdate, type MembershipRequest } from './actions.js';
import { notifyMembershipChange } from './notify.js';
import { activeDirectMembers, realmUserGroups } from './views.js';

/**
 * User groups (zerver/views/user_groups.py): create, list, edit, deactivate, and their members
 * and subgroups. Who may do what is in access.ts; the state changes and events in actions.ts.
 */

const SETTING_NAMES = Object.keys(GROUP_PERMISSION_SETTINGS);
const idList = { type: 'array', items: { type: 'integer' } };
const groupId = { user_group_id: { type: 'integer' } };

/** A description is one line: the reference turns newlines into spaces. */
const oneLine = (text: string) => text.replace(/\n/g, ' ');

interface CreateParams {
  name: string;
  description: string;
  members: number[];
  subgroups?: number[];
  [setting: string]: unknown;
}

/** POST /user_groups/create */
const create = operation<CreateParams>({
  auth: 'user',
  params: {
    properties: {
      name: { type: 'string' },
      description: { type: 'string' },
      members: idList,
      subgroups: idList,
      ...Object.fromEntries(SETTING_NAMES.map((name) => [name, { anyOf: [{ type: 'integer' }, { type: 'object' }] }])),
    },
    required: ['name', 'description', 'members'],
  },
  handler: async (ctx) => {
    const { realm, params: p } = ctx;
    const user = me(ctx);
    checkCanCreateGroups(realm, user);
    const members = activeUsersByIds(realm, p.members);
    checkGroupName(p.name);
    const settings: Record<string, GroupSetting> = {};
    for (const name of SETTING_NAMES) {
      if (p[name] === undefined) continue;
      settings[name] = parseGroupSettingValue(name, p[name]);
      checkGroupSettingValue(realm, name, settings[name], GROUP_PERMISSION_SETTINGS[name]);
    }
    checkNameFree(realm, p.name);
    const subgroups = subgroupsByIds(realm, p.subgroups ?? []);
    const group = await doCreateGroup(ctx.shard, realm, user, { name: p.name, description: oneLine(p.description), members, subgroups, settings });
    return { group_id: group.id };
  },
});

/** GET /user_groups */
const list = operation<{ include_deactivated_groups: boolean }>({
  auth: 'user',
  params: { properties: { include_deactivated_groups: { type: 'boolean', default: false } } },
  handler: (ctx) => {
    checkMemberOrAdmin(me(ctx));
    return { user_groups: realmUserGroups(ctx.realm, ctx.params.include_deactivated_groups) };
  },
});

interface UpdateParams {
  user_group_id: number;
  name?: string;
  description?: string;
  [setting: string]: unknown;
}

/**
 * PATCH /user_groups/{id}: name, description and permission settings, each setting as
 * {new, old} where `old`, when given, must be the current value (a client acting on a stale
 * view gets EXPECTATION_MISMATCH). Deactivated groups can be edited too.
 */
const update = operation<UpdateParams>({
  auth: 'user',
  params: {
    properties: {
      ...groupId,
      name: { type: 'string' },
      description: { type: 'string' },
      ...Object.fromEntries(SETTING_NAMES.map((name) => [name, { type: 'object' }])),
    },
    required: ['user_group_id'],
  },
  handler: async (ctx) => {
    const { realm, params: p } = ctx;
    const user = me(ctx);
    checkMemberOrAdmin(user);
    if (p.name === undefined && p.description === undefined && SETTING_NAMES.every((name) => p[name] === undefined)) {
      throw badRequest('No new data supplied');
    }
    const group = groupForUpdate(realm, user, p.user_group_id, 'can_manage_group', true);
    const change: GroupUpdate = { settings: [] };
    if (p.name !== undefined && p.name !== group.name) {
      checkGroupName(p.name);
      checkNameFree(realm, p.name);
      change.name = p.name;
    }
    if (p.description !== undefined && p.description !== group.description) change.description = oneLine(p.description);
    for (const name of SETTING_NAMES) {
      if (p[name] === undefined) continue;
      const requested = parseGroupSettingChange(name, p[name] as Record<string, unknown>);
      if (!groupSettingChanges(groupSettingForApi(realm, group.settings[name]), requested)) continue;
      checkGroupSettingValue(realm, name, requested.new, GROUP_PERMISSION_SETTINGS[name]);
      change.settings.push([name, requested.new]);
    }
    await doUpdateGroup(ctx.shard, realm, group, change);
    return {};
  },
});

/** POST /user_groups/{id}/deactivate: refused while the group is in use (CANNOT_DEACTIVATE_GROUP_IN_USE). */
const deactivate = operation<{ user_group_id: number }>({
  auth: 'user',
  params: { properties: groupId, required: ['user_group_id'] },
  handler: async (ctx) => {
    const group = groupForUpdate(ctx.realm, me(ctx), ctx.params.user_group_id, 'can_manage_group');
    checkNotInUse(ctx.realm, group);
    await doDeactivateGroup(ctx.shard, ctx.realm, group);
    return {};
  },
});

/** Applies a checked membership request and tells the users added or removed by someone else. */
async function changeMembership(ctx: OpContext<{ user_group_id: number }>, req: MembershipRequest) {
  const user = me(ctx);
  const change = checkMembershipChange(ctx.realm, user, ctx.params.user_group_id, req);
  await doChangeMembership(ctx.shard, ctx.realm, change);
  const group = ctx.realm.groups.get(change.group.id)!;
  await notifyMembershipChange(ctx.shard, ctx.realm, user, group, change.add, true);
  await notifyMembershipChange(ctx.shard, ctx.realm, user, group, change.remove, false);
  return {};
}

/** POST /user_groups/{id}/members: users and (since feature level 311) subgroups. */
const members = operation<{ user_group_id: number } & MembershipRequest>({
  auth: 'user',
  params: { properties: { ...groupId, add: idList, delete: idList, add_subgroups: idList, delete_subgroups: idList }, required: ['user_group_id'] },
  handler: (ctx) => {
    checkMemberOrAdmin(me(ctx));
    const p = ctx.params;
    if (![p.add, p.delete, p.add_subgroups, p.delete_subgroups].some((ids) => ids && ids.length > 0)) {
      throw badRequest('Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
    }
    return changeMembership(ctx, p);
  },
});

/** POST /user_groups/{id}/subgroups */
const subgroups = operation<{ user_group_id: number; add?: number[]; delete?: number[] }>({
  auth: 'user',
  params: { properties: { ...groupId, add: idList, delete: idList }, required: ['user_group_id'] },
  handler: (ctx) => {
    checkMemberOrAdmin(me(ctx));
    const { add, delete: remove } = ctx.params;
    if (!add?.length && !remove?.length) throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
    return changeMembership(ctx, { add_subgroups: add, delete_subgroups: remove });
  },
});

/** The group a read of its members or subgroups names: active, and not for guests or bots. */
function readableGroup(ctx: OpContext<{ user_group_id: number }>) {
  checkMemberOrAdmin(me(ctx));
  return groupById(ctx.realm, ctx.params.user_group_id);
}

/** GET /user_groups/{id}/members: active members, direct or through subgroups. */
const listMembers = operation<{ user_group_id: number; direct_member_only: boolean }>({
  auth: 'user',
  params: { properties: { ...groupId, direct_member_only: { type: 'boolean', default: false } }, required: ['user_group_id'] },
  handler: (ctx) => {
    const group = readableGroup(ctx);
    const ids = ctx.params.direct_member_only ? activeDirectMembers(ctx.realm, group) : [...recursiveMemberIds(ctx.realm, [group.id])].sort((a, b) => a - b);
    return { members: ids };
  },
});

/**
 * GET /user_groups/{id}/members/{user_id}. The user is looked up as the reference's
 * access_user_by_id does it: bots are "No such user", deactivated users refused.
 */
const isMember = operation<{ user_group_id: number; user_id: number; direct_member_only: boolean }>({
  auth: 'user',
  params: { properties: { ...groupId, user_id: { type: 'integer' }, direct_member_only: { type: 'boolean', default: false } }, required: ['user_group_id', 'user_id'] },
  handler: (ctx) => {
    const { realm, params: p } = ctx;
    const group = readableGroup(ctx);
    const target = realm.users.get(p.user_id);
    if (!target || target.isBot) throw noSuchUser();
    if (!target.isActive) throw badRequest('User is deactivated');
    const found = p.direct_member_only ? activeDirectMembers(realm, group).includes(target.id) : recursiveMemberIds(realm, [group.id]).has(target.id);
    return { is_user_group_member: found };
  },
});

/** GET /user_groups/{id}/subgroups: direct subgroups, or all of them. */
const listSubgroups = operation<{ user_group_id: number; direct_subgroup_only: boolean }>({
  auth: 'user',
  params: { properties: { ...groupId, direct_subgroup_only: { type: 'boolean', default: false } }, required: ['user_group_id'] },
  handler: (ctx) => {
    const group = readableGroup(ctx);
    const ids = ctx.params.direct_subgroup_only ? group.subgroups : [...recursiveSubgroupIds(ctx.realm, group.subgroups)];
    return { subgroups: [...ids].sort((a, b) => a - b) };
  },
});

export const operations = {
  'userGroups.create': create,
  'userGroups.list': list,
  'userGroups.update': update,
  'userGroups.deactivate': deactivate,
  'userGroups.members': members,
  'userGroups.subgroups': subgroups,
  'userGroups.listMembers': listMembers,
  'userGroups.isMember': isMember,
  'userGroups.listSubgroups': listSubgroups,
};
