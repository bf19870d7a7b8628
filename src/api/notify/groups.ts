import { groupDisplayName, recursiveMemberIds } from '../../model/groups.js';
import { TRIGGER, type Trigger } from '../../model/notifications.js';
import type { RealmState } from '../../model/realm-state.js';

/**
 * get_mentioned_user_group: the group a notification names ("@backend was mentioned"), over the
 * messages it is about: none when a message mentions the person by name, else the smallest of
 * the groups that reached them.
 */
export function smallestMentionedGroup(realm: RealmState, items: readonly { trigger: Trigger; groupId: number | null }[]): { id: number; name: string } | null {
  if (items.some((i) => i.groupId === null && i.trigger === TRIGGER.mention)) return null;
  let best: { id: number; name: string; size: number } | null = null;
  for (const id of new Set(items.flatMap((i) => (i.groupId === null ? [] : [i.groupId])))) {
    const group = realm.groups.get(id);
    if (!group) continue;
    const size = recursiveMemberIds(realm, [id]).size;
    if (!best || size < best.size) best = { id, name: groupDisplayName(group), size };
  }
  return best && { id: best.id, name: best.name };
}
