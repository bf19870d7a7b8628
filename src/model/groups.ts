import type { RealmState } from './realm-state.js';
import { ROLE, type GroupRecord, type GroupSetting, type UserRecord } from './types.js';

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
  const admins = byName.get('role:administrators')!.id;
  for (const group of byName.values()) {
    group.settings = { can_add_members_group: admins, can_join_group: admins, can_leave_group: admins, can_manage_group: admins, can_mention_group: byName.get('role:everyone')!.id, can_remove_members_group: admins };
  }
  return [...byName.values()];
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
