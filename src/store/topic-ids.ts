import type { Database } from 'lmdb';
import type { DamageMap } from './damage.js';

/**
 * store/messages.ts's IdRange, which this module cannot import: the write batch (which imports
 * this one) is beneath messages.ts. Inclusive bounds, newest first with `reverse`.
 */
interface IdRange {
  min?: number;
  max?: number;
  reverse?: boolean;
  limit?: number;
}

/**
 * The newest ids of recently read topics, kept in memory. A page of a topic (GET /messages
 * anchored at its newest message, the web app opening a topic) walks the topic's newest ids,
 * which the byTopic index gives by a cursor: a native call and a decoded key per id, about a
 * tenth of the shard's time per page in P5's profile. Here a topic's newest WINDOW ids are read
 * once, and the ranges within them are served from an array; a range reaching below them goes
 * on with the index.
 *
 * What an entry holds must be what the committed index holds. Every write of byTopic tells the
 * table's cache once its transaction has ended, committed or not: a write batch names each row's
 * topic (`written`, which drops that topic's entry), and an import's batch, a realm copy being
 * loaded and a realm's rows being cleared drop every entry (`clear`). Until then reads see the
 * snapshot before the transaction, from LMDB or from an entry alike; an entry read meanwhile
 * goes with the others. Sends, deletes, moves of messages and of whole topics all write through
 * a batch. The cache lives in the shard's thread, and a restart starts it empty.
 */

/** Ids per topic: a page is 100 (P5, the web app), and the next page down is one more read. */
const WINDOW = 256;
/** Topics kept, the oldest filled dropped first: at most about 1 MB. */
const TOPICS = 1024;

interface Entry {
  /** The topic's newest ids, ascending. */
  ids: Int32Array;
  /** Whether they are all of the topic's ids (it has fewer than WINDOW). */
  complete: boolean;
}

/** byTopic keys are [realmId, streamId, topicKey, msgId]; ids and realm ids hold no colon. */
const entryKey = (realmId: number, streamId: number, topic: string) => `${realmId}:${streamId}:${topic}`;

/** Whether a failed commit left byTopic (or the whole store) unlike memory: then only the index answers. */
const indexDamaged = (damage?: DamageMap): boolean => damage !== undefined && damage.tables.size > 0 && (damage.tables.has('byTopic') || damage.tables.has('*'));

export class TopicIds {
  private readonly entries = new Map<string, Entry>();
  /**
   * The oldest committed id of recently asked topics (Infinity: the topic has none), for
   * `hasBelow`. Unlike a topic's newest ids, its oldest is changed only by a write of an id at
   * or below it (a delete or a move of the oldest, a message imported below it), so a send to
   * the topic leaves it.
   */
  private readonly oldest = new Map<string, number>();

  constructor(readonly table: Database) {}

  /**
   * The topic's ids within the range, as idsUnder(byTopic, prefix, range) gives them. With a
   * damaged byTopic (or store) known, the index is read, which refuses as it should.
   */
  ids(prefix: [number, number, string], range: IdRange, damage?: DamageMap): Iterable<number> {
    if (indexDamaged(damage)) return this.read(prefix, range);
    const key = entryKey(prefix[0], prefix[1], prefix[2]);
    let entry = this.entries.get(key);
    if (!entry) entry = this.fill(key, prefix);
    return this.serve(entry, prefix, range);
  }

  /**
   * Whether the topic has an id below `id`, as idsUnder(byTopic, prefix, {max: id - 1}) would
   * answer. Asked at every send to a channel whose sender starts topics they follow (Zulip's
   * default policy, api/user-topics/automatic.ts): a cursor on the index each time was a fifth
   * of the send's time on the shard.
   */
  hasBelow(prefix: [number, number, string], id: number, damage?: DamageMap): boolean {
    if (indexDamaged(damage)) {
      for (const _ of this.read(prefix, { max: id - 1, limit: 1 })) return true;
      return false;
    }
    const key = entryKey(prefix[0], prefix[1], prefix[2]);
    let oldest = this.oldest.get(key);
    if (oldest === undefined) {
      oldest = Infinity;
      for (const k of this.table.getKeys({ start: [...prefix, 0], end: [...prefix, Number.MAX_SAFE_INTEGER], limit: 1 })) oldest = (k as number[])[3];
      if (this.oldest.size >= TOPICS) this.oldest.delete(this.oldest.keys().next().value!);
      this.oldest.set(key, oldest);
    }
    return oldest < id;
  }

  /** The index's answer, for what the entry does not hold. */
  private read(prefix: [number, number, string], range: IdRange): Iterable<number> {
    const min = range.min ?? 0;
    const max = range.max ?? Number.MAX_SAFE_INTEGER;
    // lmdb's `end` is exclusive; ids are integers, so half a step past the bound includes it.
    const opts = range.reverse ? { start: [...prefix, max], end: [...prefix, min - 0.5], reverse: true, limit: range.limit } : { start: [...prefix, min], end: [...prefix, max + 0.5], limit: range.limit };
    return this.table.getKeys(opts).map((k) => (k as number[])[3]);
  }

  private fill(key: string, prefix: [number, number, string]): Entry {
    const newest: number[] = [];
    for (const k of this.table.getKeys({ start: [...prefix, Number.MAX_SAFE_INTEGER], end: [...prefix, -1], reverse: true, limit: WINDOW })) newest.push((k as number[])[3]);
    const ids = new Int32Array(newest.length);
    for (let i = 0; i < newest.length; i++) ids[i] = newest[newest.length - 1 - i];
    const entry = { ids, complete: newest.length < WINDOW };
    if (this.entries.size >= TOPICS) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, entry);
    return entry;
  }

  private *serve(entry: Entry, prefix: [number, number, string], range: IdRange): Generator<number> {
    const { ids, complete } = entry;
    const min = range.min ?? 0;
    const max = range.max ?? Number.MAX_SAFE_INTEGER;
    const limit = range.limit ?? Infinity;
    // Below `floor` the entry knows nothing: those ids are the index's.
    const floor = complete || ids.length === 0 ? 0 : ids[0];
    const below = !complete && min < floor ? { min, max: Math.min(max, floor - 1) } : null;
    let n = 0;
    if (!range.reverse && below && below.min <= below.max) {
      for (const id of this.read(prefix, { ...below, limit: range.limit })) {
        yield id;
        if (++n >= limit) return;
      }
    }
    if (range.reverse) {
      for (let i = lastAtMost(ids, max); i >= 0 && ids[i] >= min; i--) {
        if (n >= limit) return;
        n++;
        yield ids[i];
      }
    } else {
      for (let i = lastAtMost(ids, min - 1) + 1; i < ids.length && ids[i] <= max; i++) {
        if (n >= limit) return;
        n++;
        yield ids[i];
      }
    }
    if (range.reverse && below && below.min <= below.max && n < limit) {
      yield* this.read(prefix, { ...below, reverse: true, limit: range.limit === undefined ? undefined : limit - n });
    }
  }

  /** A row of byTopic was written (or deleted): its topic's entry goes, and its oldest id if the row's is not above it. */
  written(key: unknown): void {
    if (this.entries.size === 0 && this.oldest.size === 0) return;
    const [realmId, streamId, topic, id] = key as [number, number, string, number];
    const k = entryKey(realmId, streamId, topic);
    this.entries.delete(k);
    const oldest = this.oldest.get(k);
    if (oldest !== undefined && !(id > oldest)) this.oldest.delete(k);
  }

  /** Rows were written that the caller does not name one by one. */
  clear(): void {
    this.entries.clear();
    this.oldest.clear();
  }
}

/** The index of the last id <= `value` in ascending `ids`, or -1. */
function lastAtMost(ids: Int32Array, value: number): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid] <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

const caches = new WeakMap<Database, TopicIds>();

/** The cache of a byTopic table, made on its first read. */
export function topicIds(db: Database): TopicIds {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new TopicIds(db)));
  return cache;
}

/** The cache of `db`, if it is a byTopic table that has one: what a write must tell. */
export function topicIdsOf(db: Database): TopicIds | undefined {
  return caches.get(db);
}
