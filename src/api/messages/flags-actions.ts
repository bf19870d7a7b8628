import { badRequest } from '../../lib/errors.js';
import { FLAG, type FlagName, type MessageRecord } from '../../model/message.js';
import { advanceReadMark, readMark, setFlags, setReadMark, setReadOfIds, storedBits } from '../../model/read-state.js';
import type { RealmState } from '../../model/realm-state.js';
import type { StreamRecord, UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { clearFlips } from '../../store/flips.js';
import { getMessage, receivedIds } from '../../store/messages.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { isSubscribed } from '../streams/access.js';
import { canAccessMessage, invalidMessage } from './access.js';
import type { NarrowTerm } from './narrow.js';
import { collect } from './narrow-fetch.js';
import { planNarrow } from './narrow-plan.js';
import { isMessageMuted } from '../user-topics/muting.js';

/**
 * Personal message flags: the do-actions behind POST /messages/flags, /messages/flags/narrow and
 * the mark-as-read endpoints. State lives in model/read-state.ts; these decide what may change
 * and send the reference's update_message_flags events to the user.
 */

/** The flags the API knows (the reference's UserMessage flags less its internal ones). */
const API_FLAGS = new Set(['read', 'starred', 'collapsed', 'mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned', 'group_mentioned', 'force_expand', 'force_collapse', 'has_alert_word', 'historical']);
const EDITABLE_FLAGS = new Set(['read', 'starred', 'collapsed']);

export type EditableFlag = 'read' | 'starred' | 'collapsed';

export function checkFlagUpdate(flag: string, op: string): { flag: EditableFlag; adding: boolean } {
  if (!API_FLAGS.has(flag)) throw badRequest(`Invalid flag: '${flag}'`);
  if (!EDITABLE_FLAGS.has(flag)) throw badRequest(`Flag not editable: '${flag}'`);
  if (op !== 'add' && op !== 'remove') throw badRequest(`Invalid message flag operation: '${op}'`);
  return { flag: flag as EditableFlag, adding: op === 'add' };
}

const readEvent = (messages: number[], all: boolean) => ({ type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages, all });

/** After messages were read: move the read mark past the read run above it, dropping flips. */
export function settleReadMark(shard: Shard, batch: WriteBatch, realm: RealmState, userId: number): void {
  advanceReadMark(shard, batch, realm, userId, receivedIds(shard, realm, userId, { min: readMark(realm, userId) + 1 }));
}

/** What a client needs to file messages that became unread (the event's message_details). */
function unreadDetails(shard: Shard, realm: RealmState, user: UserRecord, msgs: MessageRecord[]): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const msg of msgs) {
    const bits = storedBits(shard, realm, user.id, msg.id);
    const muted = isMessageMuted(realm, user.id, msg);
    const wildcard = (bits & (FLAG.stream_wildcard_mentioned | FLAG.topic_wildcard_mentioned)) !== 0;
    const mentioned = (bits & (FLAG.mentioned | FLAG.group_mentioned)) !== 0 || (wildcard && !muted);
    const details: Record<string, unknown> =
      msg.kind === 'stream'
        ? { type: 'stream', stream_id: msg.streamId, topic: msg.topic, unmuted_stream_msg: !muted }
        : { type: 'private', user_ids: msg.dm!.filter((id) => id !== user.id) };
    if (mentioned) details.mentioned = true;
    out[String(msg.id)] = details;
  }
  return out;
}

export interface FlagUpdate {
  /** Ids whose flag changed, in request order. */
  changed: number[];
  /** Channels whose messages were left read because the user is not subscribed (read/remove). */
  ignoredChannels: number[];
}

/**
 * Adds or removes a flag on messages, after the reference's do_update_message_flags. The
 * messages must be readable by the user, except where nothing would change for a message they
 * could not read anyway (adding `read`, removing a flag they do not have): those are skipped.
 * Marking unread skips channels the user is not subscribed to, since unread messages live only
 * in subscribed channels. Checks everything before changing anything.
 */
export async function doUpdateFlags(shard: Shard, realm: RealmState, user: UserRecord, ids: (number | MessageRecord)[], flag: EditableFlag, adding: boolean): Promise<FlagUpdate> {
  const targets: MessageRecord[] = [];
  const ignored = new Set<number>();
  // A caller that has just read the messages (a narrow's range) passes them: thousands of
  // messages are not decoded twice.
  const seen = new Set<number>();
  for (const item of ids) {
    const id = typeof item === 'number' ? item : item.id;
    if (seen.has(id)) continue;
    seen.add(id);
    const msg = typeof item === 'number' ? getMessage(shard, realm, id) : item;
    const readable = msg !== undefined && canAccessMessage(realm, user, msg);
    if (flag === 'read' && !adding && msg?.kind === 'stream' && !isSubscribed(realm, user.id, msg.streamId!)) {
      if (readable) ignored.add(msg.streamId!);
      continue;
    }
    if (readable) targets.push(msg);
    else if (adding ? flag !== 'read' : flag === 'read') throw invalidMessage();
    else if (msg && !adding && storedBits(shard, realm, user.id, msg.id) & FLAG[flag as FlagName]) targets.push(msg);
  }

  const batch = shard.batch();
  const changed = setFlags(shard, batch, realm, user.id, targets, flag, adding);
  await finish(shard, batch, realm, user, flag, adding, changed, () => undefined);
  return { changed: changed.map((m) => m.id), ignoredChannels: [...ignored].sort((a, b) => a - b) };
}

/**
 * doUpdateFlags over the ids of one channel whose history the user may read (an exact narrow:
 * narrow-plan.ts), so every message is accessible. `read` reads a message only where its
 * answer turns on it (setReadOfIds): marking read thousands of messages marked unread reads none.
 */
export async function doUpdateChannelFlags(shard: Shard, realm: RealmState, user: UserRecord, stream: StreamRecord, ids: number[], flag: EditableFlag, adding: boolean): Promise<FlagUpdate> {
  if (flag !== 'read') return doUpdateFlags(shard, realm, user, ids, flag, adding);
  // Unread messages live only in subscribed channels, as in doUpdateFlags.
  const ignored = !adding && !isSubscribed(realm, user.id, stream.id);
  const loaded = new Map<number, MessageRecord | undefined>();
  const load = (id: number) => {
    if (!loaded.has(id)) loaded.set(id, getMessage(shard, realm, id));
    return loaded.get(id);
  };
  const batch = shard.batch();
  const changed = ignored ? [] : setReadOfIds(shard, batch, realm, user.id, ids, adding, load);
  await finish(shard, batch, realm, user, flag, adding, changed, load);
  return { changed, ignoredChannels: ignored && ids.length > 0 ? [stream.id] : [] };
}

/** A flag update's read mark, its event to the user, and its commit. */
async function finish(shard: Shard, batch: WriteBatch, realm: RealmState, user: UserRecord, flag: EditableFlag, adding: boolean, changed: (number | MessageRecord)[], load: (id: number) => MessageRecord | undefined): Promise<void> {
  const ids = changed.map((m) => (typeof m === 'number' ? m : m.id));
  if (flag === 'read' && adding && ids.length > 0) settleReadMark(shard, batch, realm, user.id);
  const event: Record<string, unknown> = { type: 'update_message_flags', op: adding ? 'add' : 'remove', operation: adding ? 'add' : 'remove', flag, messages: ids, all: false };
  if (flag === 'read' && !adding) event.message_details = unreadDetails(shard, realm, user, changed.flatMap((m) => (typeof m === 'number' ? (load(m) ?? []) : [m])));
  batch.emit(realm.id, event as { type: string }, [user.id]);
  await batch.commit();
}

/**
 * Marks everything read by moving the read mark to the newest message id and dropping the
 * user's flips: the cost follows the user's exceptions, not their message count.
 */
export async function doMarkAllAsRead(shard: Shard, realm: RealmState, user: UserRecord): Promise<void> {
  const batch = shard.batch();
  clearFlips(shard, batch, realm.id, user.id);
  setReadMark(shard, batch, realm, user.id, Math.max(shard.messageIds.current(), readMark(realm, user.id)));
  batch.emit(realm.id, readEvent([], true), [user.id]);
  await batch.commit();
}

/** Whether the user has a message of their own (received, sent or flagged) in the topic. */
export async function hasOwnMessageInTopic(shard: Shard, realm: RealmState, user: UserRecord, stream: StreamRecord, topic: string): Promise<boolean> {
  const plan = planNarrow(shard, realm, user, [
    { operator: 'channel', operand: stream.id, negated: false },
    { operator: 'topic', operand: topic, negated: false },
  ], { ownOnly: true });
  return (await collect(shard, realm, plan, { min: 0, max: Number.MAX_SAFE_INTEGER, reverse: false, limit: 1 }, user)).length > 0;
}

/** Marks the user's unread messages of a channel (or of one topic of it) read. */
export async function doMarkChannelAsRead(shard: Shard, realm: RealmState, user: UserRecord, stream: StreamRecord, topic: string | null): Promise<number> {
  const terms: NarrowTerm[] = [
    { operator: 'channel', operand: stream.id, negated: false },
    { operator: 'is', operand: 'unread', negated: false },
  ];
  if (topic !== null) terms.push({ operator: 'topic', operand: topic, negated: false });
  const plan = planNarrow(shard, realm, user, terms);
  const unread = await collect(shard, realm, plan, { min: 0, max: Number.MAX_SAFE_INTEGER, reverse: false, limit: Infinity }, user);
  if (unread.length === 0) return 0;
  const batch = shard.batch();
  const changed = setFlags(shard, batch, realm, user.id, unread, 'read', true);
  settleReadMark(shard, batch, realm, user.id);
  batch.emit(realm.id, readEvent(changed.map((m) => m.id), false), [user.id]);
  await batch.commit();
  return changed.length;
}
