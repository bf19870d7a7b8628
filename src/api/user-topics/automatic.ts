import type { RealmState } from '../../model/realm-state.js';
import { topicKey } from '../../model/message.js';
import { VISIBILITY, type VisibilityPolicy } from '../../model/user-topics.js';
import type { StreamRecord, UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { idsUnder } from '../../store/messages.js';
import { topicIds } from '../../store/topic-ids.js';
import { userSetting } from '../../model/user-settings.js';
import { hasContentAccess } from '../streams/access.js';
import { setTopicVisibility, type VisibilitySink } from './actions.js';

/**
 * The automatic visibility policies of a send, after the reference's message_send.py:
 *
 * - the sender's automatically_follow_topics_policy and
 *   automatically_unmute_topics_in_muted_streams_policy may follow (or, in a muted channel,
 *   unmute) the topic: 1 when they participate, 2 when they send, 3 when they start the topic;
 *   they only ever raise its visibility, and following wins over unmuting;
 * - users mentioned by name or through a group who have automatically_follow_topics_where_mentioned
 *   follow it, unless they muted or already follow it.
 *
 * The cost is bounded by the sender and the users mentioned, never by the channel's size: one
 * lookup in memory, and for "topics the user starts" the topic's oldest id (store/topic-ids.ts).
 */
const ON_PARTICIPATION = 1;
const ON_SEND = 2;
const ON_INITIATION = 3;
const NEVER = 4;

/** Whether the topic had a message the sender could see before message `msgId`. */
function topicHadMessages(shard: Shard, realm: RealmState, sender: UserRecord, stream: StreamRecord, topic: string, msgId: number): boolean {
  const prefix: [number, number, string] = [realm.id, stream.id, topicKey(topic)];
  if (stream.historyPublicToSubscribers && hasContentAccess(realm, sender, stream)) return topicIds(shard.store.byTopic).hasBelow(prefix, msgId, shard.damage);
  // Protected history: only what the sender received counts, so the answer reveals nothing of
  // the messages before they joined.
  for (const [first, last] of realm.intervals(sender.id, stream.id)) {
    const max = Math.min(last ?? Number.MAX_SAFE_INTEGER, msgId - 1);
    if (first <= max && [...idsUnder(shard.store.byTopic, prefix, { min: first, max, limit: 1 })].length > 0) return true;
  }
  return false;
}

/**
 * The reference's visibility_policy_for_send_message: the sender's new policy for the topic, or
 * null when their settings leave it as it is.
 */
export function senderPolicyOnSend(shard: Shard, realm: RealmState, sender: UserRecord, stream: StreamRecord, topic: string, msgId: number): VisibilityPolicy | null {
  if (sender.isBot) return null;
  const follow = userSetting(sender, 'automatically_follow_topics_policy');
  const unmute = userSetting(sender, 'automatically_unmute_topics_in_muted_streams_policy');
  if (follow === NEVER && unmute === NEVER) return null;
  const current = realm.userTopics.policy(sender.id, stream.id, topic);
  if (current === VISIBILITY.followed) return null;
  const channelMuted = realm.subscription(sender.id, stream.id)?.isMuted === true;
  // Sending a message is both participating and sending.
  if (follow === ON_PARTICIPATION || follow === ON_SEND) return VISIBILITY.followed;
  let policy: VisibilityPolicy | null = channelMuted && (unmute === ON_PARTICIPATION || unmute === ON_SEND) ? VISIBILITY.unmuted : null;
  if (current !== VISIBILITY.inherit) return policy === current ? null : policy;
  const starts = (follow === ON_INITIATION || (channelMuted && unmute === ON_INITIATION)) && !topicHadMessages(shard, realm, sender, stream, topic, msgId);
  if (starts && follow === ON_INITIATION) return VISIBILITY.followed;
  if (starts && channelMuted && unmute === ON_INITIATION) policy = VISIBILITY.unmuted;
  return policy;
}

/**
 * Applies both automatic policies for a channel message about to be sent, recording their
 * writes and user_topic events (which clients receive before the message). `mentioned`: the
 * recipients mentioned by name or through a group. Returns the sender's new policy, for the
 * send response's automatic_new_visibility_policy.
 */
export function applySendVisibility(
  shard: Shard,
  realm: RealmState,
  sink: VisibilitySink,
  sender: UserRecord,
  stream: StreamRecord,
  topic: string,
  msgId: number,
  mentioned: Iterable<number>,
): VisibilityPolicy | null {
  const policy = senderPolicyOnSend(shard, realm, sender, stream, topic, msgId);
  if (policy !== null) setTopicVisibility(shard, realm, sink, [sender.id], stream, topic, policy);
  const followers: number[] = [];
  for (const userId of mentioned) {
    const user = realm.users.get(userId);
    if (!user || user.isBot || !user.isActive || userSetting(user, 'automatically_follow_topics_where_mentioned') !== true) continue;
    // An explicit mute wins over this setting.
    const current = realm.userTopics.policy(userId, stream.id, topic);
    if (current !== VISIBILITY.muted && current !== VISIBILITY.followed) followers.push(userId);
  }
  if (followers.length > 0) setTopicVisibility(shard, realm, sink, followers, stream, topic, VISIBILITY.followed);
  return policy;
}

/**
 * The reference's apply_automatic_unmute_follow_topics_policy: a message moved so that it starts
 * a topic counts as its sender starting that topic.
 */
export function applyInitiationPolicy(shard: Shard, realm: RealmState, sink: VisibilitySink, sender: UserRecord, stream: StreamRecord, topic: string): void {
  if (sender.isBot) return;
  let policy: VisibilityPolicy;
  if (userSetting(sender, 'automatically_follow_topics_policy') === ON_INITIATION) policy = VISIBILITY.followed;
  else if (userSetting(sender, 'automatically_unmute_topics_in_muted_streams_policy') === ON_INITIATION && realm.subscription(sender.id, stream.id)?.isMuted) {
    policy = VISIBILITY.unmuted;
  } else return;
  // These policies only raise visibility: a followed topic stays followed.
  if (realm.userTopics.policy(sender.id, stream.id, topic) === VISIBILITY.followed) return;
  setTopicVisibility(shard, realm, sink, [sender.id], stream, topic, policy);
}

/**
 * Reacting to a channel message is participating in its topic (the reference's do_add_reaction):
 * a subscriber whose settings follow or unmute on participation gets that policy, unless the
 * topic is already followed.
 */
export function applyParticipationPolicy(shard: Shard, realm: RealmState, sink: VisibilitySink, user: UserRecord, stream: StreamRecord, topic: string): void {
  if (user.isBot) return;
  const sub = realm.subscription(user.id, stream.id);
  if (!sub) return;
  let policy: VisibilityPolicy | null = null;
  if (userSetting(user, 'automatically_follow_topics_policy') === ON_PARTICIPATION) policy = VISIBILITY.followed;
  else if (sub.isMuted && userSetting(user, 'automatically_unmute_topics_in_muted_streams_policy') === ON_PARTICIPATION) policy = VISIBILITY.unmuted;
  if (policy === null || realm.userTopics.policy(user.id, stream.id, topic) === VISIBILITY.followed) return;
  setTopicVisibility(shard, realm, sink, [user.id], stream, topic, policy);
}
