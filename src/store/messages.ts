import type { Database, RangeOptions } from 'lmdb';
import { dmKey, topicKey, type MessageRecord } from '../model/message.js';
import type { RealmState } from '../model/realm-state.js';
import { indexSearch } from './search.js';
import type { DamageMap } from './damage.js';
import type { StoreView, WriteBatch } from './shard-store.js';

/**
 * Messages and their indexes (key layout in store/shard-store.ts). Every index key ends with the
 * message id, so "the messages of X between ids a and b, newest first" is one range read of keys
 * [...X, a] to [...X, b], reversed; nothing else is scanned.
 */

export function insertMessage(shard: StoreView, batch: WriteBatch, msg: MessageRecord): void {
  const { store } = shard;
  batch.put(store.messages, msg.id, msg);
  indexMessage(shard, batch, msg, true);
}

/** Adds (or removes) a message's index rows; a move removes the old ones and adds the new. */
export function indexMessage(shard: StoreView, batch: WriteBatch, msg: MessageRecord, add: boolean): void {
  const { store } = shard;
  const put = (db: typeof store.byStream, key: (string | number)[], value: unknown = null) => (add ? batch.put(db, key, value) : batch.del(db, key));
  const r = msg.realmId;
  if (msg.kind === 'stream') {
    put(store.byStream, [r, msg.streamId!, msg.id]);
    put(store.byTopic, [r, msg.streamId!, topicKey(msg.topic), msg.id]);
  } else {
    const key = dmKey(msg.dm!);
    put(store.byDm, [r, key, msg.id]);
    for (const userId of msg.dm!) put(store.byUserDm, [r, userId, msg.id], key);
  }
  put(store.bySender, [r, msg.senderId, msg.id]);
  indexSearch(shard, batch, msg, add);
}

export function getMessage(shard: StoreView, realm: RealmState, id: number): MessageRecord | undefined {
  const msg = shard.read<MessageRecord>(shard.store.messages, id);
  return msg && msg.realmId === realm.id ? msg : undefined;
}

/**
 * A message that an index of `realm` names, read in the same synchronous step as the index. The
 * index rows go in the message's transaction, so a message that is not there (or is another
 * realm's) is damage (store/damage.ts), unless a write not yet committed is deleting it: an
 * answer built without it would be short and look complete.
 */
export function indexedMessage(shard: StoreView & { damage: DamageMap }, realm: RealmState, id: number): MessageRecord | undefined {
  const msg = shard.read<MessageRecord>(shard.store.messages, id);
  if (msg && msg.realmId === realm.id) return msg;
  if (shard.pendingWrite(shard.store.messages, id)) return undefined;
  throw shard.damage.damaged('messages', `an index of realm ${realm.id} names message ${id}, which ${msg ? `is realm ${msg.realmId}'s` : 'is not there'}`);
}

export function putMessage(shard: StoreView, batch: WriteBatch, msg: MessageRecord): void {
  batch.put(shard.store.messages, msg.id, msg);
}

export interface IdRange {
  /** Inclusive bounds; default: everything. */
  min?: number;
  max?: number;
  /** Newest first. */
  reverse?: boolean;
  limit?: number;
}

/** Message ids under an index prefix, within [min, max]. */
export function idsUnder(db: Database, prefix: (string | number)[], range: IdRange = {}): Iterable<number> {
  const min = range.min ?? 0;
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  // lmdb's `end` is exclusive; ids are integers, so half a step past the bound includes it.
  const opts: RangeOptions = range.reverse
    ? { start: [...prefix, max], end: [...prefix, min - 0.5], reverse: true }
    : { start: [...prefix, min], end: [...prefix, max + 0.5] };
  if (range.limit !== undefined) opts.limit = range.limit;
  const at = prefix.length;
  return db.getKeys(opts).map((key) => (key as number[])[at]);
}

/**
 * A channel's oldest committed message id that is not in `excluding` (messages being deleted in
 * the caller's transaction), or null. Reads at most one id more than it excludes, to the end:
 * an unfinished cursor would pin its read transaction (see mergeIds).
 */
export function firstMessageIn(shard: StoreView, realmId: number, streamId: number, excluding: ReadonlySet<number> = new Set()): number | null {
  const ids = [...idsUnder(shard.store.byStream, [realmId, streamId], { limit: excluding.size + 1 })];
  return ids.find((id) => !excluding.has(id)) ?? null;
}

/**
 * Merges ascending (or, with reverse, descending) id sequences, dropping duplicates.
 *
 * The sources are LMDB cursors. A consumer that stops early (a limit) leaves them unfinished,
 * and an unfinished cursor pins its read transaction: once writes have moved on, each pinned
 * snapshot holds one of the environment's 126 reader slots, until MDB_READERS_FULL. So every
 * source is closed when the merge ends, however it ends.
 */
export function* mergeIds(sources: Iterable<number>[], reverse = false): Generator<number> {
  const its = sources.map((s) => s[Symbol.iterator]());
  try {
    const heads = its.map((it) => it.next());
    let last: number | undefined;
    for (;;) {
      let best = -1;
      for (let i = 0; i < heads.length; i++) {
        if (heads[i].done) continue;
        if (best < 0 || (reverse ? heads[i].value > heads[best].value : heads[i].value < heads[best].value)) best = i;
      }
      if (best < 0) return;
      const id = heads[best].value as number;
      heads[best] = its[best].next();
      if (id !== last) yield id;
      last = id;
    }
  } finally {
    for (const it of its) it.return?.();
  }
}

/**
 * The ids of every message a user received within [min, max], ascending or descending: their
 * direct messages, and each channel's messages within the user's subscription intervals. (A
 * sender's own messages to channels they are not subscribed to are not included.)
 */
export function receivedIds(shard: StoreView, realm: RealmState, userId: number, range: IdRange = {}): Iterable<number> {
  const { store } = shard;
  const sources: Iterable<number>[] = [idsUnder(store.byUserDm, [realm.id, userId], { ...range, limit: undefined })];
  for (const [streamId, intervals] of realm.subHistory.get(userId) ?? []) {
    for (const [first, last] of intervals) {
      const min = Math.max(first, range.min ?? 0);
      const max = Math.min(last ?? Number.MAX_SAFE_INTEGER, range.max ?? Number.MAX_SAFE_INTEGER);
      if (min <= max) sources.push(idsUnder(store.byStream, [realm.id, streamId], { min, max, reverse: range.reverse }));
    }
  }
  return limited(mergeIds(sources, range.reverse), range.limit);
}

function* limited(ids: Iterable<number>, limit?: number): Generator<number> {
  if (limit === undefined) return yield* ids;
  let n = 0;
  for (const id of ids) {
    if (n++ >= limit) return;
    yield id;
  }
}

/** The newest message the user received or sent, or -1. */
export function maxMessageId(shard: StoreView, realm: RealmState, userId: number): number {
  let max = -1;
  for (const id of receivedIds(shard, realm, userId, { reverse: true, limit: 1 })) max = id;
  for (const id of idsUnder(shard.store.bySender, [realm.id, userId], { reverse: true, limit: 1 })) max = Math.max(max, id);
  return max;
}
