import type { MessageRecord } from '../../model/message.js';
import type { RealmState } from '../../model/realm-state.js';
import { isTopicMuted, VISIBILITY } from '../../model/user-topics.js';

/**
 * Whether a message is muted for a user (the reference's is_row_muted): a channel message in a
 * muted topic, or in a muted channel unless its topic is unmuted or followed. Direct messages
 * never are. Muted messages arrive and stay unread like any other; they leave the unread count,
 * wildcard mentions in them are not mentions, and in:home / is:muted narrows sort them out.
 */
export function isMessageMuted(realm: RealmState, userId: number, msg: MessageRecord): boolean {
  if (msg.kind !== 'stream') return false;
  const channelMuted = realm.subscription(userId, msg.streamId!)?.isMuted === true;
  return isTopicMuted(realm.userTopics, userId, msg.streamId!, msg.topic, channelMuted);
}

/** Only the topic's own mute, as views narrowed to one channel apply it (channel muting aside). */
export function isTopicMutedByUser(realm: RealmState, userId: number, msg: MessageRecord): boolean {
  return msg.kind === 'stream' && realm.userTopics.policy(userId, msg.streamId!, msg.topic) === VISIBILITY.muted;
}

export function isTopicFollowed(realm: RealmState, userId: number, msg: MessageRecord): boolean {
  return msg.kind === 'stream' && realm.userTopics.policy(userId, msg.streamId!, msg.topic) === VISIBILITY.followed;
}
