import type { Database } from 'lmdb';

/**
 * A user's committed flag state by block of ids, kept in memory. A page of history asks for the
 * viewer's stored bits of its 100 messages (model/read-state.ts storedBitsOfIds): a range read of
 * the user's sparse uflags rows and a read of each flip block (store/flips.ts) the ids fall in,
 * which was 13 % of the shard's time per page in P5's profile even for a viewer with no row in
 * the range. Here each (realm, user, block of FLIP_BLOCK ids) is read once: its uflags rows (none
 * for most blocks) and its flip bitmap, and pages come back to the same recent blocks.
 *
 * What an entry holds must be what the committed tables hold; the shard's uncommitted writes are
 * looked up on top of it by the caller, as before. Every write of uflags or flips tells the cache
 * once its transaction has ended, committed or not (a write batch names each row, which drops its
 * block's entry: store/write-batch.ts); an import's batch, a realm copy being loaded, a realm's
 * rows being cleared and the format-3 upgrade drop every entry (`clear`). Until then reads see the
 * snapshot before the transaction, from LMDB or from an entry alike. Entries are per user: one
 * user's entry is never read for another (the key names both). The cache lives in the shard's
 * thread, and a restart starts it empty.
 */

/** The ids a block spans; the same as store/flips.ts's FLIP_BLOCK, which imports this module's users. */
export const BLOCK = 1024;

/** Blocks kept, the oldest filled dropped first (an entry without rows is a few dozen bytes). */
const ENTRIES = 8192;

export interface FlagBlock {
  /** The block's committed uflags rows, id -> bits; null when it has none (the usual case). */
  rows: Map<number, number> | null;
  /** The block's committed flip bitmap (a copy), or null. */
  flips: Uint8Array | null;
}

const entryKey = (realmId: number, userId: number, block: number) => `${realmId}:${userId}:${block}`;

export class FlagBlocks {
  private readonly entries = new Map<string, FlagBlock>();

  constructor(
    readonly uflags: Database,
    readonly flips: Database,
  ) {}

  /** The committed state of the user's block. */
  block(realmId: number, userId: number, block: number): FlagBlock {
    const key = entryKey(realmId, userId, block);
    const entry = this.entries.get(key);
    return entry ?? this.fill(key, realmId, userId, block);
  }

  private fill(key: string, realmId: number, userId: number, block: number): FlagBlock {
    let rows: Map<number, number> | null = null;
    const lo = block * BLOCK;
    // lmdb's `end` is exclusive; ids are integers, so half a step below the next block's first.
    for (const { key: k, value } of this.uflags.getRange({ start: [realmId, userId, lo], end: [realmId, userId, lo + BLOCK - 0.5] })) {
      (rows ??= new Map()).set((k as number[])[2], value as number);
    }
    const bits = this.flips.get([realmId, userId, block]) as Uint8Array | undefined;
    // A copy: LMDB's value may share a buffer that the next read overwrites.
    const entry = { rows, flips: bits ? Uint8Array.from(bits) : null };
    if (this.entries.size >= ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, entry);
    return entry;
  }

  /** A row of uflags ([realmId, userId, msgId]) or flips ([realmId, userId, block]) was written. */
  written(db: Database, key: unknown): void {
    if (this.entries.size === 0) return;
    const [realmId, userId, n] = key as [number, number, number];
    this.entries.delete(entryKey(realmId, userId, db === this.uflags ? Math.floor(n / BLOCK) : n));
  }

  /** Rows were written that the caller does not name one by one. */
  clear(): void {
    this.entries.clear();
  }
}

const caches = new WeakMap<Database, FlagBlocks>();

/** The cache of a shard's uflags and flips tables, made on its first use. */
export function flagBlocks(uflags: Database, flips: Database): FlagBlocks {
  let cache = caches.get(uflags);
  if (!cache) caches.set(uflags, (cache = new FlagBlocks(uflags, flips)));
  return cache;
}

/** The cache of a uflags table, if it has one: what a write must tell. */
export function flagBlocksOf(uflags: Database): FlagBlocks | undefined {
  return caches.get(uflags);
}
