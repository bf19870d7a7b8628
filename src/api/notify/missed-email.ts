import { mailerFor } from '../../lib/mail.js';
import { escapeAll as h } from '../../markdown/preprocess.js';
import { EMPTY_TOPIC_DISPLAY_NAME, FLAG, INDEXED_FLAGS, dmKey, topicKey, type MessageRecord } from '../../model/message.js';
import { MENTION_TRIGGERS, TRIGGER, type Trigger } from '../../model/notifications.js';
import { flagBits, storedBits } from '../../model/read-state.js';
import type { RealmState } from '../../model/realm-state.js';
import { realmSetting } from '../../model/realm-settings.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { getMessage, idsUnder } from '../../store/messages.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { createReplyAddress } from '../email-gateway/missed.js';
import { userSetting } from '../../model/user-settings.js';
import { canAccessMessage } from '../messages/access.js';
import { absoluteAvatarUrl, emailHeaders, emailPage, installationName, recipient, unsubscribeUrl } from './email-frame.js';
import { emailHtml, emailText } from './email-html.js';
import { smallestMentionedGroup } from './groups.js';
import { scheduleMails } from './mail.js';
import { channelMessageUrl, groupNarrowUrl, personalNarrowUrl } from './urls.js';

/**
 * A due batch of missed-message notices becomes emails, as the reference's
 * handle_missedmessage_emails and do_send_missedmessage_events_reply_in_zulip make them: the
 * messages still unread (and not deleted, and still readable by the person), grouped by
 * conversation, one email each, least recently active conversation first; a channel
 * conversation that mentions the person comes with up to ten earlier messages of its topic
 * (from the fifteen minutes before) for context.
 */

/** One notice of a batch (email-batch.ts): a message, and why the person is told of it. */
export interface BatchItem {
  id: number;
  trigger: Trigger;
  groupId: number | null;
}

export interface EmailBatch {
  userId: number;
  items: BatchItem[];
}

const RESOLVED_PREFIX = '✔ ';
const CONTEXT_MESSAGES = 10;
const CONTEXT_SECONDS = 15 * 60;

export function composeMissedMessageEmails(shard: Shard, batch: WriteBatch, realm: RealmState, data: EmailBatch): void {
  const user = realm.users.get(data.userId);
  if (!user || !user.isActive || user.isBot || realm.realm.deactivated) return;
  // The reference checks the setting for every trigger here, not only for mentions and DMs.
  if (userSetting(user, 'enable_offline_email_notifications') !== true) return;
  const items = new Map(data.items.map((i) => [i.id, i]));
  const buckets = new Map<string, MessageRecord[]>();
  for (const item of data.items) {
    const msg = getMessage(shard, realm, item.id);
    if (!msg || msg.content === '(deleted)' || !canAccessMessage(realm, user, msg)) continue;
    if (flagBits(shard, realm, user.id, msg) & FLAG.read) continue;
    const key = msg.kind === 'stream' ? `s:${msg.streamId}:${topicKey(msg.topic)}` : `d:${dmKey(msg.dm!)}`;
    buckets.set(key, [...(buckets.get(key) ?? []), msg]);
  }
  const ordered = [...buckets.values()].map((msgs) => msgs.sort((a, b) => a.id - b.id)).sort((a, b) => a[a.length - 1].id - b[b.length - 1].id);
  const emails = ordered.map((msgs) => missedMessageEmail(shard, batch, realm, user, msgs, contextMessages(shard, realm, user, msgs[0]), items));
  scheduleMails(shard, batch, realm, emails);
}

/** get_context_for_message, for a first message that mentions the person. */
function contextMessages(shard: Shard, realm: RealmState, user: UserRecord, first: MessageRecord): MessageRecord[] {
  if (first.kind !== 'stream' || !(storedBits(shard, realm, user.id, first.id) & INDEXED_FLAGS.mentioned)) return [];
  const out: MessageRecord[] = [];
  for (const id of idsUnder(shard.store.byTopic, [realm.id, first.streamId!, topicKey(first.topic)], { max: first.id - 1, reverse: true, limit: CONTEXT_MESSAGES })) {
    const msg = getMessage(shard, realm, id);
    if (msg && msg.timestamp > first.timestamp - CONTEXT_SECONDS && canAccessMessage(realm, user, msg)) out.push(msg);
  }
  return out.reverse();
}

/** A list of names as the reference writes it in a group DM's subject. */
function groupDisplayName(names: string[]): string {
  if (names.length <= 2) return names.join(' and ');
  if (names.length === 3) return `${names[0]}, ${names[1]}, and ${names[2]}`;
  return `${names.slice(0, 2).join(', ')}, and ${names.length - 2} others`;
}

/** include_realm_name_in_missedmessage_emails_subject (1: when the address has accounts elsewhere, 2: always, 3: never). */
function realmNameInSubject(shard: Shard, realm: RealmState, user: UserRecord): boolean {
  const policy = Number(userSetting(user, 'realm_name_in_email_notifications_policy'));
  if (policy === 2) return true;
  if (policy !== 1) return false;
  for (const other of shard.realms.values()) {
    if (other.id !== realm.id && !other.realm.deactivated && other.userByEmail(user.email)?.isActive) return true;
  }
  return false;
}

interface SenderBlock {
  sender: UserRecord | undefined;
  messages: MessageRecord[];
}

/** Consecutive messages of one sender show under one name. */
function senderBlocks(realm: RealmState, msgs: MessageRecord[]): SenderBlock[] {
  const blocks: SenderBlock[] = [];
  for (const msg of msgs) {
    const last = blocks[blocks.length - 1];
    if (last && last.sender?.id === msg.senderId) last.messages.push(msg);
    else blocks.push({ sender: realm.users.get(msg.senderId), messages: [msg] });
  }
  return blocks;
}

function missedMessageEmail(shard: Shard, batch: WriteBatch, realm: RealmState, user: UserRecord, notified: MessageRecord[], context: MessageRecord[], items: Map<number, BatchItem>) {
  const first = notified[0];
  const triggers = new Set(notified.map((m) => items.get(m.id)?.trigger));
  const mention = [...triggers].some((t) => t !== undefined && MENTION_TRIGGERS.has(t));
  const personalMention = notified.some((m) => items.get(m.id)?.trigger === TRIGGER.mention && items.get(m.id)?.groupId === null);
  const group = smallestMentionedGroup(realm, notified.map((m) => items.get(m.id)).filter((i): i is BatchItem => i !== undefined));
  const showContent = realmSetting(realm, 'message_content_allowed_in_email_notifications') === true && userSetting(user, 'message_content_in_email_notifications') === true;
  const gateway = shard.config.emailGateway.enabled;
  const realmName = realm.realm.name;

  let subject: string;
  let narrowUrl: string;
  let reason = '';
  let senders = [...new Map(notified.map((m) => [m.senderId, realm.users.get(m.senderId)?.fullName ?? ''])).values()];
  if (first.kind === 'direct') {
    const others = first.dm!.filter((id) => id !== user.id);
    if (others.length >= 2) {
      subject = `Group DMs with ${groupDisplayName(others.map((id) => realm.users.get(id)?.fullName ?? ''))}`;
      narrowUrl = groupNarrowUrl(realm, others);
    } else {
      const other = realm.users.get(others[0] ?? user.id)!;
      subject = `DMs with ${senders.join(', ')}`;
      narrowUrl = personalNarrowUrl(realm, other.id, other.fullName);
    }
  } else {
    const stream = realm.streams.get(first.streamId!)!;
    if (mention) senders = [...new Set(notified.filter((m) => MENTION_TRIGGERS.has(items.get(m.id)?.trigger ?? '')).map((m) => realm.users.get(m.senderId)?.fullName ?? ''))];
    const resolved = first.topic.startsWith(RESOLVED_PREFIX);
    const bare = resolved ? first.topic.slice(RESOLVED_PREFIX.length) : first.topic;
    const topic = bare === '' ? EMPTY_TOPIC_DISPLAY_NAME : bare;
    subject = `${resolved ? '[resolved] ' : ''}#${stream.name} > ${topic}`;
    narrowUrl = channelMessageUrl(realm, stream, first.topic, first.id, !mention);
    reason = channelReason(triggers, personalMention, group?.name ?? null, stream.name, topic);
  }
  if (first.kind === 'direct') reason = personalMention ? 'You are receiving this because you were personally mentioned.' : '';
  if (!showContent) subject = 'New messages';
  if (realmNameInSubject(shard, realm, user)) subject += ` [${realmName}]`;

  const replyToZulip = gateway && showContent;
  const settingsUrl = `${realm.url}/#settings/notifications`;
  const unsubscribe = unsubscribeUrl(shard, batch, realm, user.id, 'missed_messages');
  const all = [...context, ...notified];

  // The plain-text part.
  let text = '';
  if (showContent) {
    for (const block of senderBlocks(realm, all)) {
      text += `${block.sender?.fullName ?? ''}:\n`;
      for (const msg of block.messages) text += `${emailText(msg.content, realm.url)}\n\n`;
    }
  } else text += `${contentHiddenText(realm, user)}\n\n`;
  text += '--\n';
  if (reason) text += `${reason}\n\n`;
  if (replyToZulip) text += `Reply to this email directly, or view it in ${realmName} Zulip:\n\n${narrowUrl}\n\n`;
  else if (!showContent) text += `View or reply in ${realmName} Zulip:\n\n${narrowUrl}\n\n`;
  else text += `Reply in ${realmName} Zulip:\n\n${narrowUrl}\n\nDo not reply to this email. This Zulip server is not configured to accept\nincoming emails.\n\n`;
  text += `Manage email preferences:\n\n${settingsUrl}\n\nUnsubscribe from missed-message emails:\n\n${unsubscribe}\n`;

  // The HTML part.
  const opts = { realmUrl: realm.url, timezone: user.timezone, twentyFourHour: userSetting(user, 'twenty_four_hour_time') === true };
  let content = '';
  if (showContent) {
    for (const block of senderBlocks(realm, all)) {
      const sender = block.sender;
      const head = sender ? `<p class="sender"><img src="${h(absoluteAvatarUrl(realm, sender))}" alt="" width="24" height="24">${h(sender.fullName)}</p>` : '';
      content += `<div class="missed_message">${head}${block.messages.map((m) => emailHtml(m.rendered, opts)).join('\n')}</div>\n`;
    }
  } else content = `<div class="missed_message no-content-explanation">${h(contentHiddenText(realm, user))}</div>`;
  let footer = '<div class="email-preferences">&mdash;<br>';
  if (reason) footer += `${h(reason)}<br>`;
  if (replyToZulip) footer += `Reply to this email directly, <a href="${h(narrowUrl)}">view it in ${h(realmName)} Zulip</a>, or <a href="${h(settingsUrl)}">manage email preferences</a>.`;
  else if (!showContent) footer += `<a href="${h(narrowUrl)}">View or reply in ${h(realmName)} Zulip</a>, or <a href="${h(settingsUrl)}">manage email preferences</a>.`;
  else footer += `<a href="${h(narrowUrl)}">Reply in ${h(realmName)} Zulip</a>, or <a href="${h(settingsUrl)}">manage email preferences</a>.<br><br>Do not reply to this email. This Zulip server is not configured to accept incoming emails.`;
  footer += `<br><a href="${h(unsubscribe)}">Unsubscribe from missed-message emails</a></div>`;

  // Without the gateway, replies go nowhere: to the no-reply address, named as such.
  const replyTo = replyToZulip ? `"Zulip" <${createReplyAddress(shard, batch, realm, user.id, first.id)}>` : mailerFor(shard.config).fromAddress;
  return {
    to: recipient(user),
    subject,
    text,
    html: emailPage(subject, content, footer),
    fromName: `${installationName(shard)} notifications`,
    replyTo,
    headers: emailHeaders(realm, unsubscribe),
  };
}

/** The footer's "You are receiving this because ..." of a channel conversation. */
function channelReason(triggers: Set<string | undefined>, personal: boolean, groupName: string | null, channel: string, topic: string): string {
  if (personal) return 'You are receiving this because you were personally mentioned.';
  if (groupName) return `You are receiving this because @${groupName} was mentioned.`;
  const everyoneInTopic = `You are receiving this because all topic participants were mentioned in #${channel} > ${topic}.`;
  if (triggers.has(TRIGGER.topicWildcardInFollowed)) return everyoneInTopic;
  if (triggers.has(TRIGGER.streamWildcardInFollowed)) return 'You are receiving this because you have wildcard mention notifications enabled for topics you follow.';
  if (triggers.has(TRIGGER.topicWildcard)) return everyoneInTopic;
  if (triggers.has(TRIGGER.streamWildcard)) return `You are receiving this because everyone was mentioned in #${channel}.`;
  if (triggers.has(TRIGGER.followedTopicEmail)) return 'You are receiving this because you have email notifications enabled for topics you follow.';
  if (triggers.has(TRIGGER.streamEmail)) return `You are receiving this because you have email notifications enabled for #${channel}.`;
  return '';
}

function contentHiddenText(realm: RealmState, user: UserRecord): string {
  if (realmSetting(realm, 'message_content_allowed_in_email_notifications') !== true) {
    return `This email does not include message content because your organization hides message content in email notifications. See ${realm.url}/help/hide-message-content-in-emails for more details.`;
  }
  return `This email does not include message content because you have chosen to hide message content in email notifications. See ${realm.url}/help/email-notifications#hide-message-content for more details.`;
}
