import type { Database, RootDatabase } from 'lmdb';
import { flagBlocks, type FlagBlocks } from './flag-blocks.js';
import { topicIds, type TopicIds } from './topic-ids.js';

/**
 * The write path of a shard's store: writes made by actions and not yet committed (the overlay
 * that reads see first), and the batch that carries one action's writes and events into one
 * LMDB transaction. Tables and their key layout are store/shard-store.ts.
 */

export type Key = string | number | (string | number)[];

/** The rows of a failed transaction, by table. */
export type Touched = [Database, Key[]][];

/** An event as actions emit it, before any queue has shaped it. */
export interface ShardEvent {
  type: string;
  [field: string]: unknown;
}

export interface Emitted {
  realmId: number;
  event: ShardEvent;
  userIds: number[];
  /** Written to the event log with the change (false: typing, presence, heartbeats). */
  durable: boolean;
  /** For one queue only (a heartbeat), instead of the users' queues. */
  queueId?: string;
}

/**
 * What a batch tells the layer above about its events when it commits (the shard's event bus,
 * shard/events.ts): `stage` runs as the transaction is about to start, may add rows to it (the
 * event log), and takes the events' place in the delivery order; `settle` is called once the
 * transaction has ended, committed or not.
 */
export interface EventStage {
  stage(events: Emitted[], batch: WriteBatch): { settle(ok: boolean): void };
}

/**
 * Writes made but not yet committed, visible to reads in the meantime.
 *
 * A do-action changes state, queues its puts and awaits the commit; while it waits, the shard
 * runs other requests. A read-modify-write of a stored row (a message's reactions, a user's
 * flags) by one of those must see the first action's value, not the committed one, or one of
 * the two updates is lost. So every put lands here first, and `read` looks here before LMDB.
 * Entries leave when their transaction has committed (unless a later write replaced them).
 */
export class PendingWrites {
  private readonly byDb = new Map<Database, Map<string, { value: unknown }>>();
  /**
   * Decoded rows of the tables named in the constructor, most recently read last. Decoding a
   * message costs more than reading it (msgpack, two copies of its content), and history reads
   * come back to the same recent messages, as the reference's memcached message cache assumes.
   * A write drops the row here when it is made; until its commit, reads find it in `byDb`, and
   * after, they decode the committed row again. Rows are never modified in place (actions copy
   * a record before changing it), so readers may share one object.
   */
  private readonly cached = new Map<Database, RowCache>();

  /**
   * Tables that are only ever read by range (indexes: lmdb ranges do not look here), so their
   * writes are not kept: marking 5,000 messages read writes 10,000 index rows, whose overlay
   * entries no read would ever see. Reading one of them through the overlay is a bug, and throws.
   */
  private readonly ranged: Set<Database>;

  /**
   * The newest ids of recently read topics (store/topic-ids.ts), for the byTopic table given:
   * a batch tells it of the rows it wrote there once its transaction has ended.
   */
  readonly topics: TopicIds | null;

  /**
   * The users' flag blocks (store/flag-blocks.ts), for the uflags and flips tables given: a batch
   * tells it of the rows it wrote in either once its transaction has ended.
   */
  readonly flags: FlagBlocks | null;

  constructor(cachedTables: Database[] = [], rangedTables: Database[] = [], cacheSize = 4096, topicTable: Database | null = null, flagTables: [uflags: Database, flips: Database] | null = null) {
    for (const db of cachedTables) this.cached.set(db, new RowCache(cacheSize));
    this.ranged = new Set(rangedTables);
    this.topics = topicTable ? topicIds(topicTable) : null;
    this.flags = flagTables ? flagBlocks(...flagTables) : null;
  }

  /** Transactions begun and not yet committed, and who waits for there to be none. */
  private inFlight = 0;
  private waiters: (() => void)[] = [];

  begin(): void {
    this.inFlight++;
  }

  end(): void {
    if (--this.inFlight > 0 || this.waiters.length === 0) return;
    // setImmediate runs after the microtasks of the committing actions, which emit their events.
    setImmediate(() => {
      if (this.inFlight > 0) return;
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /**
   * Resolves when no action is between its state change and its events, so that a snapshot
   * (POST /register) taken then agrees with the events that follow it.
   */
  settled(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** `k` is JSON.stringify(key), which a batch has already made for its own map. */
  set(db: Database, key: Key, value: unknown, k = JSON.stringify(key)): { value: unknown } {
    if (this.ranged.has(db)) return NOT_KEPT;
    this.cached.get(db)?.delete(key);
    let map = this.byDb.get(db);
    if (!map) this.byDb.set(db, (map = new Map()));
    const entry = { value };
    map.set(k, entry);
    return entry;
  }

  settle(db: Database, key: Key, entry: { value: unknown }, k = JSON.stringify(key)): void {
    if (entry === NOT_KEPT) return;
    const map = this.byDb.get(db);
    if (map?.get(k) === entry) map.delete(k);
  }

  /** Whether the table is one whose writes are not kept (see `ranged`). */
  isRanged(db: Database): boolean {
    return this.ranged.has(db);
  }

  private checkKept(db: Database): void {
    if (this.ranged.has(db)) throw new Error('an index table is read by range only: its pending writes are not kept');
  }

  /**
   * The uncommitted write of a row, if there is one: `{value}` (undefined for a delete), the
   * same object until another write replaces it. `k`: JSON.stringify(key), when the caller keeps it.
   */
  peek(db: Database, key: Key, k?: string): { value: unknown } | undefined {
    this.checkKept(db);
    const pending = this.byDb.get(db);
    return pending && pending.size > 0 ? pending.get(k ?? JSON.stringify(key)) : undefined;
  }

  read<T>(db: Database, key: Key): T | undefined {
    this.checkKept(db);
    const pending = this.byDb.get(db);
    const entry = pending && pending.size > 0 ? pending.get(JSON.stringify(key)) : undefined;
    if (entry) return entry.value as T | undefined;
    const cache = this.cached.get(db);
    // Only scalar keys: an array key is a new object at every call.
    if (!cache || typeof key === 'object') return db.get(key) as T | undefined;
    const hit = cache.get(key);
    if (hit !== undefined) return hit as T;
    const value = db.get(key);
    if (value !== undefined) cache.add(key, value);
    return value as T | undefined;
  }
}

/**
 * Decoded rows, at most `size`, in two generations: a row read is added to the young one, and
 * when that is half full it becomes the old one and the old one is dropped; a row found in the
 * old generation moves back to the young. An exact LRU moved every row it served to the end of
 * its Map (a delete and a set per message of a page, 4 % of P5's shard time) and paid an
 * iterator per eviction; here a hit in the young generation is one lookup.
 */
class RowCache {
  private young = new Map<Key, unknown>();
  private old = new Map<Key, unknown>();
  private readonly half: number;

  constructor(size: number) {
    this.half = Math.max(1, size >> 1);
  }

  /** The row, or undefined: rows are never undefined (a missing one is not cached). */
  get(key: Key): unknown {
    const young = this.young.get(key);
    if (young !== undefined) return young;
    const old = this.old.get(key);
    if (old !== undefined) {
      this.old.delete(key);
      this.add(key, old);
    }
    return old;
  }

  add(key: Key, value: unknown): void {
    this.young.set(key, value);
    if (this.young.size >= this.half) {
      this.old = this.young;
      this.young = new Map();
    }
  }

  delete(key: Key): void {
    this.young.delete(key);
    this.old.delete(key);
  }
}

/** What PendingWrites.set answers for a write of a ranged table, which it does not keep. */
const NOT_KEPT: { value: unknown } = Object.freeze({ value: undefined });

/**
 * The writes and events of one do-action. The action changes the shard's in-memory state
 * synchronously, records the matching puts and events here, and awaits commit() before it
 * answers: every acknowledged change is durable, all writes of one action land in one LMDB
 * transaction, and so do its events (the event bus logs them for the queues they reach), which
 * are delivered once it has committed.
 */
export class WriteBatch {
  // Keyed by table and key: a row written twice in one action (a read flip set, then dropped by
  // advanceReadMark) costs one write, its last.
  private ops = new Map<Database, Map<string, { key: Key; value: unknown; entry: { value: unknown } }>>();
  // Rows of the ranged tables (PendingWrites), in the order written and not keyed: replaying
  // them in order leaves each row as its last write did, without a string and two map entries
  // per row (marking 5,000 messages read writes 10,000 index rows).
  private seq: [Database, Key, unknown][] = [];
  /** The keys of `seq`'s byTopic rows, for the topic cache (PendingWrites.topics). */
  private topicKeys: Key[] | null = null;
  private count = 0;
  private events: Emitted[] = [];
  /**
   * What helpers that write through this batch keep until it commits or is discarded: a row
   * they change many times (a block of read flips, store/flips.ts) is copied once and changed
   * in place, since values are encoded only when the transaction runs.
   */
  readonly memo = new Map<string, unknown>();

  constructor(
    private readonly env: RootDatabase,
    private readonly pending: PendingWrites,
    private readonly bus: EventStage | null = null,
    /**
     * Told of a failed commit and the rows it would have written (Shard.commitFailed, which
     * repairs what memory holds of them); returns the error the action throws instead.
     */
    private readonly failed: ((err: unknown, touched: Touched) => Error) | null = null,
    /** Told how long each transaction took, and whether it committed (host/metrics.ts). */
    private readonly timed: ((seconds: number, ok: boolean) => void) | null = null,
    /**
     * Told of every row a committed transaction wrote (undefined: deleted). Only while a cluster
     * copies a realm away (host/realm-moves.ts); otherwise null and free.
     */
    private readonly observer: () => ((writes: [Database, Key, unknown][]) => void) | null = () => null,
  ) {}

  /** An event of this action, for the users `userIds`, delivered after the commit. */
  emit(realmId: number, event: ShardEvent, userIds: Iterable<number>): this {
    const ids = [...userIds];
    if (ids.length > 0) this.events.push({ realmId, event, userIds: ids, durable: true });
    return this;
  }

  /** Events that need no log row (typing, presence, heartbeats): see EventBus.emit. */
  emitEphemeral(events: Emitted[]): this {
    this.events.push(...events);
    return this;
  }

  put(db: Database, key: Key, value: unknown): this {
    this.count++;
    if (this.pending.isRanged(db)) {
      this.seq.push([db, key, value]);
      if (db === this.pending.topics?.table) (this.topicKeys ??= []).push(key);
      return this;
    }
    let table = this.ops.get(db);
    if (!table) this.ops.set(db, (table = new Map()));
    // The key's string is made once for both maps and kept for the settle: marking 5,000
    // messages read writes 15,000 rows, and stringifying each key three times showed in profiles.
    const k = JSON.stringify(key);
    table.set(k, { key, value, entry: this.pending.set(db, key, value, k) });
    return this;
  }

  del(db: Database, key: Key): this {
    return this.put(db, key, undefined);
  }

  /**
   * Drops everything recorded and not committed (a job whose run failed half-way): its writes
   * stop being visible to reads. In-memory state the action changed is not undone.
   */
  discard(): void {
    for (const [db, table] of this.ops) for (const [k, { key, entry }] of table) this.pending.settle(db, key, entry, k);
    this.ops = new Map();
    this.seq = [];
    this.topicKeys = null;
    this.count = 0;
    this.events = [];
    this.memo.clear();
  }

  async commit(): Promise<void> {
    // The sink numbers the events for their queues now, in commit order, adding its rows here.
    const events = this.events;
    this.events = [];
    const ticket = this.bus && events.length > 0 ? this.bus.stage(events, this) : null;
    this.memo.clear();
    if (this.count === 0) {
      ticket?.settle(true);
      return;
    }
    const ops = this.ops;
    const seq = this.seq;
    const topicKeys = this.topicKeys;
    this.ops = new Map();
    this.seq = [];
    this.topicKeys = null;
    this.count = 0;
    this.pending.begin();
    let ok = false;
    const started = this.timed ? performance.now() : 0;
    try {
      await this.env.transaction(() => {
        for (const [db, table] of ops) {
          for (const { key, value } of table.values()) {
            if (value === undefined) db.remove(key);
            else db.put(key, value);
          }
        }
        for (const [db, key, value] of seq) {
          if (value === undefined) db.remove(key);
          else db.put(key, value);
        }
      });
      ok = true;
      // Asked at the commit, not when the batch was made: a copy that began meanwhile sees it.
      const observer = this.observer();
      if (observer) observer([...[...ops].flatMap(([db, table]) => [...table.values()].map(({ key, value }): [Database, Key, unknown] => [db, key, value])), ...seq]);
    } catch (err) {
      // A full disk or an I/O error: LMDB has aborted the transaction (and every other one
      // lmdb-js batched with it), so none of this action's writes or events exist.
      if (!this.failed) throw err;
      const touched = new Map<Database, Key[]>([...ops].map(([db, table]) => [db, [...table.values()].map((op) => op.key)]));
      for (const [db, key] of seq) {
        const keys = touched.get(db);
        if (keys) keys.push(key);
        else touched.set(db, [key]);
      }
      throw this.failed(err, [...touched]);
    } finally {
      this.timed?.((performance.now() - started) / 1000, ok);
      for (const [db, table] of ops) for (const [k, { key, entry }] of table) this.pending.settle(db, key, entry, k);
      // Committed or not: a topic read while the transaction ran was read from the snapshot before it.
      if (topicKeys) for (const key of topicKeys) this.pending.topics!.written(key);
      const flags = this.pending.flags;
      if (flags) {
        for (const db of [flags.uflags, flags.flips]) {
          const table = ops.get(db);
          if (table) for (const { key } of table.values()) flags.written(db, key);
        }
      }
      ticket?.settle(ok);
      this.pending.end();
    }
  }
}

