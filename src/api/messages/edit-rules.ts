import { ApiError, badRequest } from '../../lib/errors.js';
import { EMPTY_TOPIC_DISPLAY_NAME, type MessageRecord, topicKey } from '../../model/message.js';
import { received } from '../../model/read-state.js';
import type { RealmState } from '../../model/realm-state.js';
import { realmSetting } from '../../model/realm-settings.js';
import { ROLE, type StreamRecord, type UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { getMessage, idsUnder } from '../../store/messages.js';
import { hasContentAccess, isGuest } from '../streams/access.js';
import { canAccessMessage, invalidMessage } from './access.js';
import { normalizeTopic } from './send.js';

/**
 * The time and permission rules of editing and moving messages, after the reference's
 * check_update_message and its helpers.
 */

export const RESOLVED_TOPIC_PREFIX = '✔ ';

/**
 * Seconds of grace past every edit and move limit: the web client lets an edit start a little
 * before the limit, and the request may take a moment to arrive.
 */
export const EDIT_LIMIT_BUFFER = 20;

/**
 * A message the user may change: one they can read, not in an archived channel (the
 * reference's access_message with is_modifying_message).
 */
export function modifiableMessage(shard: Shard, realm: RealmState, user: UserRecord, id: number): MessageRecord {
  const msg = getMessage(shard, realm, id);
  if (!msg || !canAccessMessage(realm, user, msg)) throw invalidMessage();
  if (msg.kind === 'stream' && realm.streams.get(msg.streamId!)?.isArchived !== false) throw invalidMessage();
  return msg;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** Moderators and above are exempt from the move time limits. */
export const isModerator = (user: UserRecord): boolean => user.role <= ROLE.moderator;

/** A limit setting's value: seconds, or null for no limit. */
export function limitSeconds(realm: RealmState, name: string): number | null {
  const value = realmSetting(realm, name);
  return typeof value === 'number' ? value : null;
}

/** Whether a message is older than a limit (plus the buffer, for edits and moves). */
export function pastLimit(msg: MessageRecord, limit: number | null, now: number, buffer = EDIT_LIMIT_BUFFER): boolean {
  return limit !== null && now - msg.timestamp > limit + buffer;
}

/** Content edits: the realm allows editing, the editor sent the message, within the limit. */
export function checkCanEditContent(realm: RealmState, user: UserRecord, msg: MessageRecord, now: number): void {
  if (realmSetting(realm, 'allow_message_editing') !== true) throw badRequest('Your organization has turned off message editing');
  if (msg.senderId !== user.id) throw badRequest("You don't have permission to edit this message");
  if (pastLimit(msg, limitSeconds(realm, 'message_content_edit_limit_seconds'), now)) {
    throw badRequest('The time limit for editing this message has passed');
  }
}

/**
 * The topic a PATCH asks for, before comparing it with the message's: trimmed, and the empty
 * topic's display name read as the empty topic.
 */
export function requestedTopic(raw: string): string {
  const topic = raw.trim();
  return topic === EMPTY_TOPIC_DISPLAY_NAME ? '' : topic;
}

/**
 * The new topic as stored. TOPIC RULES as for sending, except that only the display name (not
 * `(no topic)`) reads as the empty topic here; with mandatory topics neither is allowed.
 */
export function normalizeEditTopic(realm: RealmState, raw: string): string {
  if (raw.trim() === '(no topic)') {
    if (realmSetting(realm, 'mandatory_topics') === true) throw badRequest('Topics are required in this organization.');
    return '(no topic)';
  }
  return normalizeTopic(realm, raw);
}

/**
 * Whether a rename marks the topic resolved (adds the prefix to the same name) or unresolved
 * (takes it away). `asked` is the requested name before truncation, which is what the prefix
 * was added to.
 */
export function resolveToggle(oldTopic: string, newTopic: string, asked: string): { resolved: boolean; unresolved: boolean } {
  const p = RESOLVED_TOPIC_PREFIX;
  return {
    resolved: newTopic.startsWith(p) && !oldTopic.startsWith(p) && asked.slice(p.length) === oldTopic,
    unresolved: oldTopic.startsWith(p) && !newTopic.startsWith(p) && oldTopic.replace(/^[✔ ]+/u, '') === newTopic,
  };
}

/** The reference's can_access_stream_history: may the user read messages from before they joined? */
export function canAccessStreamHistory(realm: RealmState, user: UserRecord, stream: StreamRecord): boolean {
  if (stream.isWebPublic) return true;
  if (!stream.inviteOnly && stream.historyPublicToSubscribers && !isGuest(user)) return true;
  return stream.historyPublicToSubscribers && hasContentAccess(realm, user, stream);
}

/** Ids of a channel topic's messages, ascending (the topic compared case-insensitively). */
export function topicMessageIds(shard: Shard, realm: RealmState, streamId: number, topic: string): number[] {
  return [...idsUnder(shard.store.byTopic, [realm.id, streamId, topicKey(topic)])];
}

/**
 * A whole-topic move (change_all) by someone bound by the move limits: every message of the
 * topic they can see must be within the stricter applicable limit, or nothing moves and the
 * error says how much could. Only the messages the user can access are counted, so that the
 * numbers reveal nothing of a protected history.
 */
export function checkChangeAllTimeLimit(shard: Shard, realm: RealmState, user: UserRecord, msg: MessageRecord, stream: StreamRecord, topicChanged: boolean, streamChanged: boolean, now: number): void {
  const limits: number[] = [];
  const within = limitSeconds(realm, 'move_messages_within_stream_limit_seconds');
  const between = limitSeconds(realm, 'move_messages_between_streams_limit_seconds');
  if (topicChanged && within !== null) limits.push(within + EDIT_LIMIT_BUFFER);
  if (streamChanged && between !== null) limits.push(between + EDIT_LIMIT_BUFFER);
  if (limits.length === 0) return;
  const deadline = Math.min(...limits);
  const fullHistory = canAccessStreamHistory(realm, user, stream);
  const inTopic: MessageRecord[] = [];
  for (const id of topicMessageIds(shard, realm, stream.id, msg.topic)) {
    const m = shard.read<MessageRecord>(shard.store.messages, id);
    if (m && (fullHistory || received(realm, user.id, m))) inTopic.push(m);
  }
  const allowed = inTopic.filter((m) => m.timestamp > now - deadline).sort((a, b) => a.timestamp - b.timestamp || a.id - b.id);
  if (allowed.length === inTopic.length) return;
  throw new ApiError(`You only have permission to move the ${allowed.length}/${inTopic.length} most recent messages in this topic.`, {
    code: 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
    data: {
      first_message_id_allowed_to_move: allowed[0]?.id ?? null,
      total_messages_in_topic: inTopic.length,
      total_messages_allowed_to_move: allowed.length,
    },
  });
}
