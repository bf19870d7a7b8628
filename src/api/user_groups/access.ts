import { ApiError, badRequest, insufficientPermission } from '../../lib/errors.js';
import { GROUP_PERMISSION_SETTINGS, userHasGroupPermission } from '../../model/groups.js';
import type { RealmState } from '../../model/realm-state.js';
import { REALM_GROUP_SETTINGS, realmGroupSetting, userHasRealmPermission } from '../../model/realm-settings.js';
import { ROLE, type GroupRecord, type GroupSetting, type UserRecord } from '../../model/types.js';
import { CHANNEL_GROUP_SETTINGS } from '../streams/views.js';

/**
 * Who may read and change a group, after the reference's zerver/lib/user_groups.py
 * (access_user_group_for_update and friends) and its view decorators.
 */

/** The reference's require_member_or_admin: guests and bots may not call the endpoint. */
export function checkMemberOrAdmin(user: UserRecord): void {
  if (user.role === ROLE.guest) throw badRequest('Not allowed for guest users');
  if (user.isBot) throw badRequest('This endpoint does not accept bot requests.');
}

/** POST /user_groups/create: can_create_groups, beyond being a human non-guest. */
export function checkCanCreateGroups(realm: RealmState, user: UserRecord): void {
  checkMemberOrAdmin(user);
  if (!userHasRealmPermission(realm, user, 'can_create_groups')) throw insufficientPermission();
}

export function groupById(realm: RealmState, id: number, allowDeactivated = false): GroupRecord {
  const group = realm.groups.get(id);
  if (!group) throw badRequest('Invalid user group');
  if (group.deactivated && !allowDeactivated) throw badRequest('User group is deactivated.');
  return group;
}

/**
 * A group the user means to change. System groups change only with roles. can_manage_all_groups
 * and the group's can_manage_group allow everything; otherwise the user needs the group setting
 * the change is about (can_join_group, can_add_members_group, ...).
 */
export function groupForUpdate(realm: RealmState, user: UserRecord, id: number, permission: string, allowDeactivated = false): GroupRecord {
  const group = groupById(realm, id, allowDeactivated);
  if (group.isSystemGroup) throw insufficientPermission();
  if (userHasRealmPermission(realm, user, 'can_manage_all_groups')) return group;
  if (userHasGroupPermission(realm, user, group, 'can_manage_group')) return group;
  if (permission !== 'can_manage_group' && userHasGroupPermission(realm, user, group, permission)) return group;
  throw insufficientPermission();
}

/**
 * Joining or leaving oneself needs the join (leave) permission, or failing that the permission to
 * add (remove) anyone.
 */
export function groupForSelfChange(realm: RealmState, user: UserRecord, id: number, own: string, others: string): GroupRecord {
  try {
    return groupForUpdate(realm, user, id, own);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return groupForUpdate(realm, user, id, others);
  }
}

const usesGroup = (value: GroupSetting | undefined, id: number): boolean =>
  value !== undefined && (typeof value === 'number' ? value === id : value.direct_subgroups.includes(id));

/**
 * Where an active group is in use, as the reference lists its objections to deactivating it: as
 * a subgroup of an active group, and as (or inside the anonymous group of) a setting of a channel
 * that is not archived, of an active group, or of the realm.
 */
export function groupObjections(realm: RealmState, group: GroupRecord): Record<string, unknown>[] {
  const objections: Record<string, unknown>[] = [];
  const active = [...realm.groups.values()].filter((g) => !g.deactivated).sort((a, b) => a.id - b.id);
  const supergroups = active.filter((g) => g.subgroups.includes(group.id)).map((g) => g.id);
  if (supergroups.length > 0) objections.push({ type: 'subgroup', supergroup_ids: supergroups });
  for (const stream of [...realm.streams.values()].sort((a, b) => a.id - b.id)) {
    if (stream.isArchived) continue;
    const settings = CHANNEL_GROUP_SETTINGS.filter((name) => usesGroup(stream.groups[name], group.id));
    if (settings.length > 0) objections.push({ type: 'channel', channel_id: stream.id, settings });
  }
  for (const other of active) {
    const settings = Object.keys(GROUP_PERMISSION_SETTINGS).filter((name) => usesGroup(other.settings[name], group.id));
    if (settings.length > 0) objections.push({ type: 'user_group', group_id: other.id, settings });
  }
  const settings = Object.keys(REALM_GROUP_SETTINGS).filter((name) => usesGroup(realmGroupSetting(realm, name), group.id));
  if (settings.length > 0) objections.push({ type: 'realm', settings });
  return objections;
}

export function checkNotInUse(realm: RealmState, group: GroupRecord): void {
  const objections = groupObjections(realm, group);
  if (objections.length > 0) {
    throw new ApiError('Cannot deactivate user group in use.', { code: 'CANNOT_DEACTIVATE_GROUP_IN_USE', data: { objections } });
  }
}

const NAME_PREFIXES = ['@', 'role:', 'user:', 'stream:', 'channel:'];
export const MAX_GROUP_NAME_LENGTH = 100;

/** The reference's check_user_group_name, and the uniqueness its database enforces. */
export function checkGroupName(name: string): void {
  if (name.trim() === '') throw badRequest("User group name can't be empty!");
  if ([...name].length > MAX_GROUP_NAME_LENGTH) throw badRequest(`User group name cannot exceed ${MAX_GROUP_NAME_LENGTH} characters.`);
  const prefix = NAME_PREFIXES.find((p) => name.startsWith(p));
  if (prefix !== undefined) throw badRequest(`User group name cannot start with '${prefix}'.`);
}

export function checkNameFree(realm: RealmState, name: string): void {
  for (const group of realm.groups.values()) if (group.name === name) throw badRequest(`User group '${name}' already exists.`);
}

/** The reference's user_ids_to_users without deactivated users: the first unknown id fails. */
export function activeUsersByIds(realm: RealmState, ids: number[]): UserRecord[] {
  const out = new Map<number, UserRecord>();
  for (const id of ids) {
    const user = realm.users.get(id);
    if (!user || !user.isActive || user.isSystemBot) throw badRequest(`Invalid user ID: ${id}`);
    out.set(id, user);
  }
  return [...out.values()];
}

/** Groups named as subgroups: each must exist and be active. */
export function subgroupsByIds(realm: RealmState, ids: number[]): GroupRecord[] {
  const out = new Map<number, GroupRecord>();
  for (const id of ids) {
    const group = realm.groups.get(id);
    if (!group) throw badRequest(`Invalid user group ID: ${id}`);
    out.set(id, group);
  }
  for (const group of out.values()) if (group.deactivated) throw badRequest('User group is deactivated.');
  return [...out.values()];
}
