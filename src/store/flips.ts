import type { Database } from 'lmdb';
import { BLOCK } from './flag-blocks.js';
import type { IdRange } from './messages.js';
import type { StoreView, WriteBatch } from './shard-store.js';

/**
 * A user's read flips (model/read-state.ts: the messages whose read state is the opposite of
 * what their read mark says) as a set of ids in blocks: one row per user per FLIP_BLOCK ids,
 * a bitmap, present only while some bit is set, and a reverse row per block saying who has one.
 *
 *   flips      [realmId, userId, block]  -> Uint8Array(FLIP_BLOCK / 8)  bit i: id block*FLIP_BLOCK+i
 *   flipUsers  [realmId, block, userId]  -> null
 *
 * A flip used to be three rows (its uflags row, that row's uflagUsers entry and a `flip` index
 * entry), so marking 10,000 messages read was 30,000 B-tree deletes; here it is a bit, and the
 * rows written are the blocks the ids fall in (10,000 ids of one channel among ten span about
 * a hundred blocks). Store format 3 (store/format.ts) moved the old rows here.
 */
export const FLIP_BLOCK = BLOCK;
const BYTES = FLIP_BLOCK / 8;

export const flipBlock = (id: number): number => Math.floor(id / FLIP_BLOCK);

export function hasBit(bits: Uint8Array, id: number): boolean {
  return (bits[(id % FLIP_BLOCK) >> 3] & (1 << (id & 7))) !== 0;
}

function popcount(bits: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < bits.length; i++) for (let b = bits[i]; b; b &= b - 1) n++;
  return n;
}

/** The ids a block's bitmap holds, ascending. */
export function blockIds(block: number, bits: Uint8Array): number[] {
  const out: number[] = [];
  const base = block * FLIP_BLOCK;
  for (let i = 0; i < bits.length; i++) {
    const byte = bits[i];
    if (byte === 0) continue;
    for (let b = 0; b < 8; b++) if (byte & (1 << b)) out.push(base + i * 8 + b);
  }
  return out;
}

/** A block as the shard's own uncommitted writes have left it (undefined: no flip in it). */
export function flipBlockOf(shard: StoreView, realmId: number, userId: number, block: number): Uint8Array | undefined {
  return shard.read<Uint8Array>(shard.store.flips, [realmId, userId, block]);
}

export function hasFlip(shard: StoreView, realmId: number, userId: number, msgId: number): boolean {
  const bits = flipBlockOf(shard, realmId, userId, flipBlock(msgId));
  return bits !== undefined && hasBit(bits, msgId);
}

/** Which of `ids` carry a flip: one read per block the ids fall in, the batch's writes included. */
export function flippedAmong(shard: StoreView, realmId: number, userId: number, ids: Iterable<number>): Set<number> {
  const out = new Set<number>();
  let block = -1;
  let bits: Uint8Array | undefined;
  const blocks = new Map<number, Uint8Array | undefined>();
  for (const id of ids) {
    const b = flipBlock(id);
    if (b !== block) {
      block = b;
      if (!blocks.has(b)) blocks.set(b, flipBlockOf(shard, realmId, userId, b));
      bits = blocks.get(b);
    }
    if (bits !== undefined && hasBit(bits, id)) out.add(id);
  }
  return out;
}

/** A block being changed by a batch: a copy of its bits, which the batch's put holds. */
interface Edit {
  key: [number, number, number];
  /** JSON.stringify(key): the uncommitted writes' key of the row. */
  json: string;
  /**
   * The row's uncommitted write when the batch last read or wrote it. Another one there now means
   * another action changed the block in between (this one awaited something between two flips):
   * the bits are read again, from that write, which was made from this batch's.
   */
  seen: { value: unknown } | undefined;
  bits: Uint8Array;
  /** Bits set. */
  n: number;
  /** Whether the batch's last write of the row is a put of `bits` (not a delete). */
  put: boolean;
}

function edit(shard: StoreView, batch: WriteBatch, realmId: number, userId: number, block: number): Edit {
  const k = `flips:${realmId}:${userId}:${block}`;
  const before = batch.memo.get(k) as Edit | undefined;
  if (before && shard.pendingWrite(shard.store.flips, before.key, before.json) === before.seen) return before;
  const key: [number, number, number] = [realmId, userId, block];
  const json = JSON.stringify(key);
  const stored = flipBlockOf(shard, realmId, userId, block);
  // A copy: LMDB's value may share a buffer, and another batch's pending block is its own.
  const bits = new Uint8Array(BYTES);
  if (stored) bits.set(stored);
  const e: Edit = { key, json, seen: shard.pendingWrite(shard.store.flips, key, json), bits, n: popcount(bits), put: false };
  batch.memo.set(k, e);
  // This batch wrote the block before another action did: its write is replaced by the newer
  // block, which holds this batch's bits too, so that committing it does not undo the other's.
  if (before) changed(shard, batch, e, before.n);
  return e;
}

function changed(shard: StoreView, batch: WriteBatch, e: Edit, was: number): void {
  const [realmId, userId, block] = e.key;
  if (e.n === 0) {
    batch.del(shard.store.flips, e.key);
    batch.del(shard.store.flipUsers, [realmId, block, userId]);
    e.put = false;
  } else {
    // The bits are changed in place after the put: values are encoded when the batch commits.
    if (!e.put) batch.put(shard.store.flips, e.key, e.bits);
    if (was === 0) batch.put(shard.store.flipUsers, [realmId, block, userId], null);
    e.put = true;
  }
  e.seen = shard.pendingWrite(shard.store.flips, e.key, e.json);
}

/** Sets or clears one flip, in the batch. */
export function setFlip(shard: StoreView, batch: WriteBatch, realmId: number, userId: number, msgId: number, on: boolean): void {
  const e = edit(shard, batch, realmId, userId, flipBlock(msgId));
  const at = (msgId % FLIP_BLOCK) >> 3;
  const mask = 1 << (msgId & 7);
  if (((e.bits[at] & mask) !== 0) === on) return;
  const was = e.n;
  if (on) e.bits[at] |= mask;
  else e.bits[at] &= ~mask;
  e.n += on ? 1 : -1;
  if ((was === 0) !== (e.n === 0) || !e.put) changed(shard, batch, e, was);
}

/**
 * The user's flipped ids within the range, from the committed blocks (as the other indexes'
 * ranges are: a caller that needs the in-flight writes waits for them, as /register does).
 */
export function* flipIds(db: Database, realmId: number, userId: number, range: IdRange = {}): Generator<number> {
  const min = range.min ?? 0;
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  if (min > max) return;
  let left = range.limit ?? Infinity;
  if (left <= 0) return;
  const lo = flipBlock(min);
  const hi = flipBlock(max);
  const rows = range.reverse
    ? db.getRange({ start: [realmId, userId, hi], end: [realmId, userId, lo - 0.5], reverse: true })
    : db.getRange({ start: [realmId, userId, lo], end: [realmId, userId, hi + 0.5] });
  for (const { key, value } of rows) {
    const ids = blockIds((key as number[])[2], value as Uint8Array);
    if (range.reverse) ids.reverse();
    for (const id of ids) {
      if (id < min || id > max) continue;
      yield id;
      if (--left <= 0) return;
    }
  }
}

/** Each block's holders and their bits, as one action first read them (FlipHolders). */
export type HolderCache = Map<number, [number, Uint8Array][]>;

/**
 * Users with a flip on the message (deletes and moves: who holds state for it). An action over
 * many messages (a topic's deletion, a channel move) passes one `cache`, so that each block's
 * holders are read once however many of its messages go: a block of a busy channel can have a
 * flip of most of its readers. Each message is asked about once: the cache does not follow the
 * action's own changes.
 */
export function flipHolders(shard: StoreView, realmId: number, msgId: number, cache?: HolderCache): number[] {
  const block = flipBlock(msgId);
  let holders = cache?.get(block);
  if (!holders) {
    holders = [];
    for (const key of shard.store.flipUsers.getKeys({ start: [realmId, block], end: [realmId, block + 1] })) {
      const userId = (key as number[])[2];
      const bits = flipBlockOf(shard, realmId, userId, block);
      if (bits) holders.push([userId, cache ? Uint8Array.from(bits) : bits]);
    }
    cache?.set(block, holders);
  }
  return holders.filter(([, bits]) => hasBit(bits, msgId)).map(([userId]) => userId);
}

/** Drops every flip of the user ("mark all as read"). */
export function clearFlips(shard: StoreView, batch: WriteBatch, realmId: number, userId: number): void {
  for (const key of shard.store.flips.getKeys({ start: [realmId, userId], end: [realmId, userId + 1] })) {
    const e = edit(shard, batch, realmId, userId, (key as number[])[2]);
    if (e.n === 0) continue;
    const was = e.n;
    e.bits.fill(0);
    e.n = 0;
    changed(shard, batch, e, was);
  }
}
