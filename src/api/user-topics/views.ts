import type { RealmState } from '../../model/realm-state.js';
import { VISIBILITY, type UserTopicRecord } from '../../model/user-topics.js';
import { shownTopic } from '../messages/views.js';

/**
 * A user's topic visibility as /register shows it: `user_topics`, and the legacy `muted_topics`
 * (channel name, topic, timestamp) for the muted ones. As the reference's get_user_topics,
 * topics of archived channels are left out. Without the empty_topic_name capability the empty
 * topic reads as the display name.
 */
function listed(realm: RealmState, userId: number): UserTopicRecord[] {
  return [...realm.userTopics.ofUser(userId)]
    .filter((r) => realm.streams.get(r.streamId)?.isArchived === false)
    .sort((a, b) => a.lastUpdated - b.lastUpdated || a.streamId - b.streamId || (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0));
}

export function userTopicView(record: UserTopicRecord, allowEmptyTopic: boolean): Record<string, unknown> {
  return {
    stream_id: record.streamId,
    topic_name: shownTopic(record.topic, allowEmptyTopic),
    visibility_policy: record.policy,
    last_updated: record.lastUpdated,
  };
}

export function userTopicsView(realm: RealmState, userId: number, allowEmptyTopic: boolean): Record<string, unknown>[] {
  return listed(realm, userId).map((r) => userTopicView(r, allowEmptyTopic));
}

/** The legacy muted_topics list: [channel name, topic, last updated] per muted topic. */
export function mutedTopicsView(realm: RealmState, userId: number, allowEmptyTopic = true): [string, string, number][] {
  return listed(realm, userId)
    .filter((r) => r.policy === VISIBILITY.muted)
    .map((r) => [realm.streams.get(r.streamId)!.name, shownTopic(r.topic, allowEmptyTopic), r.lastUpdated]);
}
