import { badRequest } from '../../lib/errors.js';
import { GROUP_PERMISSION_SETTINGS, recursiveSubgroupIds } from '../../model/groups.js';
import type { RealmState } from '../../model/realm-state.js';
import { groupSettingForApi } from '../../model/realm-settings.js';
import type { GroupRecord, GroupSetting, UserRecord } from '../../model/types.js';
import { flush, outbox, queueEvent, type Outbox } from '../../shard/outbox.js';
import type { Shard } from '../../shard/shard.js';
import { activeUsersByIds, groupForSelfChange, groupForUpdate, subgroupsByIds } from './access.js';
import { groupAudience, membersEvent, subgroupsEvent, updateEvent } from './events.js';
import { ChannelSight } from './sight.js';
import { activeDirectMembers, groupView } from './views.js';

/**
 * User group do-actions. Each changes the realm's in-memory groups at once (records are
 * replaced, never edited in place), writes the group record and queues the reference's events
 * in one transaction.
 */

function saveGroup(shard: Shard, realm: RealmState, out: Outbox, group: GroupRecord): void {
  realm.setGroup(group);
  out.batch.put(shard.store.groups, [realm.id, group.id], group);
}

/** A setting's value for a new group: the requested one, else the default ('group_creator': the creator alone). */
function defaultSetting(realm: RealmState, name: string, creator: UserRecord): GroupSetting {
  const group = GROUP_PERMISSION_SETTINGS[name].defaultGroup;
  return group === 'group_creator' ? { direct_members: [creator.id], direct_subgroups: [] } : realm.systemGroupId(group);
}

export interface CreateSpec {
  name: string;
  description: string;
  members: UserRecord[];
  subgroups: GroupRecord[];
  settings: Record<string, GroupSetting>;
}

/**
 * Creates a group. As the reference does, clients hear of it in two steps: user_group add with
 * its members, then add_subgroups for the subgroups it was created with.
 */
export async function doCreateGroup(shard: Shard, realm: RealmState, creator: UserRecord, spec: CreateSpec): Promise<GroupRecord> {
  const out = outbox(shard);
  const settings: Record<string, GroupSetting> = {};
  for (const name of Object.keys(GROUP_PERMISSION_SETTINGS)) settings[name] = spec.settings[name] ?? defaultSetting(realm, name, creator);
  const group: GroupRecord = {
    id: shard.allocate(out.batch, 'group'),
    name: spec.name,
    description: spec.description,
    isSystemGroup: false,
    members: spec.members.map((u) => u.id).sort((a, b) => a - b),
    subgroups: [],
    dateCreated: Math.floor(Date.now() / 1000),
    creatorId: creator.id,
    deactivated: false,
    settings,
  };
  saveGroup(shard, realm, out, group);
  queueEvent(out, { type: 'user_group', op: 'add', group: groupView(realm, group) }, groupAudience(realm));
  if (spec.subgroups.length > 0) {
    const ids = spec.subgroups.map((g) => g.id);
    saveGroup(shard, realm, out, { ...group, subgroups: [...ids].sort((a, b) => a - b) });
    queueEvent(out, subgroupsEvent('add_subgroups', group, ids), groupAudience(realm));
  }
  await flush(shard, realm, out);
  return realm.groups.get(group.id)!;
}

export interface GroupUpdate {
  name?: string;
  description?: string;
  settings: [string, GroupSetting][];
}

/** Renames, redescribes and resets permission settings: one update event per changed field. */
export async function doUpdateGroup(shard: Shard, realm: RealmState, group: GroupRecord, update: GroupUpdate): Promise<void> {
  if (update.name === undefined && update.description === undefined && update.settings.length === 0) return;
  const out = outbox(shard);
  const next: GroupRecord = { ...group, settings: { ...group.settings } };
  if (update.name !== undefined) next.name = update.name;
  if (update.description !== undefined) next.description = update.description;
  for (const [name, value] of update.settings) next.settings[name] = value;
  saveGroup(shard, realm, out, next);
  const audience = groupAudience(realm);
  if (update.name !== undefined) queueEvent(out, updateEvent(next, { name: update.name }), audience);
  if (update.description !== undefined) queueEvent(out, updateEvent(next, { description: update.description }), audience);
  for (const [name, value] of update.settings) queueEvent(out, updateEvent(next, { [name]: groupSettingForApi(realm, value) }), audience);
  await flush(shard, realm, out);
}

/**
 * Deactivates a group the caller checked is in use nowhere. Clients that keep deactivated
 * groups get update {deactivated: true}, the others remove (events.ts shapes it per queue).
 */
export async function doDeactivateGroup(shard: Shard, realm: RealmState, group: GroupRecord): Promise<void> {
  const out = outbox(shard);
  const next = { ...group, deactivated: true };
  saveGroup(shard, realm, out, next);
  const audience = groupAudience(realm);
  queueEvent(out, updateEvent(next, { deactivated: true }), audience);
  queueEvent(out, { type: 'user_group', op: 'remove', group_id: group.id }, audience);
  await flush(shard, realm, out);
}

export interface MembershipChange {
  group: GroupRecord;
  add: UserRecord[];
  remove: UserRecord[];
  addSubgroups: GroupRecord[];
  removeSubgroups: GroupRecord[];
}

export interface MembershipRequest {
  add?: number[];
  delete?: number[];
  add_subgroups?: number[];
  delete_subgroups?: number[];
}

const dedupe = (ids: number[] | undefined): number[] => [...new Set(ids ?? [])];

/**
 * The checks of POST /user_groups/{id}/members (and /subgroups), in the reference's order: each
 * part (add, delete, add_subgroups, delete_subgroups) checks the permission it needs and its
 * ids against the group as the earlier parts leave it, so the whole request applies or none.
 */
export function checkMembershipChange(realm: RealmState, actor: UserRecord, groupId: number, req: MembershipRequest): MembershipChange {
  const add = dedupe(req.add);
  const remove = dedupe(req.delete);
  const addSubgroups = dedupe(req.add_subgroups);
  const removeSubgroups = dedupe(req.delete_subgroups);
  let group: GroupRecord | undefined;
  const members = new Set<number>();
  const subgroups = new Set<number>();
  const load = (g: GroupRecord) => {
    if (group) return;
    group = g;
    for (const id of activeDirectMembers(realm, g)) members.add(id);
    for (const id of g.subgroups) subgroups.add(id);
  };
  const change: Omit<MembershipChange, 'group'> = { add: [], remove: [], addSubgroups: [], removeSubgroups: [] };

  if (add.length > 0) {
    load(add.length === 1 && add[0] === actor.id
      ? groupForSelfChange(realm, actor, groupId, 'can_join_group', 'can_add_members_group')
      : groupForUpdate(realm, actor, groupId, 'can_add_members_group'));
    change.add = activeUsersByIds(realm, add);
    for (const user of change.add) if (members.has(user.id)) throw badRequest(`User ${user.id} is already a member of this group`);
    for (const user of change.add) members.add(user.id);
  }
  if (remove.length > 0) {
    change.remove = activeUsersByIds(realm, remove);
    load(remove.length === 1 && remove[0] === actor.id
      ? groupForSelfChange(realm, actor, groupId, 'can_leave_group', 'can_remove_members_group')
      : groupForUpdate(realm, actor, groupId, 'can_remove_members_group'));
    for (const id of remove) if (!members.has(id)) throw badRequest(`There is no member '${id}' in this user group`);
    for (const id of remove) members.delete(id);
  }
  if (addSubgroups.length > 0) {
    load(groupForUpdate(realm, actor, groupId, 'can_add_members_group'));
    change.addSubgroups = subgroupsByIds(realm, addSubgroups);
    for (const sub of change.addSubgroups) if (subgroups.has(sub.id)) throw badRequest(`User group ${sub.id} is already a subgroup of this group.`);
    // A cycle: the group would contain a group that already contains it (or itself).
    if (recursiveSubgroupIds(realm, addSubgroups).has(groupId)) {
      throw badRequest(`User group ${groupId} is already a subgroup of one of the passed subgroups.`);
    }
    for (const id of addSubgroups) subgroups.add(id);
  }
  if (removeSubgroups.length > 0) {
    load(groupForUpdate(realm, actor, groupId, 'can_manage_group'));
    change.removeSubgroups = subgroupsByIds(realm, removeSubgroups);
    for (const sub of change.removeSubgroups) if (!subgroups.has(sub.id)) throw badRequest(`User group ${sub.id} is not a subgroup of this group.`);
    for (const id of removeSubgroups) subgroups.delete(id);
  }
  return { group: group!, ...change };
}

/**
 * Applies a checked membership change: the group record, the user_group events in the order of
 * the request's parts, and stream create/delete for whoever gains or loses sight of a private
 * channel whose access settings name the group (sight.ts). Deactivated users keep their stored
 * membership, as the reference keeps it: they reappear if reactivated.
 */
export async function doChangeMembership(shard: Shard, realm: RealmState, change: MembershipChange): Promise<void> {
  const { group } = change;
  const sight = ChannelSight.watch(realm, [group.id]);
  const out = outbox(shard);
  const members = new Set(group.members);
  for (const user of change.add) members.add(user.id);
  for (const user of change.remove) members.delete(user.id);
  const subgroups = new Set(group.subgroups);
  for (const sub of change.addSubgroups) subgroups.add(sub.id);
  for (const sub of change.removeSubgroups) subgroups.delete(sub.id);
  saveGroup(shard, realm, out, {
    ...group,
    members: [...members].sort((a, b) => a - b),
    subgroups: [...subgroups].sort((a, b) => a - b),
  });
  const audience = groupAudience(realm);
  const ids = <T extends { id: number }>(list: T[]) => list.map((x) => x.id);
  if (change.add.length > 0) queueEvent(out, membersEvent('add_members', group, ids(change.add)), audience);
  if (change.remove.length > 0) queueEvent(out, membersEvent('remove_members', group, ids(change.remove)), audience);
  if (change.addSubgroups.length > 0) queueEvent(out, subgroupsEvent('add_subgroups', group, ids(change.addSubgroups)), audience);
  if (change.removeSubgroups.length > 0) queueEvent(out, subgroupsEvent('remove_subgroups', group, ids(change.removeSubgroups)), audience);
  sight?.send(out);
  await flush(shard, realm, out);
}

/**
 * For other actions that put a user in groups (an invitation's group_ids): checks that the actor
 * may add members to each group, the reference's access_user_group_for_update with
 * can_add_members_group. Returns the groups.
 */
export function checkCanAddToGroups(realm: RealmState, actor: UserRecord, groupIds: number[]): GroupRecord[] {
  return dedupe(groupIds).map((id) => groupForUpdate(realm, actor, id, 'can_add_members_group'));
}

/**
 * Adds one user to several groups (already checked), as the reference's
 * bulk_add_members_to_user_groups does for a new user: add_members for each group the user was
 * not yet in, and the channel sight that follows.
 */
export async function doAddUserToGroups(shard: Shard, realm: RealmState, user: UserRecord, groups: GroupRecord[]): Promise<void> {
  const out = outbox(shard);
  addUserToGroups(shard, realm, out, user, groups);
  await flush(shard, realm, out);
}

/**
 * doAddUserToGroups within another action's transaction (a new account joining through an
 * invitation). Groups deactivated since they were checked are left out.
 */
export function addUserToGroups(shard: Shard, realm: RealmState, out: Outbox, user: UserRecord, groups: GroupRecord[]): void {
  const joining = groups.map((g) => realm.groups.get(g.id)).filter((g): g is GroupRecord => !!g && !g.deactivated && !g.members.includes(user.id));
  if (joining.length === 0) return;
  const sight = ChannelSight.watch(realm, joining.map((g) => g.id));
  for (const group of joining) {
    saveGroup(shard, realm, out, { ...group, members: [...group.members, user.id].sort((a, b) => a - b) });
    queueEvent(out, membersEvent('add_members', group, [user.id]), groupAudience(realm));
  }
  sight?.send(out);
}
