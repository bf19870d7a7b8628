import type { MessageRecord, PropagateMode } from '../../model/message.js';
import type { RealmState } from '../../model/realm-state.js';
import { BOT_TYPE, NOTIFICATION_BOT_EMAIL, ROLE, type StreamRecord, type UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { activeSubscriberIds } from '../streams/access.js';
import { doCreateUser } from '../users/actions.js';
import { canAccessMessage } from './access.js';
import { doDeleteMessages } from './delete.js';
import { nowSeconds, topicMessageIds } from './edit-rules.js';
import { doSendMessage } from './send.js';

/**
 * The automated messages of moves and resolutions, posted by the realm's Notification Bot as the
 * reference posts them: breadcrumbs in the old and new topic, and "marked as resolved" notices.
 */

export const NOTIFICATION_BOT_NAME = 'Notification Bot';

/**
 * Unresolving within this many seconds of resolving (or the reverse) deletes the notice instead
 * of posting a second one, so that an accidental click leaves no trace.
 */
export const RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS = 60;

/**
 * The realm's Notification Bot. The reference has one system bot shared by all realms; here each
 * realm has its own, made with the realm (doCreateRealm), and shown to clients as the reference
 * shows its bot: in cross_realm_bots, a member of nothing. A realm made before that gets it
 * silently on first use; clients registered earlier then learn of it from its first message.
 */
export async function notificationBot(shard: Shard, realm: RealmState): Promise<UserRecord> {
  const existing = realm.userByEmail(NOTIFICATION_BOT_EMAIL);
  if (existing) return existing;
  return doCreateUser(shard, realm, {
    email: NOTIFICATION_BOT_EMAIL,
    fullName: NOTIFICATION_BOT_NAME,
    role: ROLE.member,
    isBot: true,
    botType: BOT_TYPE.generic,
    isSystemBot: true,
  });
}

/** `@_**Name|id**`: names a user without notifying them. */
export function silentMention(user: UserRecord): string {
  return `@_**${user.fullName}|${user.id}**`;
}

/** The reference's encode_hash_component: URL quoting with `.` instead of `%`, for narrow URLs. */
export function encodeHashComponent(text: string): string {
  // encodeURIComponent leaves !'() alone; the reference quotes them.
  const quoted = encodeURIComponent(text).replace(/[!'()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return quoted.replace(/[%.]/g, (c) => (c === '%' ? '.' : '.2E'));
}

export function encodeChannel(stream: StreamRecord): string {
  return `${stream.id}-${encodeHashComponent(stream.name.replace(/ /g, '-'))}`;
}

// Characters that would break the #**channel>topic** syntax; names with them get a plain link.
const BROKEN_LINK = /[`>*&[\]]|\$\$/;
const ESCAPES: Record<string, string> = { '`': '&#96;', '>': '&gt;', '*': '&#42;', '&': '&amp;', $$: '&#36;&#36;', '[': '&#91;', ']': '&#93;' };
const escapeLinkText = (text: string) => text.replace(/[`>*&[\]]|\$\$/g, (m) => ESCAPES[m] ?? m);

/**
 * `#**channel>topic**` (with `@id`, a link to one message of it), or a Markdown link when the
 * names would break that syntax: the reference's get_stream_topic_link_syntax and
 * get_message_link_syntax.
 */
export function topicLinkSyntax(stream: StreamRecord, topic: string, messageId?: number): string {
  const near = messageId === undefined ? '' : `@${messageId}`;
  if (!BROKEN_LINK.test(stream.name) && !BROKEN_LINK.test(topic)) return `#**${stream.name}>${topic}${near}**`;
  const url = `#narrow/channel/${encodeChannel(stream)}/topic/${encodeHashComponent(topic)}${messageId === undefined ? '' : `/near/${messageId}`}`;
  const text = `#${escapeLinkText(stream.name)} > ${escapeLinkText(topic === '' ? 'general chat' : topic)}${messageId === undefined ? '' : ' @ 💬'}`;
  return `[${text}](${url})`;
}

/** A code fence longer than any in `content`: the reference's get_unused_fence. */
export function unusedFence(content: string): string {
  let length = 3;
  for (const m of content.matchAll(/^ {0,3}(`{3,})/gm)) length = Math.max(length, m[1].length + 1);
  return '`'.repeat(length);
}

/** The absolute URL of a channel message, as the reference's stream_message_url builds it. */
export function messageUrl(shard: Shard, realm: RealmState, stream: StreamRecord, topic: string, msgId: number): string {
  return `${shard.realmUrl(realm.realm)}/#narrow/channel/${encodeChannel(stream)}/topic/${encodeHashComponent(topic)}/near/${msgId}`;
}

/** Posts a notice from the Notification Bot, as the reference's internal_send_stream_message. */
export async function postNotice(shard: Shard, realm: RealmState, stream: StreamRecord, topic: string, content: string, readBy: number[]): Promise<MessageRecord> {
  const bot = await notificationBot(shard, realm);
  return doSendMessage(shard, realm, { sender: bot, content, client: 'Internal', readBySender: false, stream, topic, readBy });
}

const RESOLVE_NOTICE = /^@_\*\*[^*]*\*\* has marked this topic as (un)?resolved\.$/;

/**
 * After resolving or unresolving: the notice in the topic, unless the last message there is the
 * opposite notice from moments ago, which is then deleted instead. The notice starts out read for
 * everyone (the reference's default resolved_topic_notice_auto_read_policy, except_followed, with
 * no followed topics). Returns the notice's id, if one was posted.
 */
export async function resolveNotice(shard: Shard, realm: RealmState, actor: UserRecord, stream: StreamRecord, topic: string, resolved: boolean): Promise<number | null> {
  const bot = await notificationBot(shard, realm);
  const ids = topicMessageIds(shard, realm, stream.id, topic);
  const last = ids.length > 0 ? shard.read<MessageRecord>(shard.store.messages, ids[ids.length - 1]) : undefined;
  if (last && last.senderId === bot.id && RESOLVE_NOTICE.test(last.content) && nowSeconds() - last.timestamp <= RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS) {
    await doDeleteMessages(shard, realm, [last], actor);
    return null;
  }
  const text = `${silentMention(actor)} has marked this topic as ${resolved ? 'resolved' : 'unresolved'}.`;
  const notice = await postNotice(shard, realm, stream, topic, text, [...activeSubscriberIds(realm, stream.id), actor.id]);
  return notice.id;
}

export interface MoveSummary {
  /** The target message, as it is after the move. */
  target: MessageRecord;
  origStream: StreamRecord;
  origTopic: string;
  newStream: StreamRecord;
  newTopic: string;
  changedIds: number[];
  propagateMode: PropagateMode;
  topicEdited: boolean;
  streamEdited: boolean;
  contentEdited: boolean;
  resolved: boolean;
  unresolved: boolean;
  notifyOld: boolean;
  notifyNew: boolean;
}

/** Whether the actor can see any message of a topic other than `excluded`. */
function hasVisibleMessages(shard: Shard, realm: RealmState, actor: UserRecord, stream: StreamRecord, topic: string, excluded: Set<number>): boolean {
  for (const id of topicMessageIds(shard, realm, stream.id, topic)) {
    if (excluded.has(id)) continue;
    const msg = shard.read<MessageRecord>(shard.store.messages, id);
    if (msg && canAccessMessage(realm, actor, msg)) return true;
  }
  return false;
}

/**
 * The notices after a committed edit that renamed a topic or moved messages: a resolve notice
 * for a pure resolve or unresolve, and the breadcrumbs the request asked for. Whether the whole
 * topic moved is judged by what the actor can see, so the wording leaks nothing about messages
 * hidden from them.
 */
export async function sendMoveNotices(shard: Shard, realm: RealmState, actor: UserRecord, s: MoveSummary): Promise<void> {
  const changed = new Set(s.changedIds);
  const movedAll = s.propagateMode === 'change_all' || !hasVisibleMessages(shard, realm, actor, s.origStream, s.origTopic, new Set());
  let noticeId: number | null = null;
  if (s.topicEdited && !s.contentEdited && !s.streamEdited && (s.resolved || s.unresolved)) {
    noticeId = await resolveNotice(shard, realm, actor, s.origStream, s.newTopic, s.resolved);
  }
  const user = silentMention(actor);
  const count = s.changedIds.length;
  const newLocation = topicLinkSyntax(s.newStream, s.newTopic);
  const oldLocation = topicLinkSyntax(s.origStream, s.origTopic);
  let oldText: string | null = null;
  if (s.notifyOld) {
    if (movedAll) oldText = `This topic was moved to ${newLocation} by ${user}.`;
    else if (count === 1) oldText = `A message was moved from this topic to ${newLocation} by ${user}.`;
    else oldText = `${count} messages were moved from this topic to ${newLocation} by ${user}.`;
  }
  // A pure resolve or unresolve gets its own notice above, never a breadcrumb in the new topic.
  let newText: string | null = null;
  if (s.notifyNew && (s.streamEdited || (s.topicEdited && !s.resolved && !s.unresolved))) {
    if (noticeId !== null) changed.add(noticeId);
    const preexisting = hasVisibleMessages(shard, realm, actor, s.newStream, s.newTopic, changed);
    if (!preexisting && movedAll) newText = `This topic was moved here from ${oldLocation} by ${user}.`;
    else if (count === 1) newText = `[A message](${messageUrl(shard, realm, s.newStream, s.newTopic, s.target.id)}) was moved here from ${oldLocation} by ${user}.`;
    else newText = `${count} messages were moved here from ${oldLocation} by ${user}.`;
  }
  if (newText !== null) await postNotice(shard, realm, s.newStream, s.newTopic, newText, [actor.id]);
  if (oldText !== null) await postNotice(shard, realm, s.origStream, s.origTopic, oldText, [actor.id]);
}
