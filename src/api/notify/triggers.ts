import { notifyConfig } from '../../lib/config.js';
import { ACTIVE_PUSH, FLAG, INDEXED_FLAGS, type MessageRecord } from '../../model/message.js';
import { emailTrigger, mentionedGroups, notifiableIfIdle, notifiedByChannelSettings, notifyData, pushTrigger, type MessageFacts, type UserNotifyData } from '../../model/notifications.js';
import { flagBits, received, storedBits, writeBits } from '../../model/read-state.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import { VISIBILITY } from '../../model/user-topics.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { userSetting } from '../../model/user-settings.js';
import { receivedUserIds, rowUserIds } from '../messages/edit-audience.js';
import { updateHooks, type EditPlan } from '../messages/move.js';
import { sendHooks } from '../messages/send.js';
import { isIdle } from './idle.js';
import { recordNotice } from './notices.js';
import { scheduleRemoval } from './push/notify.js';
import { pushRegistration } from '../../model/push-registration.js';

/**
 * Where notifications of people who are away start: a send (the reference's process_message_event),
 * an edit that adds a mention (maybe_enqueue_notifications_for_message_update), and a move into a
 * topic someone follows. The rules are model/notifications.ts; this finds the people they apply
 * to, asks whether each is away (idle.ts) and records what they are owed (notices.ts), in the
 * transaction of the change.
 */

const facts = (msg: MessageRecord, disableExternal = false): MessageFacts => ({ senderId: msg.senderId, kind: msg.kind, streamId: msg.streamId, topic: msg.topic, disableExternal });

/** Whether anything could be sent at all: emails are on, or the server is registered for push. */
function anyChannel(shard: Shard): { email: boolean; push: boolean } {
  return { email: notifyConfig(shard.config).missedMessageEmails, push: pushRegistration(shard) !== null };
}

function hasDevice(shard: Shard, realm: RealmState, userId: number): boolean {
  for (const _ of shard.store.devices.getKeys({ start: [realm.id, userId], end: [realm.id, userId + 1], limit: 1 })) return true;
  return false;
}

/**
 * A user's notification data; the device lookup (a read) only for those the message would
 * notify were they away.
 */
function dataFor(shard: Shard, realm: RealmState, userId: number, bits: number, msg: MessageFacts, push: boolean, actingUserId: number): UserNotifyData | null {
  const d = notifyData(realm, userSetting, userId, bits, msg, push);
  if (!d || !notifiableIfIdle(d, actingUserId)) return null;
  if (!push || hasDevice(shard, realm, userId)) return d;
  const withoutPush = notifyData(realm, userSetting, userId, bits, msg, false);
  return withoutPush && notifiableIfIdle(withoutPush, actingUserId) ? withoutPush : null;
}

/**
 * Most recipients of a channel message are owed nothing, and this says so in a few lookups: no
 * mention, no follow, no email or push setting of their own for the channel.
 */
function quietFor(realm: RealmState, user: UserRecord | undefined, msg: MessageRecord, bits: number): boolean {
  if (!user || msg.kind !== 'stream' || bits !== 0) return false;
  const sub = realm.subscription(user.id, msg.streamId!);
  if (!sub || sub.emailNotifications === true || sub.pushNotifications === true) return !sub;
  if (userSetting(user, 'enable_stream_email_notifications') === true || userSetting(user, 'enable_stream_push_notifications') === true) return false;
  return realm.userTopics.policy(user.id, msg.streamId!, msg.topic) !== VISIBILITY.followed;
}

sendHooks.push((shard, batch, realm, msg, _rendered, info) => {
  const on = anyChannel(shard);
  if ((!on.email && !on.push) || info.disableExternalNotifications) return;
  const groups = mentionedGroups(realm, msg.mentions.users, msg.mentions.groups);
  const f = facts(msg);
  for (const userId of info.recipientIds) {
    const bits = info.flags.get(userId) ?? 0;
    if (userId === msg.senderId || quietFor(realm, realm.users.get(userId), msg, bits)) continue;
    const d = dataFor(shard, realm, userId, bits, f, on.push, msg.senderId);
    if (!d) continue;
    const idle = isIdle(shard, realm, userId);
    const email = emailTrigger(d, msg.senderId, idle);
    const push = pushTrigger(d, msg.senderId, idle);
    if (email || push) recordNotice(shard, batch, realm, userId, msg, { email, push, groupId: groups.get(userId) ?? null });
  }
});

const MENTION_BITS = INDEXED_FLAGS.mentioned;

updateHooks.push((shard, realm, actor, plan) => {
  const before = plan.msg;
  if (before.kind !== 'stream') return; // direct messages notified when sent
  const on = anyChannel(shard);
  if (!on.email && !on.push) return;
  const contentEdited = plan.content !== undefined;
  const moved = plan.topic !== undefined || plan.stream !== undefined;
  // What was true before the edit: who was mentioned, who followed the topic.
  const prior = contentEdited ? new Set(rowUserIds(shard, realm, before.id).filter((id) => storedBits(shard, realm, id, before.id) & MENTION_BITS)) : null;
  const followedBefore = moved ? followers(realm, before.streamId!, before.topic) : null;
  return (batch, target, changedIds) => {
    if (prior) afterContentEdit(shard, batch, realm, actor, target, prior, on.push);
    if (followedBefore) afterMove(shard, batch, realm, actor, plan, target, changedIds, followedBefore, on.push);
  };
});

function followers(realm: RealmState, streamId: number, topic: string): Set<number> {
  return new Set(realm.userTopics.ofTopic(streamId, topic).filter((r) => r.policy === VISIBILITY.followed).map((r) => r.userId));
}

/**
 * An edit that mentions someone not mentioned before notifies them as a send would, unless the
 * channel's settings told them of the message already. Those no longer mentioned lose its
 * mobile notification (do_update_mobile_push_notification).
 */
function afterContentEdit(shard: Shard, batch: WriteBatch, realm: RealmState, actor: UserRecord, target: MessageRecord, prior: Set<number>, push: boolean): void {
  const receivers = receivedUserIds(realm, target);
  const broad = target.mentions.stream || target.mentions.topic || target.mentions.groups.length > 0;
  const candidates = broad ? [...receivers] : target.mentions.users.filter((id) => receivers.has(id));
  const mentionedNow = new Set<number>();
  for (const userId of candidates) {
    const bits = storedBits(shard, realm, userId, target.id);
    if (!(bits & MENTION_BITS)) continue;
    mentionedNow.add(userId);
    if (prior.has(userId) || userId === actor.id) continue;
    const d = dataFor(shard, realm, userId, bits, facts(target), push, actor.id);
    if (!d || notifiedByChannelSettings(d)) continue;
    const idle = isIdle(shard, realm, userId);
    const email = emailTrigger(d, actor.id, idle);
    const pushed = pushTrigger(d, actor.id, idle);
    // The reference names no group for a mention an edit added.
    if (email || pushed) recordNotice(shard, batch, realm, userId, target, { email, push: pushed, groupId: null });
  }
  if (!push) return;
  for (const userId of prior) {
    if (mentionedNow.has(userId)) continue;
    const stored = storedBits(shard, realm, userId, target.id);
    if (!(stored & ACTIVE_PUSH)) continue;
    const d = notifyData(realm, userSetting, userId, stored, facts(target), true);
    if (d?.streamPush) continue;
    writeBits(shard, batch, realm, userId, target.id, stored, stored & ~ACTIVE_PUSH);
    scheduleRemoval(shard, batch, realm, userId, [target.id]);
  }
}

/** Of a move's messages, the newest this many still unread are notified to a new follower; one push, for the newest. */
const MOVED_NOTIFIED = 20;

/**
 * Messages moved into a topic someone follows, who did not follow where they came from, are
 * new to that conversation for them: the unread ones notify them as followed-topic messages
 * (an addition to the reference, whose moves notify nobody).
 */
function afterMove(shard: Shard, batch: WriteBatch, realm: RealmState, actor: UserRecord, plan: EditPlan, target: MessageRecord, changedIds: number[], followedBefore: Set<number>, push: boolean): void {
  const streamId = target.streamId!;
  if (streamId === plan.msg.streamId && target.topic.toLowerCase() === plan.msg.topic.toLowerCase()) return;
  const newFollowers = [...followers(realm, streamId, target.topic)].filter((id) => !followedBefore.has(id) && id !== actor.id);
  if (newFollowers.length === 0) return;
  const moved = changedIds.slice(-MOVED_NOTIFIED).flatMap((id) => shard.read<MessageRecord>(shard.store.messages, id) ?? []);
  for (const userId of newFollowers) {
    const unread = moved.filter((m) => received(realm, userId, m) && !(flagBits(shard, realm, userId, m) & FLAG.read));
    if (unread.length === 0) continue;
    const idle = isIdle(shard, realm, userId);
    unread.forEach((msg, i) => {
      const d = dataFor(shard, realm, userId, storedBits(shard, realm, userId, msg.id), facts(msg), push, actor.id);
      if (!d) return;
      const email = emailTrigger(d, actor.id, idle);
      const pushed = i === unread.length - 1 ? pushTrigger(d, actor.id, idle) : null;
      const groupId = mentionedGroups(realm, msg.mentions.users, msg.mentions.groups).get(userId) ?? null;
      if (email || pushed) recordNotice(shard, batch, realm, userId, msg, { email, push: pushed, groupId });
    });
  }
}
