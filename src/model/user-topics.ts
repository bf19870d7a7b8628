import { topicKey } from './message.js';

/**
 * Per-user topic visibility (the reference's UserTopic): muted, unmuted or followed, per channel
 * and topic, matched case-insensitively. Only topics with a policy other than "none" have a
 * record, so a user's state is as small as what they configured; the shard keeps it all in
 * memory (RealmState.userTopics) because sends, unread counts and narrows consult it.
 */
export const VISIBILITY = { inherit: 0, muted: 1, unmuted: 2, followed: 3 } as const;
export type VisibilityPolicy = (typeof VISIBILITY)[keyof typeof VISIBILITY];
export const VISIBILITY_POLICIES: readonly number[] = Object.values(VISIBILITY);

/** Stored under [realmId, userId, streamId, topicKey] (store/shard-store.ts userTopics). */
export interface UserTopicRecord {
  userId: number;
  streamId: number;
  /** The topic as last set, in the case it was given. */
  topic: string;
  policy: VisibilityPolicy;
  /** Seconds. */
  lastUpdated: number;
}

const byTopicKey = (streamId: number, topic: string) => `${streamId}\u0000${topicKey(topic)}`;

export class UserTopics {
  /** userId -> streamId -> topicKey -> record. */
  private readonly byUser = new Map<number, Map<number, Map<string, UserTopicRecord>>>();
  /** stream and topic -> the users with a record for it: a topic move or deletion finds them directly. */
  private readonly byTopic = new Map<string, Set<number>>();

  get(userId: number, streamId: number, topic: string): UserTopicRecord | undefined {
    return this.byUser.get(userId)?.get(streamId)?.get(topicKey(topic));
  }

  policy(userId: number, streamId: number, topic: string): VisibilityPolicy {
    return this.get(userId, streamId, topic)?.policy ?? VISIBILITY.inherit;
  }

  set(record: UserTopicRecord): void {
    let streams = this.byUser.get(record.userId);
    if (!streams) this.byUser.set(record.userId, (streams = new Map()));
    let topics = streams.get(record.streamId);
    if (!topics) streams.set(record.streamId, (topics = new Map()));
    topics.set(topicKey(record.topic), record);
    const key = byTopicKey(record.streamId, record.topic);
    let users = this.byTopic.get(key);
    if (!users) this.byTopic.set(key, (users = new Set()));
    users.add(record.userId);
  }

  remove(userId: number, streamId: number, topic: string): void {
    const streams = this.byUser.get(userId);
    const topics = streams?.get(streamId);
    if (!topics?.delete(topicKey(topic))) return;
    if (topics.size === 0) streams!.delete(streamId);
    const key = byTopicKey(streamId, topic);
    const users = this.byTopic.get(key);
    users?.delete(userId);
    if (users?.size === 0) this.byTopic.delete(key);
  }

  /** Every record of a user. */
  *ofUser(userId: number): IterableIterator<UserTopicRecord> {
    for (const topics of this.byUser.get(userId)?.values() ?? []) yield* topics.values();
  }

  /** A user's records in one channel. */
  inStream(userId: number, streamId: number): Iterable<UserTopicRecord> {
    return this.byUser.get(userId)?.get(streamId)?.values() ?? [];
  }

  /** Every user's record for one topic. */
  ofTopic(streamId: number, topic: string): UserTopicRecord[] {
    const out: UserTopicRecord[] = [];
    for (const userId of this.byTopic.get(byTopicKey(streamId, topic)) ?? []) {
      const record = this.get(userId, streamId, topic);
      if (record) out.push(record);
    }
    return out;
  }
}

/**
 * The reference's is_row_muted: a topic is muted for a user when they muted it, or when its
 * channel is muted and they did not unmute or follow the topic. `channelMuted` is the user's
 * subscription's is_muted (false when not subscribed).
 */
export function isTopicMuted(topics: UserTopics, userId: number, streamId: number, topic: string, channelMuted: boolean): boolean {
  const policy = topics.policy(userId, streamId, topic);
  if (channelMuted) return policy !== VISIBILITY.unmuted && policy !== VISIBILITY.followed;
  return policy === VISIBILITY.muted;
}
