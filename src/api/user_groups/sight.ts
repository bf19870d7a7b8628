import { recursiveSupergroupIds, settingGroupIds } from '../../model/groups.js';
import type { RealmState } from '../../model/realm-state.js';
import type { StreamRecord } from '../../model/types.js';
import type { Outbox } from '../../shard/outbox.js';
import { METADATA_SETTINGS, metadataUserIds } from '../streams/access.js';
import { queueSightChange } from '../streams/changes.js';

/**
 * Who can see a private channel follows group membership when one of its access settings
 * (can_subscribe_group, can_add_subscribers_group, can_administer_channel_group) names a group.
 * A membership change of group G can change that for every channel whose setting names G or a
 * group containing G, as in the reference's bulk_add_members_to_user_groups: users who gain
 * sight get stream create and the subscribers, users who lose it stream delete.
 *
 * `watch` records the audiences before the change, `send` compares them with those after it.
 * Realms whose channels name no user group in those settings pay one pass over the channels.
 */
export class ChannelSight {
  private constructor(
    private readonly realm: RealmState,
    private readonly before: Map<number, Set<number>>,
  ) {}

  static watch(realm: RealmState, changedGroupIds: Iterable<number>): ChannelSight | null {
    const affected = recursiveSupergroupIds(realm, changedGroupIds);
    const before = new Map<number, Set<number>>();
    for (const stream of realm.streams.values()) {
      if (namesAny(stream, affected)) before.set(stream.id, new Set(metadataUserIds(realm, stream)));
    }
    return before.size > 0 ? new ChannelSight(realm, before) : null;
  }

  send(out: Outbox): void {
    for (const [id, saw] of this.before) {
      const stream = this.realm.streams.get(id);
      if (!stream) continue;
      const sees = metadataUserIds(this.realm, stream);
      const gained = sees.filter((user) => !saw.has(user));
      const seesSet = new Set(sees);
      const lost = [...saw].filter((user) => !seesSet.has(user));
      queueSightChange(this.realm, out, stream, gained, lost);
    }
  }
}

function namesAny(stream: StreamRecord, groups: Set<number>): boolean {
  return METADATA_SETTINGS.some((name) => {
    const value = stream.groups[name];
    return value !== undefined && settingGroupIds(value).some((id) => groups.has(id));
  });
}
