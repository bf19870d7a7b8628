import { badRequest } from '../../lib/errors.js';
import { recursiveMemberIds, userHasGroupPermission } from '../../model/groups.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';

/**
 * Group mentions in messages, after the reference's check_user_group_mention_allowed: a
 * (non-silent) mention of a group needs its can_mention_group, unless that is role:everyone.
 * System bots may mention only those groups. Silent mentions are not checked: they notify nobody.
 */
export function checkGroupMentions(realm: RealmState, sender: UserRecord, groupIds: number[]): void {
  const everyone = realm.systemGroupId('role:everyone');
  for (const id of groupIds) {
    const group = realm.groups.get(id);
    if (!group || group.settings.can_mention_group === everyone) continue;
    if (sender.isSystemBot || !userHasGroupPermission(realm, sender, group, 'can_mention_group')) {
      throw badRequest(`You are not allowed to mention user group '${group.name}'.`);
    }
  }
}

/**
 * Everyone a message's group mentions reach: the active members of the groups and of their
 * subgroups, the sender included when a member. Each gets the `mentioned` flag, as a mention by
 * name gives it (one sparse flag row per member who received the message).
 */
export function groupMentionedUserIds(realm: RealmState, groupIds: number[]): Set<number> {
  return groupIds.length === 0 ? new Set() : recursiveMemberIds(realm, groupIds);
}
