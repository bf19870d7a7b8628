import type { RealmState } from '../../model/realm-state.js';
import type { StreamRecord } from '../../model/types.js';
import { topicKey } from '../../model/message.js';
import { VISIBILITY, type UserTopicRecord, type VisibilityPolicy } from '../../model/user-topics.js';
import type { ShardEvent } from '../../shard/events.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { mutedTopicsView } from './views.js';

/**
 * Where a visibility change records its writes and events: the action's batch, and how its
 * events are queued (an Outbox's queueEvent, or batch.emit for the send path).
 */
export interface VisibilitySink {
  batch: WriteBatch;
  emit(event: ShardEvent, userIds: number[]): void;
}

export interface SetOptions {
  /** Seconds; default now. */
  now?: number;
  /**
   * Leave out the legacy muted_topics event, as the reference does when a move clears a topic
   * just before setting the new one (whose event carries the final list).
   */
  skipMutedTopicsEvent?: boolean;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * The reference's bulk_do_set_user_topic_visibility_policy: sets `policy` on one topic for each
 * user (0 removes the record). Users whose policy is already that get no write and no event; the
 * others get the legacy muted_topics event (their full list of muted topics) and user_topic.
 * Returns the ids of the users whose state changed.
 */
export function setTopicVisibility(
  shard: Shard,
  realm: RealmState,
  sink: VisibilitySink,
  userIds: Iterable<number>,
  stream: StreamRecord,
  topic: string,
  policy: VisibilityPolicy,
  opts: SetOptions = {},
): number[] {
  const now = opts.now ?? nowSeconds();
  const changed: number[] = [];
  for (const userId of new Set(userIds)) {
    const key = [realm.id, userId, stream.id, topicKey(topic)];
    const current = realm.userTopics.get(userId, stream.id, topic);
    if ((current?.policy ?? VISIBILITY.inherit) === policy) continue;
    if (policy === VISIBILITY.inherit) {
      realm.userTopics.remove(userId, stream.id, topic);
      sink.batch.del(shard.store.userTopics, key);
    } else {
      const record: UserTopicRecord = { userId, streamId: stream.id, topic, policy, lastUpdated: now };
      realm.userTopics.set(record);
      sink.batch.put(shard.store.userTopics, key, record);
    }
    changed.push(userId);
  }
  for (const userId of changed) {
    if (!opts.skipMutedTopicsEvent) sink.emit({ type: 'muted_topics', muted_topics: mutedTopicsView(realm, userId) }, [userId]);
    sink.emit({ type: 'user_topic', stream_id: stream.id, topic_name: topic, last_updated: now, visibility_policy: policy }, [userId]);
  }
  return changed;
}
