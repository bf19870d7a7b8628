import { ApiError, badRequest, invalidArgument, missingArgument } from '../../lib/errors.js';
import { userHasPermission } from '../../model/groups.js';
import { EMPTY_TOPIC_DISPLAY_NAME, FLAG, type MessageRecord, topicKey } from '../../model/message.js';
import { flagNames, setFlag, writeBits } from '../../model/read-state.js';
import type { RealmState } from '../../model/realm-state.js';
import { realmSetting, userHasRealmPermission } from '../../model/realm-settings.js';
import type { StreamRecord, UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { idsUnder, insertMessage } from '../../store/messages.js';
import { activeSubscriberIds, hasContentAccess, isGuest, isSubscribed, metadataUserIds } from '../streams/access.js';
import { linkAttachments, notifyAttachments } from './attachments.js';
import { renderMessage, type Rendered } from './render.js';
import { pythonJson, widgetFromContent, type WidgetContent } from '../submessages/widgets.js';
import { dmGroupKey } from './views.js';
import { canAccessUser, noteDirectMessage } from '../../model/user-access.js';
import { AccessWatch } from '../users/access-events.js';
import { checkGroupMentions, groupMentionedUserIds } from '../user_groups/mentions.js';
import { applySendVisibility } from '../user-topics/automatic.js';
import type { ShardEvent } from '../../shard/events.js';

/** The reference's limits (max_message_length, max_topic_length in /register). */
export const MAX_MESSAGE_LENGTH = 10000;
export const MAX_TOPIC_LENGTH = 60;
/** Above this many subscribers (or topic participants), wildcard mentions need permission. */
export const WILDCARD_MENTION_LIMIT = 15;

const TRUNCATED = '\n[message truncated]';

/** The reference's truncate_content: at most `max` characters, the cut marked. */
export function truncateContent(content: string, max: number): string {
  const chars = [...content];
  return chars.length > max ? chars.slice(0, max - TRUNCATED.length).join('') + TRUNCATED : content;
}

/** Content as the reference stores it: trailing whitespace dropped, over-long text truncated. */
export function normalizeContent(raw: string): string {
  if (raw.includes('\0')) throw badRequest('Message must not contain null bytes');
  // As the reference's normalize_body: trailing whitespace goes, and leading blank lines (a
  // template's first newline), but not leading spaces, which can start a code block.
  const content = raw.trimEnd().replace(/^\n+/, '');
  if (content.trim() === '') throw badRequest('Message must not be empty');
  return truncateContent(content, MAX_MESSAGE_LENGTH);
}

/**
 * TOPIC RULES: `(no topic)` and the empty-topic display name read as the empty topic, which is
 * allowed unless the realm makes topics mandatory; a topic over 60 characters is cut with `...`.
 */
export function normalizeTopic(realm: RealmState, raw: string): string {
  if (raw.includes('\0')) throw badRequest('Topic must not contain null bytes');
  let topic = raw.trim().replace(/[\r\n]+/g, ' ');
  if (topic === '(no topic)' || topic === EMPTY_TOPIC_DISPLAY_NAME) topic = '';
  if (topic === '' && realmSetting(realm, 'mandatory_topics') === true) throw badRequest('Topics are required in this organization.');
  const chars = [...topic];
  return chars.length > MAX_TOPIC_LENGTH ? chars.slice(0, MAX_TOPIC_LENGTH - 3).join('') + '...' : topic;
}

/** The sending client's name, as the reference takes it from the User-Agent: `ZulipPython/0.9` -> `ZulipPython`. */
export function clientName(userAgent: string): string {
  const name = userAgent.split(/[/ ]/)[0];
  return name || 'Unspecified';
}

// Clients whose messages are read by their sender when read_by_sender is not given: the
// reference's full user interfaces, as opposed to integrations using a user's API key.
const UI_CLIENTS = new Set(['zulipandroid', 'zulipios', 'zulipdesktop', 'zulipmobile', 'zulipelectron', 'zulipterminal', 'snipe', 'website', 'ios', 'android']);

export function defaultReadBySender(client: string): boolean {
  const c = client.toLowerCase();
  return UI_CLIENTS.has(c) || c.includes('desktop app');
}

/** `to` of a channel message: a name, an id, or a one-element list of either. */
export function resolveStream(realm: RealmState, to: unknown): StreamRecord {
  const value = Array.isArray(to) && to.length === 1 ? to[0] : to;
  if (typeof value === 'number' || (typeof value === 'string' && /^\d+$/.test(value) && !realm.streamByName(value))) {
    const id = Number(value);
    const stream = realm.streams.get(id);
    if (!stream) throw new ApiError(`Channel with ID '${id}' does not exist`, { code: 'STREAM_DOES_NOT_EXIST', data: { stream_id: id } });
    return stream;
  }
  if (typeof value !== 'string') throw invalidArgument('to', 'Invalid to');
  // A number that is not an integer names no channel (the reference's extract_stream_indicator).
  if (/^-?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][-+]?\d+)$/.test(value) && !realm.streamByName(value)) throw badRequest('Invalid data type for channel');
  const stream = realm.streamByName(value.trim());
  if (!stream) throw new ApiError(`Channel '${value}' does not exist`, { code: 'STREAM_DOES_NOT_EXIST', data: { stream: value } });
  return stream;
}

/** `to` of a direct message: user ids or emails, as a list or a comma-separated string. */
export function resolveRecipients(realm: RealmState, to: unknown): UserRecord[] {
  let items: unknown[];
  if (Array.isArray(to)) items = to;
  else if (typeof to === 'number') items = [to];
  else if (typeof to === 'string') items = to.split(',').map((s) => s.trim()).filter(Boolean);
  else throw invalidArgument('to', 'Invalid to');
  if (items.length === 0) throw badRequest('Message must have recipients');
  const users = new Map<number, UserRecord>();
  for (const item of items) {
    const user = typeof item === 'number' ? realm.users.get(item) : typeof item === 'string' ? realm.userByEmail(item) : undefined;
    if (!user) throw badRequest(typeof item === 'number' ? `Invalid user ID ${item}` : `Invalid email '${String(item)}'`);
    if (!user.isActive) throw badRequest(`'${user.email}' is no longer using Zulip.`);
    users.set(user.id, user);
  }
  return [...users.values()];
}

/**
 * A restricted guest may not write to users they cannot access (the reference's
 * check_sender_can_access_recipients): that would both reach and reveal them.
 */
export function checkCanReachRecipients(shard: Shard, realm: RealmState, sender: UserRecord, recipients: UserRecord[]): void {
  if (recipients.some((user) => !canAccessUser(shard, realm, sender, user))) {
    throw badRequest('You do not have permission to access some of the recipients.');
  }
}

/**
 * Who may post to a channel: the reference's access_stream_for_send_message. A bot may post
 * wherever its owner may: where the channel's can_send_message_group holds its owner, and to a
 * private channel its owner is subscribed to.
 */
export function checkCanPost(realm: RealmState, sender: UserRecord, stream: StreamRecord): void {
  const denied = () => badRequest(`Not authorized to send to channel '${stream.name}'`);
  const owner = sender.isBot && sender.botOwnerId !== null ? realm.users.get(sender.botOwnerId) : undefined;
  const sendGroup = stream.groups.can_send_message_group;
  if (sendGroup !== undefined && !userHasPermission(realm, sender, sendGroup) && !(owner && userHasPermission(realm, owner, sendGroup))) throw denied();
  if (stream.isArchived) throw denied();
  if (isSubscribed(realm, sender.id, stream.id)) return;
  if (owner && isSubscribed(realm, owner.id, stream.id)) return;
  if (stream.inviteOnly || isGuest(sender) || !hasContentAccess(realm, sender, stream)) throw denied();
}

/** Distinct senders of a topic's messages: who a topic wildcard mention reaches. */
export function topicParticipants(shard: Shard, realm: RealmState, streamId: number, topic: string): Set<number> {
  const out = new Set<number>();
  for (const id of idsUnder(shard.store.byTopic, [realm.id, streamId, topicKey(topic)], { reverse: true, limit: 5000 })) {
    const msg = shard.read<MessageRecord>(shard.store.messages, id);
    if (msg) out.add(msg.senderId);
  }
  return out;
}

export interface SendSpec {
  sender: UserRecord;
  content: string;
  client: string;
  readBySender: boolean;
  stream?: StreamRecord;
  topic?: string;
  recipients?: UserRecord[];
  localId?: string;
  queueId?: string;
  /** Other recipients for whom it starts out read: notices about what they just did. */
  readBy?: number[];
  /** A widget given by the sender (`widget_content`), instead of one the content starts. */
  widget?: WidgetContent;
  /**
   * The transaction to send it in, which the caller commits: a durable job's run, whose removal
   * must commit with the messages it sends (api/bots/outgoing.ts).
   */
  batch?: WriteBatch;
  /**
   * Nobody is told of it by email or push (the reference's disable_external_notifications): the
   * Welcome Bot's messages, meant to be read in the app.
   */
  disableExternalNotifications?: boolean;
}

/** What a send hook learns beyond the message: who received it, with which flag bits. */
export interface SentInfo {
  recipientIds: ReadonlySet<number>;
  /**
   * The recipients' flag bits as stored (mentions, wildcard mentions, alert words), for those who
   * have any: the others, most of a channel's subscribers, have none and no entry.
   */
  flags: ReadonlyMap<number, number>;
  disableExternalNotifications: boolean;
}

/**
 * Called in every send, before its commit, with the send's batch: work caused by a message is
 * recorded in the message's own transaction (outgoing webhook deliveries, api/bots/outgoing.ts;
 * notifications of those who are away, api/notify/).
 */
export const sendHooks: ((shard: Shard, batch: WriteBatch, realm: RealmState, msg: MessageRecord, rendered: Rendered, info: SentInfo) => void)[] = [];

/**
 * The wildcard-mention rule, for sends and edits: above WILDCARD_MENTION_LIMIT subscribers
 * (channelAudience, null for a direct message) or topic participants, only
 * can_mention_many_users_group may use the wildcards.
 */
export function checkWildcardMentions(realm: RealmState, sender: UserRecord, rendered: Rendered, channelAudience: number | null, topicAudience: number): void {
  const mayMentionMany = userHasRealmPermission(realm, sender, 'can_mention_many_users_group');
  if (channelAudience !== null && rendered.wildcards.stream && channelAudience > WILDCARD_MENTION_LIMIT && !mayMentionMany) {
    throw new ApiError('You do not have permission to use channel wildcard mentions in this channel.', { code: 'STREAM_WILDCARD_MENTION_NOT_ALLOWED' });
  }
  if (rendered.wildcards.topic && topicAudience > WILDCARD_MENTION_LIMIT && !mayMentionMany) {
    throw new ApiError('You do not have permission to use topic wildcard mentions in this topic.', { code: 'TOPIC_WILDCARD_MENTION_NOT_ALLOWED' });
  }
}

/**
 * Sends a message: one message row and its index rows, the sender's read flip, the mention and
 * alert-word flags of the users concerned and the read flips of those who muted the sender,
 * whatever the channel's size (model/read-state.ts); then the `message` event to every
 * recipient, with each one's flags.
 */
export async function doSendMessage(shard: Shard, realm: RealmState, spec: SendSpec): Promise<MessageRecord> {
  return (await sendMessage(shard, realm, spec)).msg;
}

export interface SendResult {
  msg: MessageRecord;
  /** The sender's topic visibility when a send changed it (api/user-topics/automatic.ts). */
  automaticNewVisibilityPolicy: number | null;
}

/** doSendMessage, with what the send response reports beside the id. */
export async function sendMessage(shard: Shard, realm: RealmState, spec: SendSpec): Promise<SendResult> {
  const { sender } = spec;
  const rendered = renderMessage(spec.content, { realm, sender, alertWords: true });
  const isStream = spec.stream !== undefined;
  const topic = spec.topic ?? '';
  const participants = isStream ? [] : [...new Set([sender.id, ...spec.recipients!.map((u) => u.id)])].sort((a, b) => a - b);
  const recipientIds = isStream ? new Set([...activeSubscriberIds(realm, spec.stream!.id), sender.id]) : new Set(participants);

  const topicWildcardUsers = rendered.wildcards.topic && isStream ? topicParticipants(shard, realm, spec.stream!.id, topic) : new Set<number>();
  checkWildcardMentions(realm, sender, rendered, isStream ? recipientIds.size - 1 : null, topicWildcardUsers.size);
  checkGroupMentions(realm, sender, rendered.mentionedGroupIds);

  const batch = spec.batch ?? shard.batch();
  const msg: MessageRecord = {
    id: shard.allocateMessageId(batch),
    realmId: realm.id,
    senderId: sender.id,
    kind: isStream ? 'stream' : 'direct',
    streamId: isStream ? spec.stream!.id : null,
    topic: isStream ? topic : '',
    dm: isStream ? null : participants,
    content: spec.content,
    rendered: rendered.html,
    client: spec.client,
    timestamp: Math.floor(Date.now() / 1000),
    isMe: rendered.isMeMessage,
    hasLink: rendered.hasLink,
    hasImage: rendered.hasImage,
    hasAttachment: rendered.hasAttachment,
    mentions: { users: rendered.mentionedUserIds, groups: rendered.mentionedGroupIds, stream: rendered.wildcards.stream, topic: rendered.wildcards.topic },
    reactions: [],
    edits: [],
    lastEditTs: null,
    lastMovedTs: null,
  };
  // A widget's initial state is the message's first submessage, from its sender.
  const widget = spec.widget ?? widgetFromContent(spec.content);
  const widgetSub = widget && { id: shard.allocate(batch, 'submessage'), senderId: sender.id, msgType: 'widget', content: pythonJson(widget) };
  if (widgetSub) msg.submessageCount = 1;
  const attachments = linkAttachments(shard, batch, realm, msg, true);
  // A direct message gives the guests in it access to the other participants: they hear of
  // them (realm_user add) before the message that names them.
  const dmUsers = isStream ? [] : participants.map((id) => realm.users.get(id)!);
  const access = AccessWatch.of(shard, realm, dmUsers);
  noteDirectMessage(shard, realm, dmUsers);
  access?.send((event, ids) => batch.emit(realm.id, event, ids));
  insertMessage(shard, batch, msg);
  if (widgetSub) batch.put(shard.store.submessages, [msg.id, 0], widgetSub);
  // The channel's first message sets first_message_id. The reference records it silently, so
  // that whoever sees the channel without receiving the message keeps a stale null; here the
  // change is announced like any other channel property's (once per channel).
  const current = isStream ? realm.streams.get(spec.stream!.id) : undefined;
  if (current && current.firstMessageId == null) {
    const stream = { ...current, firstMessageId: msg.id };
    realm.setStream(stream);
    batch.put(shard.store.streams, [realm.id, stream.id], stream);
    batch.emit(realm.id, { type: 'stream', op: 'update', property: 'first_message_id', value: msg.id, stream_id: stream.id, name: stream.name }, metadataUserIds(realm, stream));
  }
  if (participants.length > 2 && shard.read(shard.store.meta, dmGroupKey(realm.id, participants)) === undefined) {
    batch.put(shard.store.meta, dmGroupKey(realm.id, participants), shard.allocate(batch, 'dmgroup'));
  }

  // Only the users with a mention or an alert word get a row, and an entry here; everyone
  // else's flags are derived.
  const flags = new Map<number, number>();
  // A group mention gives its members the `mentioned` flag, as a mention by name does.
  const mentioned = new Set(rendered.mentionedUserIds);
  for (const id of groupMentionedUserIds(realm, rendered.mentionedGroupIds)) mentioned.add(id);
  const alerted = new Set(rendered.alertedUserIds);
  // The recipients mentioned by name or through a group: who may follow the topic for it.
  const mentionedIds: number[] = [];
  // A message without mentions, wildcards or alert words (most) flags nobody: no loop over its
  // recipients.
  const flagsAnyone = mentioned.size > 0 || alerted.size > 0 || rendered.wildcards.stream || rendered.wildcards.topic;
  if (flagsAnyone) for (const userId of recipientIds) {
    let bits = 0;
    if (mentioned.has(userId)) bits |= FLAG.mentioned;
    if (alerted.has(userId)) bits |= FLAG.has_alert_word;
    if (rendered.wildcards.stream) bits |= FLAG.stream_wildcard_mentioned;
    if (topicWildcardUsers.has(userId) || (rendered.wildcards.topic && !isStream)) bits |= FLAG.topic_wildcard_mentioned;
    if (userId === sender.id) bits &= ~(FLAG.stream_wildcard_mentioned | FLAG.topic_wildcard_mentioned);
    if (bits === 0) continue;
    writeBits(shard, batch, realm, userId, msg.id, 0, bits);
    if (bits & (FLAG.mentioned | FLAG.group_mentioned)) mentionedIds.push(userId);
    flags.set(userId, bits);
  }
  // The automatic topic visibility policies: their user_topic events precede the message.
  const sink = { batch, emit: (event: ShardEvent, ids: number[]) => batch.emit(realm.id, event, ids) };
  const automaticNewVisibilityPolicy = isStream ? applySendVisibility(shard, realm, sink, sender, spec.stream!, topic, msg.id, mentionedIds) : null;
  const readers = new Set(spec.readBy ?? []);
  if (spec.readBySender) readers.add(sender.id);
  // Those who muted the sender get the message already read, as the reference marks it: a row
  // for each of them only (model/people.ts keeps who muted whom).
  for (const userId of realm.people.mutersOf(sender.id) ?? []) readers.add(userId);
  for (const userId of readers) if (recipientIds.has(userId)) setFlag(shard, batch, realm, userId, msg, 'read', true);

  // The event carries the stored message; the event-queue layer shapes it per queue (content
  // format, avatar, topic name) and adds local_message_id for the sender's own queue.
  const byUser: Record<number, string[]> = {};
  // Only the users with a flag: a recipient without one reads as [] (events/shape.ts), and the
  // event log row does not carry an empty list for each of a channel's subscribers.
  for (const [userId, bits] of flags) byUser[userId] = flagNames(bits | (readers.has(userId) ? FLAG.read : 0));
  for (const userId of readers) if (recipientIds.has(userId) && !flags.has(userId)) byUser[userId] = flagNames(FLAG.read);
  notifyAttachments(shard, batch, realm, attachments);
  batch.emit(realm.id, { type: 'message', message: msg, flags: byUser, local_id: spec.localId ?? null, sender_queue_id: spec.queueId ?? null }, recipientIds);
  const info: SentInfo = { recipientIds, flags, disableExternalNotifications: spec.disableExternalNotifications === true };
  for (const hook of sendHooks) hook(shard, batch, realm, msg, rendered, info);
  if (!spec.batch) await batch.commit();
  return { msg, automaticNewVisibilityPolicy };
}

/** The checks of POST /messages that need no state beyond the request. */
export function checkSendParams(p: { queue_id?: string; local_id?: string }): void {
  if (p.queue_id !== undefined && p.local_id === undefined) throw missingArgument('local_id');
}
