import { flagBlocks } from '../store/flag-blocks.js';
import { flipBlock, flippedAmong, flipIds, hasBit, hasFlip, setFlip } from '../store/flips.js';
import type { StoreView, WriteBatch } from '../store/shard-store.js';
import { FLAG, INDEXED_FLAGS, READ_FLIP, type FlagName, type MessageRecord } from './message.js';
import type { RealmState, SubInterval } from './realm-state.js';

/**
 * Per-user message state, kept sparse so that a send costs the same whatever the channel's size.
 *
 * Who received a message is derived, not stored: the sender, the participants of a direct
 * message, and for a channel message the users whose subscription history (RealmState
 * .subHistory) covers its id; except that a message moved to another channel stores its
 * receivers (see received()). A user who can read a message without having received it sees it
 * as `historical` (and read).
 *
 * Read state uses a per-user watermark W (RealmState.readMarks): a received message is read iff
 * `id <= W`, inverted when it carries a flip. New messages arrive above W and so are unread with
 * no write at all; reading them sets flips, and `advanceReadMark` moves W up past the read prefix
 * so the flips do not pile up; "mark all as read" just moves W. The flips are a per-user set of
 * ids in blocks (store/flips.ts), which the code here shows as the READ_FLIP bit of a message's
 * stored bits. Every other flag is a bit in a sparse uflags row, present only while some bit is
 * set, and the flags that narrows search (starred, mentioned, alerted) are mirrored in uflagIdx as
 * [realmId, userId, flag, msgId] so each is a range read.
 */

/** The API's flag names, in the reference's order. */
const SHOWN: FlagName[] = ['read', 'starred', 'collapsed', 'mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned', 'group_mentioned', 'has_alert_word', 'historical'];

export function readMark(realm: RealmState, userId: number): number {
  return realm.readMarks.get(userId) ?? 0;
}

export function setReadMark(shard: StoreView, batch: WriteBatch, realm: RealmState, userId: number, mark: number): void {
  realm.readMarks.set(userId, mark);
  batch.put(shard.store.readMarks, [realm.id, userId], mark);
}

/**
 * Whether the user received the message (rather than being able to read it historically). A
 * message moved to another channel carries its receivers, fixed at the move as the reference's
 * UserMessage rows are (api/messages/move.ts): the new channel's subscription history says
 * nothing about who received a message sent elsewhere.
 */
export function received(realm: RealmState, userId: number, msg: MessageRecord): boolean {
  return receivedBy(msg, userId) ?? within(realm.intervals(userId, msg.streamId!), msg.id);
}

/** What the message itself says of whether the user received it; undefined: its channel's intervals decide. */
function receivedBy(msg: MessageRecord, userId: number): boolean | undefined {
  if (msg.receivers) return sortedHas(msg.receivers, userId);
  if (msg.senderId === userId) return true;
  if (msg.kind === 'direct') return msg.dm!.includes(userId);
  return undefined;
}

function within(intervals: SubInterval[], id: number): boolean {
  for (const [first, last] of intervals) {
    if (id >= first && (last === null || id <= last)) return true;
  }
  return false;
}

function sortedHas(ids: number[], id: number): boolean {
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ids[mid] === id) return true;
    if (ids[mid] < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** A message's stored bits for the user: its uflags row, and READ_FLIP from the flip set. */
export function storedBits(shard: StoreView, realm: RealmState, userId: number, msgId: number): number {
  const bits = shard.read<number>(shard.store.uflags, [realm.id, userId, msgId]) ?? 0;
  return hasFlip(shard, realm.id, userId, msgId) ? bits | READ_FLIP : bits;
}

/**
 * storedBits for many messages at once: each block of ids they fall in is read once per user and
 * kept (store/flag-blocks.ts: its uflags rows, none for most blocks, and its flip bitmap), instead
 * of a lookup per message (a page of history has 100); the shard's uncommitted writes on top.
 */
export function storedBitsOf(shard: StoreView, realm: RealmState, userId: number, msgs: MessageRecord[]): Map<number, number> {
  return storedBitsOfIds(shard, realm, userId, msgs.map((m) => m.id));
}

/** storedBitsOf by ids alone: only ids with stored bits are in the map. */
export function storedBitsOfIds(shard: StoreView, realm: RealmState, userId: number, ids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  if (ids.length === 0) return out;
  const { uflags, flips } = shard.store;
  // A table known damaged is read, which refuses as it should, rather than answered from memory.
  const damage = shard.damage?.tables;
  if (damage && damage.size > 0 && (damage.has('uflags') || damage.has('flips') || damage.has('*'))) return storedBitsRead(shard, realm, userId, ids);
  const cache = flagBlocks(uflags, flips);
  const r = realm.id;
  let block = -1;
  let rows: Map<number, number> | null = null;
  let flipBits: Uint8Array | null | undefined = null;
  for (const id of ids) {
    const b = flipBlock(id);
    if (b !== block) {
      block = b;
      const entry = cache.block(r, userId, b);
      rows = entry.rows;
      const pendingFlips = shard.pendingWrite(flips, [r, userId, b]);
      flipBits = pendingFlips ? (pendingFlips.value as Uint8Array | undefined) : entry.flips;
    }
    let bits = rows?.get(id) ?? 0;
    const pending = shard.pendingWrite(uflags, [r, userId, id]);
    if (pending) bits = (pending.value as number | undefined) ?? 0;
    if (flipBits && hasBit(flipBits, id)) bits |= READ_FLIP;
    if (bits !== 0) out.set(id, bits);
  }
  return out;
}

/** storedBitsOfIds from the tables themselves: one range read of the uflags rows, the flip blocks. */
function storedBitsRead(shard: StoreView, realm: RealmState, userId: number, ids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  let min = ids[0];
  let max = min;
  for (const id of ids) {
    if (id < min) min = id;
    if (id > max) max = id;
  }
  for (const { key, value } of shard.store.uflags.getRange({ start: [realm.id, userId, min], end: [realm.id, userId, max + 0.5] })) {
    out.set((key as number[])[2], value as number);
  }
  for (const id of ids) {
    const pending = shard.pendingWrite(shard.store.uflags, [realm.id, userId, id]);
    if (pending) out.set(id, (pending.value as number | undefined) ?? 0);
  }
  for (const id of flippedAmong(shard, realm.id, userId, ids)) out.set(id, (out.get(id) ?? 0) | READ_FLIP);
  return out;
}

/**
 * Every message's stored bits for the user within [min, max], committed (an export's file of
 * messages): the uflags rows and the flips, one range read each.
 */
export function storedBitsBetween(shard: StoreView, realm: RealmState, userId: number, min: number, max: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const { key, value } of shard.store.uflags.getRange({ start: [realm.id, userId, min], end: [realm.id, userId, max + 0.5] })) {
    out.set((key as number[])[2], value as number);
  }
  for (const id of flipIds(shard.store.flips, realm.id, userId, { min, max })) out.set(id, (out.get(id) ?? 0) | READ_FLIP);
  return out;
}

/** The bits the API shows, read included, for one user and message. */
export function flagBits(shard: StoreView, realm: RealmState, userId: number, msg: MessageRecord, stored = storedBits(shard, realm, userId, msg.id)): number {
  return shownBits(stored, received(realm, userId, msg), msg.id, realm, userId);
}

/** The shown bits from the stored ones; `mark`, the user's read mark when the caller has it. */
function shownBits(stored: number, receivedIt: boolean, id: number, realm: RealmState, userId: number, mark?: number): number {
  let bits = stored & ~READ_FLIP;
  if (receivedIt) {
    if (id <= (mark ?? readMark(realm, userId)) !== ((stored & READ_FLIP) !== 0)) bits |= FLAG.read;
  } else bits |= FLAG.read | FLAG.historical;
  return bits;
}

/**
 * flagBits for the messages of one page and one viewer, as one synchronous step: the read mark
 * and the channel's subscription intervals are looked up once per channel of the page rather
 * than once per message (a page of a topic has one channel; each lookup is a Map's).
 */
export function pageFlagBits(realm: RealmState, userId: number): (msg: MessageRecord, stored: number) => number {
  const mark = readMark(realm, userId);
  let streamId = -1;
  let intervals: SubInterval[] = [];
  return (msg, stored) => {
    let got = receivedBy(msg, userId);
    if (got === undefined) {
      if (msg.streamId !== streamId) {
        streamId = msg.streamId!;
        intervals = realm.intervals(userId, streamId);
      }
      got = within(intervals, msg.id);
    }
    return shownBits(stored, got, msg.id, realm, userId, mark);
  };
}

export function flagNames(bits: number): string[] {
  const out: string[] = [];
  for (const name of SHOWN) if (bits & FLAG[name]) out.push(name);
  // Deprecated since feature level 224, still sent: either kind of wildcard mention.
  if (bits & (FLAG.stream_wildcard_mentioned | FLAG.topic_wildcard_mentioned)) out.push('wildcard_mentioned');
  return out;
}

export function userFlags(shard: StoreView, realm: RealmState, userId: number, msg: MessageRecord, stored?: number): string[] {
  return flagNames(flagBits(shard, realm, userId, msg, stored));
}

/** INDEXED_FLAGS as pairs once, not an array of them per row written. */
const INDEXED = Object.entries(INDEXED_FLAGS);

/**
 * Replaces a user's stored bits for a message, keeping uflagIdx in step. READ_FLIP goes to the
 * flip set; the uflags row (and its uflagUsers entry) holds the rest.
 */
export function writeBits(shard: StoreView, batch: WriteBatch, realm: RealmState, userId: number, msgId: number, storedBefore: number, storedAfter: number): void {
  if (storedBefore === storedAfter) return;
  if ((storedBefore ^ storedAfter) & READ_FLIP) setFlip(shard, batch, realm.id, userId, msgId, (storedAfter & READ_FLIP) !== 0);
  const before = storedBefore & ~READ_FLIP;
  const after = storedAfter & ~READ_FLIP;
  if (before === after) return;
  const key = [realm.id, userId, msgId];
  if (after === 0) batch.del(shard.store.uflags, key);
  else batch.put(shard.store.uflags, key, after);
  // The reverse index: who has a row for a message, so that deleting it finds them directly.
  if (before === 0) batch.put(shard.store.uflagUsers, [realm.id, msgId, userId], null);
  else if (after === 0) batch.del(shard.store.uflagUsers, [realm.id, msgId, userId]);
  for (const [flag, mask] of INDEXED) {
    const had = (before & mask) !== 0;
    const has = (after & mask) !== 0;
    if (had === has) continue;
    const idx = [realm.id, userId, flag, msgId];
    if (has) batch.put(shard.store.uflagIdx, idx, null);
    else batch.del(shard.store.uflagIdx, idx);
  }
}

/**
 * Sets or clears a flag (read included) for one user on one message. Returns whether anything
 * changed; `stored` is the message's stored bits, when the caller read many at once (setFlags). Messages the user did not receive are read and historical by definition: setting read
 * on them changes nothing, and other flags are stored with `historical` so they show as such.
 */
export function setFlag(shard: StoreView, batch: WriteBatch, realm: RealmState, userId: number, msg: MessageRecord, flag: FlagName, on: boolean, stored = storedBits(shard, realm, userId, msg.id)): boolean {
  const isReceived = received(realm, userId, msg);
  let after = stored;
  if (flag === 'read') {
    if (!isReceived) return false;
    const readNow = msg.id <= readMark(realm, userId) !== ((stored & READ_FLIP) !== 0);
    if (readNow === on) return false;
    after ^= READ_FLIP;
  } else {
    after = on ? after | FLAG[flag] : after & ~FLAG[flag];
    if (!isReceived) after = after & ~FLAG.historical ? after | FLAG.historical : 0;
    if (after === stored) return false;
  }
  writeBits(shard, batch, realm, userId, msg.id, stored, after);
  return true;
}

/**
 * Moves the user's watermark up past every read message right above it, dropping their flips,
 * so that a user who reads as messages come keeps no rows at all. `next` yields, in ascending
 * order, the ids of the messages above the mark that the user received; the walk stops at the
 * first unread one (or after `limit` steps, to bound the work of one request). Messages of a
 * channel the user has left are not walked: like the reference, clients ignore their unread
 * state, and here moving past them makes them read.
 */
export function advanceReadMark(shard: StoreView, batch: WriteBatch, realm: RealmState, userId: number, receivedAbove: Iterable<number>, limit = 10_000): void {
  let mark = readMark(realm, userId);
  let steps = 0;
  for (const id of receivedAbove) {
    if (++steps > limit) break;
    const stored = storedBits(shard, realm, userId, id);
    if (!(stored & READ_FLIP)) break;
    writeBits(shard, batch, realm, userId, id, stored, stored & ~READ_FLIP);
    mark = id;
  }
  if (mark !== readMark(realm, userId)) setReadMark(shard, batch, realm, userId, mark);
}

/**
 * setFlag over many messages: their stored bits are one range read of the user's sparse rows
 * (storedBitsOf) instead of a lookup each, which was a fifth of marking 5,000 messages read.
 * Few messages keep the lookups: a range between two far-apart ids could hold many rows.
 */
export function setFlags(shard: StoreView, batch: WriteBatch, realm: RealmState, userId: number, msgs: MessageRecord[], flag: FlagName, on: boolean): MessageRecord[] {
  if (msgs.length < 64) return msgs.filter((msg) => setFlag(shard, batch, realm, userId, msg, flag, on));
  const stored = storedBitsOf(shard, realm, userId, msgs);
  return msgs.filter((msg) => setFlag(shard, batch, realm, userId, msg, flag, on, stored.get(msg.id) ?? 0));
}

/**
 * setFlags for `read` over message ids, reading a message (`load`) only where its answer turns
 * on whether the user received it: a message with a flip was received (flips are written only
 * for received messages, and a move that takes a message from a user drops their rows), and one
 * at or below the mark without a flip is read whoever holds it. So marking read what was marked
 * unread, the common sweep, reads no message. Returns the ids that changed.
 */
export function setReadOfIds(shard: StoreView, batch: WriteBatch, realm: RealmState, userId: number, ids: number[], on: boolean, load: (id: number) => MessageRecord | undefined): number[] {
  const stored = ids.length < 64 ? null : storedBitsOfIds(shard, realm, userId, ids);
  const mark = readMark(realm, userId);
  const changed: number[] = [];
  for (const id of ids) {
    const bits = stored ? (stored.get(id) ?? 0) : storedBits(shard, realm, userId, id);
    if (bits & READ_FLIP) {
      // Read iff above the mark.
      if (id > mark === on) continue;
    } else {
      // Read iff at or below the mark, if received; one the user did not receive is read
      // (historical) either way and does not change.
      if (id > mark !== on) continue;
      const msg = load(id);
      if (!msg || !received(realm, userId, msg)) continue;
    }
    writeBits(shard, batch, realm, userId, id, bits, bits ^ READ_FLIP);
    changed.push(id);
  }
  return changed;
}
