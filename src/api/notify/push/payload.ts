import { EMPTY_TOPIC_DISPLAY_NAME, type MessageRecord } from '../../../model/message.js';
import { TRIGGER, type Trigger } from '../../../model/notifications.js';
import type { RealmState } from '../../../model/realm-state.js';
import type { UserRecord } from '../../../model/types.js';
import { canAccessUser } from '../../../model/user-access.js';
import type { Shard } from '../../../shard/shard.js';
import { UNKNOWN_USER_NAME } from '../../users/views.js';
import { absoluteAvatarUrl } from '../email-frame.js';
import { pushText, truncatePushText } from '../email-html.js';

/**
 * What a phone receives, in the shapes the reference's mobile apps read (the legacy, not
 * end-to-end encrypted, payloads of zerver/lib/push_notifications.py at this feature level):
 * one payload for APNs (iOS) and one for FCM (Android), only for the kinds of device the person
 * has. The service forwards them as they are.
 */
export interface Payloads {
  apns: Record<string, unknown>;
  gcm: Record<string, unknown>;
  gcmOptions: Record<string, unknown>;
}

/** get_base_payload: what lets an app logged in to several servers and organizations tell them apart. */
function basePayload(shard: Shard, realm: RealmState, user: UserRecord): Record<string, unknown> {
  return { server: shard.config.externalHost, realm_id: realm.id, realm_uri: realm.url, realm_url: realm.url, realm_name: realm.realm.name, user_id: user.id };
}

/** iOS apps do without these (remove_obsolete_fields_apns). */
function forApns(payload: Record<string, unknown>): Record<string, unknown> {
  const { server: _server, realm_id: _realm, ...rest } = payload;
  return rest;
}

export interface PushMessage {
  msg: MessageRecord;
  sender: UserRecord;
  trigger: Trigger;
  group: { id: number; name: string } | null;
}

/** The message's notification, for the device kinds given. */
export function messagePayloads(shard: Shard, realm: RealmState, user: UserRecord, m: PushMessage, kinds: { apple: boolean; android: boolean }): Payloads {
  const { msg, sender } = m;
  // A guest may get a channel message from someone they cannot see (get_message_payload).
  const canSeeSender = msg.kind !== 'stream' || canAccessUser(shard, realm, user, sender);
  const senderName = canSeeSender ? sender.fullName : UNKNOWN_USER_NAME;
  const payload = basePayload(shard, realm, user);
  payload.sender_id = sender.id;
  payload.sender_email = canSeeSender ? sender.email : `user${sender.id}@${new URL(realm.url).hostname}`;
  if (m.group) {
    payload.mentioned_user_group_id = m.group.id;
    payload.mentioned_user_group_name = m.group.name;
  }
  const topic = msg.topic === '' ? EMPTY_TOPIC_DISPLAY_NAME : msg.topic;
  let channelName = '';
  if (msg.kind === 'stream') {
    channelName = realm.streams.get(msg.streamId!)?.name ?? '';
    Object.assign(payload, { recipient_type: 'stream', stream: channelName, stream_id: msg.streamId, topic });
  } else {
    payload.recipient_type = 'private';
    if (msg.dm!.length > 2) payload.pm_users = msg.dm!.join(',');
  }
  const content = truncatePushText(pushText(msg.rendered));
  const out: Payloads = { apns: {}, gcm: {}, gcmOptions: {} };
  if (kinds.apple) {
    out.apns = {
      alert: { title: apnsTitle(realm, msg, senderName, channelName, topic), subtitle: apnsSubtitle(msg, m.trigger, senderName, m.group?.name ?? null), body: content },
      sound: 'default',
      // The reference sends 0 until a badge bug of its apps is fixed.
      badge: 0,
      custom: { zulip: { ...forApns(payload), message_ids: [msg.id] } },
    };
  }
  if (kinds.android) {
    out.gcm = {
      ...payload,
      event: 'message',
      zulip_message_id: msg.id,
      time: msg.timestamp,
      content,
      sender_full_name: senderName,
      sender_avatar_url: canSeeSender ? absoluteAvatarUrl(realm, sender) : `${realm.url}/static/images/unknown-user-avatar.png`,
    };
    out.gcmOptions = { priority: 'high' };
  }
  return out;
}

/** get_apns_alert_title: the first bold line on iOS. */
function apnsTitle(realm: RealmState, msg: MessageRecord, senderName: string, channel: string, topic: string): string {
  if (msg.kind === 'stream') return `#${channel} > ${topic}`;
  if (msg.dm!.length > 2) return msg.dm!.map((id) => realm.users.get(id)?.fullName ?? '').sort().join(', ');
  return senderName;
}

/** get_apns_alert_subtitle: the second bold line on iOS. */
function apnsSubtitle(msg: MessageRecord, trigger: Trigger, senderName: string, groupName: string | null): string {
  if (trigger === TRIGGER.mention) return groupName === null ? `${senderName} mentioned you:` : `${senderName} mentioned @${groupName}:`;
  if (trigger === TRIGGER.topicWildcard || trigger === TRIGGER.streamWildcard || trigger === TRIGGER.topicWildcardInFollowed || trigger === TRIGGER.streamWildcardInFollowed) {
    return `${senderName} mentioned everyone:`;
  }
  if (msg.kind === 'direct' && msg.dm!.length <= 2) return '';
  return `${senderName}:`;
}

/** The removal of notifications, for messages read, edited away or deleted. */
export function removalPayloads(shard: Shard, realm: RealmState, user: UserRecord, messageIds: number[], kinds: { apple: boolean; android: boolean }): Payloads {
  const ids = messageIds.join(',');
  const out: Payloads = { apns: {}, gcm: {}, gcmOptions: {} };
  if (kinds.apple) out.apns = { badge: 0, custom: { zulip: { ...forApns(basePayload(shard, realm, user)), event: 'remove', zulip_message_ids: ids } } };
  if (kinds.android) {
    out.gcm = { ...basePayload(shard, realm, user), event: 'remove', zulip_message_ids: ids };
    out.gcmOptions = { priority: 'normal' };
  }
  return out;
}
