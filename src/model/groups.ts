import type { RealmState } from './realm-state.js';
import { ROLE, type GroupRecord, type GroupSetting, type UserRecord } from './types.js';

/**
 * What a permission group setting may be set to, as the reference's GroupPermissionSetting
 * says: whether role:nobody and role:everyone are allowed, whether only system groups are, and
 * which ones. No setting accepts role:internet.
 */
export interface GroupSettingRule {
  defaultGroup: string;
  allowNobody: boolean;
  allowEveryone: boolean;
  requireSystemGroup: boolean;
  allowedSystemGroups: string[];
}

/**
 * The reference's built-in system groups, strictest first. Role groups nest: each one's only
 * subgroup is the next stricter group, and its direct members are the users whose role is exactly
 * its role. So "is in role:moderators" means "role <= moderator".
 */
export const SYSTEM_GROUPS: readonly { name: string; description: string; maxRole: number | null }[] = [
  { name: 'role:nobody', description: 'Nobody', maxRole: null },
  { name: 'role:owners', description: 'Owners of this organization', maxRole: ROLE.owner },
  { name: 'role:administrators', description: 'Administrators of this organization, including owners', maxRole: ROLE.administrator },
  { name: 'role:moderators', description: 'Moderators of this organization, including administrators', maxRole: ROLE.moderator },
  { name: 'role:fullmembers', description: 'Members of this organization, not including new accounts and guests', maxRole: ROLE.member },
  { name: 'role:members', description: 'Members of this organization, not including guests', maxRole: ROLE.member },
  { name: 'role:everyone', description: 'Everyone in this organization, including guests', maxRole: ROLE.guest },
  { name: 'role:internet', description: 'Everyone on the internet', maxRole: ROLE.guest },
];

/** The role whose users are the direct members of a role group (role:fullmembers has none). */
const DIRECT_ROLE: Record<string, number | undefined> = {
  'role:owners': ROLE.owner,
  'role:administrators': ROLE.administrator,
  'role:moderators': ROLE.moderator,
  'role:members': ROLE.member,
  'role:everyone': ROLE.guest,
};

/** The role group whose direct members are the users of `role`. */
export function roleGroupId(realm: RealmState, role: number): number | undefined {
  const name = Object.keys(DIRECT_ROLE).find((n) => DIRECT_ROLE[n] === role);
  return name === undefined ? undefined : realm.systemGroups.get(name);
}

/** Subgroup chain: each role group contains the next stricter one. */
const SUBGROUP_OF: Record<string, string | undefined> = {
  'role:administrators': 'role:owners',
  'role:moderators': 'role:administrators',
  'role:fullmembers': 'role:moderators',
  'role:members': 'role:fullmembers',
  'role:everyone': 'role:members',
  'role:internet': 'role:everyone',
};

/** Builds the system group records of a new realm, ids from `nextId`. */
export function buildSystemGroups(nextId: () => number, now: number): GroupRecord[] {
  const byName = new Map<string, GroupRecord>();
  for (const def of SYSTEM_GROUPS) {
    byName.set(def.name, {
      id: nextId(),
      name: def.name,
      description: def.description,
      isSystemGroup: true,
      members: [],
      subgroups: [],
      dateCreated: now,
      creatorId: null,
      deactivated: false,
      settings: {},
    });
  }
  for (const [name, sub] of Object.entries(SUBGROUP_OF)) byName.get(name)!.subgroups = [byName.get(sub!)!.id];
  const nobody = byName.get('role:nobody')!.id;
  for (const group of byName.values()) group.settings = systemGroupSettings(nobody);
  return [...byName.values()];
}

/**
 * The reference's GROUP_PERMISSION_SETTINGS, the permission settings every named group has. A
 * system group has role:nobody for each (default_for_system_groups): nobody manages, joins or
 * mentions a role group. 'group_creator' is an anonymous group of the group's creator.
 */
export const GROUP_PERMISSION_SETTINGS: Record<string, GroupSettingRule> = {
  can_add_members_group: { defaultGroup: 'group_creator', allowNobody: true, allowEveryone: false, requireSystemGroup: false, allowedSystemGroups: [] },
  can_join_group: { defaultGroup: 'role:nobody', allowNobody: true, allowEveryone: false, requireSystemGroup: false, allowedSystemGroups: [] },
  can_leave_group: { defaultGroup: 'role:everyone', allowNobody: true, allowEveryone: true, requireSystemGroup: false, allowedSystemGroups: [] },
  can_manage_group: { defaultGroup: 'group_creator', allowNobody: true, allowEveryone: false, requireSystemGroup: false, allowedSystemGroups: [] },
  can_mention_group: { defaultGroup: 'role:everyone', allowNobody: true, allowEveryone: true, requireSystemGroup: false, allowedSystemGroups: [] },
  can_remove_members_group: { defaultGroup: 'role:nobody', allowNobody: true, allowEveryone: false, requireSystemGroup: false, allowedSystemGroups: [] },
};

function systemGroupSettings(nobody: number): Record<string, GroupSetting> {
  return Object.fromEntries(Object.keys(GROUP_PERMISSION_SETTINGS).map((name) => [name, nobody]));
}

/**
 * Realms made before system groups had role:nobody for their settings stored other values; the
 * API cannot change a system group's settings, so they are set right in memory on load.
 */
export function normalizeSystemGroupSettings(realm: RealmState): void {
  const nobody = realm.systemGroups.get('role:nobody');
  if (nobody === undefined) return;
  for (const group of realm.groups.values()) if (group.isSystemGroup) group.settings = systemGroupSettings(nobody);
}

/**
 * Whether a user holds one of a group's own permission settings (the reference's
 * user_has_permission_for_group_setting): settings that exclude role:everyone exclude guests,
 * whatever group they name.
 */
export function userHasGroupPermission(realm: RealmState, user: UserRecord, group: GroupRecord, setting: string): boolean {
  if (!GROUP_PERMISSION_SETTINGS[setting].allowEveryone && user.role === ROLE.guest) return false;
  const value = group.settings[setting];
  return value !== undefined && userHasPermission(realm, user, value);
}

/** Direct members of a group: derived from roles for role groups, stored for the others. */
export function directMembers(realm: RealmState, group: GroupRecord): number[] {
  if (!group.isSystemGroup) return group.members;
  const role = DIRECT_ROLE[group.name];
  if (role === undefined) return [];
  const out: number[] = [];
  for (const user of realm.activeUsers()) if (user.role === role) out.push(user.id);
  return out;
}

/** The groups an active user is a direct member of (a role group, and stored memberships). */
export function directGroupsOf(realm: RealmState, user: UserRecord): number[] {
  if (!user.isActive || user.isSystemBot) return [];
  return [...realm.groups.values()]
    .filter((g) => !g.deactivated && (g.isSystemGroup ? DIRECT_ROLE[g.name] === user.role : g.members.includes(user.id)))
    .map((g) => g.id)
    .sort((a, b) => a - b);
}

function inGroup(realm: RealmState, user: UserRecord, groupId: number, seen: Set<number>): boolean {
  if (seen.has(groupId)) return false;
  seen.add(groupId);
  const group = realm.groups.get(groupId);
  if (!group || group.deactivated) return false;
  if (group.isSystemGroup) {
    const def = SYSTEM_GROUPS.find((g) => g.name === group.name);
    return def?.maxRole != null && user.role <= def.maxRole;
  }
  if (group.members.includes(user.id)) return true;
  return group.subgroups.some((sub) => inGroup(realm, user, sub, seen));
}

/** Whether an active user is in the group a permission setting names. */
export function userHasPermission(realm: RealmState, user: UserRecord, setting: GroupSetting): boolean {
  if (!user.isActive) return false;
  if (typeof setting === 'number') return inGroup(realm, user, setting, new Set());
  if (setting.direct_members.includes(user.id)) return true;
  return setting.direct_subgroups.some((g) => inGroup(realm, user, g, new Set()));
}

/**
 * Every id reachable from `ids` through `next`, `ids` included. The visited set stops at any
 * cycle a damaged store might hold; the API refuses to make one.
 */
function reachable(ids: Iterable<number>, next: (id: number) => Iterable<number>): Set<number> {
  const out = new Set<number>();
  const stack = [...ids];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (out.has(id)) continue;
    out.add(id);
    stack.push(...next(id));
  }
  return out;
}

/** The groups reachable from `ids` through direct subgroups, `ids` included. */
export function recursiveSubgroupIds(realm: RealmState, ids: Iterable<number>): Set<number> {
  return reachable(ids, (id) => realm.groups.get(id)?.subgroups ?? []);
}

/** The named groups that contain any of `ids`, directly or through subgroups, `ids` included. */
export function recursiveSupergroupIds(realm: RealmState, ids: Iterable<number>): Set<number> {
  const parents = new Map<number, number[]>();
  for (const group of realm.groups.values()) {
    for (const sub of group.subgroups) {
      let list = parents.get(sub);
      if (!list) parents.set(sub, (list = []));
      list.push(group.id);
    }
  }
  return reachable(ids, (id) => parents.get(id) ?? []);
}

/**
 * The active users in the groups `ids` and their subgroups (deactivated groups left out, as
 * permission checks leave them out). Role groups are one pass over the users, with the widest
 * role any of them admits, rather than one pass per group of the role chain.
 */
export function recursiveMemberIds(realm: RealmState, ids: Iterable<number>): Set<number> {
  const live = (id: number) => {
    const group = realm.groups.get(id);
    return group && !group.deactivated ? group : undefined;
  };
  // Role groups contain only role groups, so the walk need not enter them.
  const groups = [...reachable(ids, (id) => (live(id)?.isSystemGroup === false ? live(id)!.subgroups : []))].flatMap((id) => live(id) ?? []);
  let maxRole: number | null = null;
  const out = new Set<number>();
  for (const group of groups) {
    if (!group.isSystemGroup) {
      for (const id of group.members) {
        const user = realm.users.get(id);
        if (user?.isActive && !user.isSystemBot) out.add(id);
      }
      continue;
    }
    const role = SYSTEM_GROUPS.find((g) => g.name === group.name)?.maxRole;
    if (role != null && (maxRole === null || role > maxRole)) maxRole = role;
  }
  if (maxRole !== null) for (const user of realm.activeUsers()) if (user.role <= maxRole) out.add(user.id);
  return out;
}

/** The active users a permission setting names: its group's, or an anonymous group's. */
export function settingMemberIds(realm: RealmState, setting: GroupSetting): Set<number> {
  if (typeof setting === 'number') return recursiveMemberIds(realm, [setting]);
  const out = recursiveMemberIds(realm, setting.direct_subgroups);
  for (const id of setting.direct_members) if (realm.users.get(id)?.isActive) out.add(id);
  return out;
}

/** Every group id a setting value names: the group, or an anonymous group's subgroups. */
export function settingGroupIds(setting: GroupSetting): number[] {
  return typeof setting === 'number' ? [setting] : setting.direct_subgroups;
}

/** The reference's get_user_group_mention_display_name: role groups show their display name. */
export const SYSTEM_GROUP_DISPLAY_NAMES: Record<string, string> = {
  'role:nobody': 'Nobody',
  'role:owners': 'Owners',
  'role:administrators': 'Administrators',
  'role:moderators': 'Moderators',
  'role:fullmembers': 'Full members',
  'role:members': 'Members',
  'role:everyone': 'Everyone',
  'role:internet': 'Everyone on the internet',
};

export function groupDisplayName(group: GroupRecord): string {
  return (group.isSystemGroup && SYSTEM_GROUP_DISPLAY_NAMES[group.name]) || group.name;
}
