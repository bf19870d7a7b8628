import type { RealmState } from '../../model/realm-state.js';
import type { GroupRecord } from '../../model/types.js';
import type { ShardEvent } from '../../shard/events.js';

/**
 * user_group events. Every group is visible to every user of the realm (guests included, as in
 * the reference), so each event goes to all active users; what differs per client is whether it
 * keeps deactivated groups (the include_deactivated_groups capability), which `shapeGroupEvent`
 * decides per queue.
 */
export const groupAudience = (realm: RealmState): number[] => realm.activeUserIds();

export const membersEvent = (op: 'add_members' | 'remove_members', group: GroupRecord, userIds: number[]): ShardEvent => ({
  type: 'user_group',
  op,
  group_id: group.id,
  user_ids: userIds,
});

export const subgroupsEvent = (op: 'add_subgroups' | 'remove_subgroups', group: GroupRecord, ids: number[]): ShardEvent => ({
  type: 'user_group',
  op,
  group_id: group.id,
  direct_subgroup_ids: ids,
});

/**
 * A change of the group's own fields. A rename carries the group's deactivation as a marker
 * (`deactivated`, dropped before delivery), as the reference's event does, so that clients
 * without deactivated groups do not hear of a deactivated group's new name.
 */
export function updateEvent(group: GroupRecord, data: Record<string, unknown>): ShardEvent {
  const event: ShardEvent = { type: 'user_group', op: 'update', group_id: group.id, data };
  if ('name' in data) event.deactivated = group.deactivated;
  return event;
}

/**
 * One queue's copy of a user_group event. Deactivation is `update {deactivated: true}` for
 * clients that keep deactivated groups and `remove` for the others; a deactivated group's rename
 * reaches only the former.
 */
export function shapeGroupEvent(event: ShardEvent, includeDeactivated: boolean): ShardEvent[] {
  if (event.op === 'remove') return includeDeactivated ? [] : [event];
  if (event.op !== 'update') return [event];
  const data = event.data as Record<string, unknown>;
  if ('deactivated' in data && !includeDeactivated) return [];
  if (!('deactivated' in event)) return [event];
  const { deactivated, ...rest } = event;
  return deactivated === true && !includeDeactivated ? [] : [rest as ShardEvent];
}
