import { dmKey, FLAG, topicKey } from '../../model/message.js';
import { readMark, received, storedBits } from '../../model/read-state.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { flipIds } from '../../store/flips.js';
import { getMessage, idsUnder, indexedMessage, mergeIds } from '../../store/messages.js';
import { shownTopic } from '../messages/views.js';
import { isMessageMuted } from '../user-topics/muting.js';

/**
 * The message sections of /register: max_message_id, unread_msgs, starred_messages and
 * recent_private_conversations, read from the sparse per-user state (model/read-state.ts).
 */

/** The reference's MAX_UNREAD_MESSAGES: only the newest unread messages are reported. */
export const MAX_UNREAD_MESSAGES = 50_000;
/** The reference's cap on starred_messages. */
const MAX_STARRED = 10_000;
/** Direct messages looked at for recent_private_conversations, as the reference does. */
const RECENT_CONVERSATIONS_LIMIT = 1000;

/**
 * Ids of the user's unread messages, newest first, at most `limit`: the messages above the
 * read watermark that they received in a direct message or a channel they are subscribed to,
 * except the flipped ones; then the flipped ones at or below the watermark, which are unread.
 * Channels the user has left do not count, as in the reference.
 */
export function unreadIds(shard: Shard, realm: RealmState, user: UserRecord, limit: number): number[] {
  const { store } = shard;
  const mark = readMark(realm, user.id);
  const flips = new Set(flipIds(store.flips, realm.id, user.id));
  const subscribed = realm.subscriptionsOf(user.id);
  const above: Iterable<number>[] = [idsUnder(store.byUserDm, [realm.id, user.id], { min: mark + 1, reverse: true })];
  for (const streamId of subscribed.keys()) {
    for (const [first, last] of realm.intervals(user.id, streamId)) {
      const min = Math.max(first, mark + 1);
      const max = last ?? Number.MAX_SAFE_INTEGER;
      if (min <= max) above.push(idsUnder(store.byStream, [realm.id, streamId], { min, max, reverse: true }));
    }
  }
  const unreadAbove = (function* () {
    for (const id of mergeIds(above, true)) if (!flips.has(id)) yield id;
  })();
  const flippedBelow = [...flips].filter((id) => id <= mark).sort((a, b) => b - a).filter((id) => {
    const msg = getMessage(shard, realm, id);
    return !!msg && received(realm, user.id, msg) && (msg.kind === 'direct' || subscribed.has(msg.streamId!));
  });
  const out: number[] = [];
  for (const id of mergeIds([unreadAbove, flippedBelow], true)) {
    if (out.length >= limit) break;
    out.push(id);
  }
  return out;
}

interface UnreadStream {
  stream_id: number;
  topic: string;
  unread_message_ids: number[];
}

/**
 * unread_msgs in the reference's shape: one entry per 1:1 conversation (keyed by the other
 * participant, oneself for self-messages), per channel topic (case-insensitively) and per group
 * conversation, each with ascending ids, in ascending key order; mentions; and the count, which
 * leaves out muted channels and topics (user-topics/muting.ts). Wildcard mentions in muted ones are
 * not mentions.
 */
export function unreadMsgs(shard: Shard, realm: RealmState, user: UserRecord, allowEmptyTopic: boolean): Record<string, unknown> {
  const ids = unreadIds(shard, realm, user, MAX_UNREAD_MESSAGES);
  const oldest = ids.length > 0 ? ids[ids.length - 1] : Number.MAX_SAFE_INTEGER;
  const mentionedIds = new Set(idsUnder(shard.store.uflagIdx, [realm.id, user.id, 'mentioned'], { min: oldest }));
  const pms = new Map<number, number[]>();
  const huddles = new Map<string, number[]>();
  const streams = new Map<string, UnreadStream>();
  const mentions: number[] = [];
  let count = 0;
  for (const id of [...ids].reverse()) {
    const msg = indexedMessage(shard, realm, id);
    if (!msg) continue;
    let muted = false;
    if (msg.kind === 'direct') {
      count++;
      const others = msg.dm!.filter((u) => u !== user.id);
      if (msg.dm!.length <= 2) push(pms, others[0] ?? user.id, id);
      else push(huddles, dmKey(msg.dm!), id);
    } else {
      muted = isMessageMuted(realm, user.id, msg);
      if (!muted) count++;
      const topic = shownTopic(msg.topic, allowEmptyTopic);
      const key = `${msg.streamId}\u0000${topicKey(topic)}`;
      let entry = streams.get(key);
      if (!entry) streams.set(key, (entry = { stream_id: msg.streamId!, topic, unread_message_ids: [] }));
      entry.unread_message_ids.push(id);
    }
    if (mentionedIds.has(id)) {
      const bits = storedBits(shard, realm, user.id, id);
      const direct = (bits & (FLAG.mentioned | FLAG.group_mentioned)) !== 0;
      const wildcard = (bits & (FLAG.stream_wildcard_mentioned | FLAG.topic_wildcard_mentioned)) !== 0;
      if (direct || (wildcard && !muted)) mentions.push(id);
    }
  }
  const byStreamAndTopic = (a: UnreadStream, b: UnreadStream) => a.stream_id - b.stream_id || (topicKey(a.topic) < topicKey(b.topic) ? -1 : topicKey(a.topic) > topicKey(b.topic) ? 1 : 0);
  return {
    pms: [...pms].sort((a, b) => a[0] - b[0]).map(([other, list]) => ({ other_user_id: other, sender_id: other, unread_message_ids: list })),
    streams: [...streams.values()].sort(byStreamAndTopic),
    huddles: [...huddles].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([key, list]) => ({ user_ids_string: key, unread_message_ids: list })),
    mentions,
    count,
    old_unreads_missing: ids.length === MAX_UNREAD_MESSAGES,
  };
}

function push<K>(map: Map<K, number[]>, key: K, id: number): void {
  const list = map.get(key);
  if (list) list.push(id);
  else map.set(key, [id]);
}

/** starred_messages: ascending, capped like the reference. */
export function starredMessages(shard: Shard, realm: RealmState, userId: number): number[] {
  return [...idsUnder(shard.store.uflagIdx, [realm.id, userId, 'starred'], { limit: MAX_STARRED })];
}

/**
 * recent_private_conversations: the user's direct-message conversations among their newest
 * direct messages, newest first, each with its newest id and the other participants.
 */
export function recentPrivateConversations(shard: Shard, realm: RealmState, userId: number): { max_message_id: number; user_ids: number[] }[] {
  const seen = new Map<string, number>();
  const range = { start: [realm.id, userId, Number.MAX_SAFE_INTEGER], end: [realm.id, userId, -1], reverse: true, limit: RECENT_CONVERSATIONS_LIMIT };
  for (const { key, value } of shard.store.byUserDm.getRange(range)) {
    const conversation = value as string;
    if (!seen.has(conversation)) seen.set(conversation, (key as number[])[2]);
  }
  return [...seen].map(([conversation, max]) => ({
    max_message_id: max,
    user_ids: conversation.split(',').map(Number).filter((id) => id !== userId),
  }));
}
