import { recursiveMemberIds } from './groups.js';
import { FLAG } from './message.js';
import type { RealmState } from './realm-state.js';
import type { UserRecord } from './types.js';
import { VISIBILITY } from './user-topics.js';

/**
 * Who is told about a message by email or mobile push, and why: the reference's
 * UserMessageNotificationsData (zerver/lib/notification_data.py) and the settings sets that
 * get_recipient_info (zerver/actions/message_send.py) computes for it, as pure functions of a
 * realm's state. The send, edit and move paths (api/notify/triggers.ts) and a queue's garbage
 * collection (api/notify/gc.ts) ask the same questions here.
 *
 * Two questions are separate, as in the reference: what a user would be notified of were they
 * away (`notifyData`, then `emailTrigger` / `pushTrigger` with idle = true), and whether they
 * are away (api/notify/idle.ts). Alert words notify nobody by email or push: the reference
 * shows them only as desktop notifications, in its clients.
 */

/** The reference's NotificationTriggers, most salient first (the order the trigger functions test them in). */
export const TRIGGER = {
  directMessage: 'direct_message',
  mention: 'mentioned',
  topicWildcardInFollowed: 'topic_wildcard_mentioned_in_followed_topic',
  streamWildcardInFollowed: 'stream_wildcard_mentioned_in_followed_topic',
  topicWildcard: 'topic_wildcard_mentioned',
  streamWildcard: 'stream_wildcard_mentioned',
  followedTopicPush: 'followed_topic_push_notify',
  followedTopicEmail: 'followed_topic_email_notify',
  streamPush: 'stream_push_notify',
  streamEmail: 'stream_email_notify',
} as const;
export type Trigger = (typeof TRIGGER)[keyof typeof TRIGGER];

/** The triggers that a mention of some kind caused. */
export const MENTION_TRIGGERS: ReadonlySet<string> = new Set([TRIGGER.mention, TRIGGER.topicWildcard, TRIGGER.streamWildcard, TRIGGER.topicWildcardInFollowed, TRIGGER.streamWildcardInFollowed]);

/** A user's effective personal setting; the caller passes its accessor (model/user-settings.ts userSetting, or a test's). */
export type SettingOf = (user: UserRecord, name: string) => unknown;

/** One user's notification data for one message (the reference's dataclass, field for field). */
export interface UserNotifyData {
  userId: number;
  onlinePushEnabled: boolean;
  dmEmail: boolean;
  dmPush: boolean;
  mentionEmail: boolean;
  mentionPush: boolean;
  topicWildcardEmail: boolean;
  topicWildcardPush: boolean;
  streamWildcardEmail: boolean;
  streamWildcardPush: boolean;
  streamPush: boolean;
  streamEmail: boolean;
  followedTopicPush: boolean;
  followedTopicEmail: boolean;
  topicWildcardInFollowedPush: boolean;
  topicWildcardInFollowedEmail: boolean;
  streamWildcardInFollowedPush: boolean;
  streamWildcardInFollowedEmail: boolean;
  senderMuted: boolean;
  disableExternal: boolean;
}

/** What of a message the rules look at. */
export interface MessageFacts {
  senderId: number;
  kind: 'stream' | 'direct';
  streamId: number | null;
  topic: string;
  /** The Welcome Bot's messages, meant to be read in the app (the reference's disable_external_notifications). */
  disableExternal?: boolean;
}

/**
 * user_allows_notifications_in_StreamTopic: the topic's visibility policy first, then the
 * channel's own setting (null: inherit), then the user's global one.
 */
export function allowsInTopic(streamMuted: boolean, policy: number, streamSetting: boolean | null | undefined, globalSetting: boolean): boolean {
  if (streamMuted && policy !== VISIBILITY.unmuted) return false;
  if (policy === VISIBILITY.muted) return false;
  if (streamSetting !== null && streamSetting !== undefined) return streamSetting;
  return globalSetting;
}

/**
 * The notification data of `userId` for a message they received, from their flag bits for it
 * (model/message.ts FLAG: mentions, wildcard mentions) and the realm's state. Null for those
 * never notified: bots, deactivated users, users not subscribed to the channel.
 * `hasPushDevice`: whether the user has registered a device (without one, nothing is pushed).
 */
export function notifyData(realm: RealmState, setting: SettingOf, userId: number, bits: number, msg: MessageFacts, hasPushDevice: boolean): UserNotifyData | null {
  const user = realm.users.get(userId);
  if (!user || !user.isActive || user.isBot) return null;
  const on = (name: string) => setting(user, name) === true;
  const emailOff = !on('enable_offline_email_notifications');
  const pushOff = !on('enable_offline_push_notifications');
  const mentioned = (bits & FLAG.mentioned) !== 0;
  const topicWildcard = (bits & FLAG.topic_wildcard_mentioned) !== 0;
  const streamWildcard = (bits & FLAG.stream_wildcard_mentioned) !== 0;
  const dm = msg.kind === 'direct';

  let streamPush = false;
  let streamEmail = false;
  let wildcardNotify = false;
  let followedPush = false;
  let followedEmail = false;
  let followedWildcard = false;
  if (!dm) {
    const sub = realm.subscription(userId, msg.streamId!);
    if (!sub) return null;
    const policy = realm.userTopics.policy(userId, msg.streamId!, msg.topic);
    streamPush = allowsInTopic(sub.isMuted, policy, sub.pushNotifications, on('enable_stream_push_notifications'));
    streamEmail = allowsInTopic(sub.isMuted, policy, sub.emailNotifications, on('enable_stream_email_notifications'));
    wildcardNotify = allowsInTopic(sub.isMuted, policy, sub.wildcardMentionsNotify, on('wildcard_mentions_notify'));
    if (policy === VISIBILITY.followed) {
      followedPush = on('enable_followed_topic_push_notifications');
      followedEmail = on('enable_followed_topic_email_notifications');
      followedWildcard = on('enable_followed_topic_wildcard_mentions_notify');
    }
  }
  const push = hasPushDevice;
  return {
    userId,
    onlinePushEnabled: push && on('enable_online_push_notifications'),
    dmEmail: dm && !emailOff,
    dmPush: push && dm && !pushOff,
    mentionEmail: mentioned && !emailOff,
    mentionPush: push && mentioned && !pushOff,
    topicWildcardEmail: topicWildcard && wildcardNotify && !emailOff,
    topicWildcardPush: push && topicWildcard && wildcardNotify && !pushOff,
    streamWildcardEmail: streamWildcard && wildcardNotify && !emailOff,
    streamWildcardPush: push && streamWildcard && wildcardNotify && !pushOff,
    streamPush: push && streamPush,
    streamEmail,
    followedTopicPush: push && followedPush,
    followedTopicEmail: followedEmail,
    topicWildcardInFollowedPush: push && topicWildcard && followedWildcard && !pushOff,
    topicWildcardInFollowedEmail: topicWildcard && followedWildcard && !emailOff,
    streamWildcardInFollowedPush: push && streamWildcard && followedWildcard && !pushOff,
    streamWildcardInFollowedEmail: streamWildcard && followedWildcard && !emailOff,
    senderMuted: realm.people.mutesOf(userId).has(msg.senderId),
    disableExternal: msg.disableExternal === true,
  };
}

/** trivially_should_not_notify: one's own messages, muted senders, messages meant for the app. */
function triviallyNot(d: UserNotifyData, actingUserId: number): boolean {
  return d.userId === actingUserId || d.senderMuted || d.disableExternal;
}

/**
 * The reference's NotificationData.get_push_notification_trigger and
 * get_email_notification_trigger test the same kinds of cause in the same order, most salient
 * first (a mention in a channel one also hears in full is told as a mention), each through its
 * medium's own field; one table keeps the two orders from drifting apart. The last two rows
 * name a trigger per medium, as the reference's do.
 */
type Flag = { [K in keyof UserNotifyData]: UserNotifyData[K] extends boolean ? K : never }[keyof UserNotifyData];
const TRIGGER_ORDER: readonly { push: [Flag, Trigger]; email: [Flag, Trigger] }[] = [
  { push: ['dmPush', TRIGGER.directMessage], email: ['dmEmail', TRIGGER.directMessage] },
  { push: ['mentionPush', TRIGGER.mention], email: ['mentionEmail', TRIGGER.mention] },
  { push: ['topicWildcardInFollowedPush', TRIGGER.topicWildcardInFollowed], email: ['topicWildcardInFollowedEmail', TRIGGER.topicWildcardInFollowed] },
  { push: ['streamWildcardInFollowedPush', TRIGGER.streamWildcardInFollowed], email: ['streamWildcardInFollowedEmail', TRIGGER.streamWildcardInFollowed] },
  { push: ['topicWildcardPush', TRIGGER.topicWildcard], email: ['topicWildcardEmail', TRIGGER.topicWildcard] },
  { push: ['streamWildcardPush', TRIGGER.streamWildcard], email: ['streamWildcardEmail', TRIGGER.streamWildcard] },
  { push: ['followedTopicPush', TRIGGER.followedTopicPush], email: ['followedTopicEmail', TRIGGER.followedTopicEmail] },
  { push: ['streamPush', TRIGGER.streamPush], email: ['streamEmail', TRIGGER.streamEmail] },
];

function firstTrigger(d: UserNotifyData, medium: 'push' | 'email'): Trigger | null {
  for (const row of TRIGGER_ORDER) {
    const [flag, trigger] = row[medium];
    if (d[flag]) return trigger;
  }
  return null;
}

/** get_push_notification_trigger: pushes go to away users, or to anyone with online push on. */
export function pushTrigger(d: UserNotifyData, actingUserId: number, idle: boolean): Trigger | null {
  if (!idle && !d.onlinePushEnabled) return null;
  if (triviallyNot(d, actingUserId)) return null;
  return firstTrigger(d, 'push');
}

/** get_email_notification_trigger: emails go to away users only. */
export function emailTrigger(d: UserNotifyData, actingUserId: number, idle: boolean): Trigger | null {
  if (!idle) return null;
  if (triviallyNot(d, actingUserId)) return null;
  return firstTrigger(d, 'email');
}

/** Whether the message would notify the user were they away: only then does their presence matter. */
export function notifiableIfIdle(d: UserNotifyData, actingUserId: number): boolean {
  return emailTrigger(d, actingUserId, true) !== null || pushTrigger(d, actingUserId, true) !== null;
}

/** Whether a channel-wide setting already told the user of the message (an edit adds no second notice). */
export function notifiedByChannelSettings(d: UserNotifyData): boolean {
  return d.streamPush || d.streamEmail || d.followedTopicPush || d.followedTopicEmail;
}

/**
 * get_user_group_mentions_data for one message: for each member reached only through group
 * mentions (not by name), the mentioned group with the fewest members, which the notification
 * names ("@backend was mentioned").
 */
export function mentionedGroups(realm: RealmState, userIds: readonly number[], groupIds: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  if (groupIds.length === 0) return out;
  const byName = new Set(userIds);
  const sizes = new Map<number, number>();
  for (const groupId of groupIds) {
    const members = recursiveMemberIds(realm, [groupId]);
    sizes.set(groupId, members.size);
    for (const member of members) {
      if (byName.has(member)) continue;
      const previous = out.get(member);
      if (previous === undefined || sizes.get(previous)! > members.size) out.set(member, groupId);
    }
  }
  return out;
}
