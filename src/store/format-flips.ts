import { existsSync } from 'node:fs';
import { READ_FLIP } from '../model/message.js';
import { forgetCachedReads } from './read-caches.js';
import { FLIP_BLOCK, flipBlock } from './flips.js';
import { shardFile, shardFolders } from './integrity.js';
import { openShardStore, type Key, type ShardStore } from './shard-store.js';

/**
 * Store format 2 -> 3: read flips leave the uflags rows for the per-user sets of store/flips.ts.
 * A format-2 flip is a uflags row with READ_FLIP, its uflagUsers entry (while the row exists)
 * and a uflagIdx entry [realmId, userId, 'flip', msgId].
 *
 * Each chunk of rows moves in one transaction: the bit is set in its block and cleared from the
 * row (the row, and its uflagUsers entry, go when nothing else is left) together, so a process
 * killed at any point leaves every flip in exactly one of the two places. The format stays 2
 * until every shard is done, so the next start runs the step again, and it skips the rows that
 * no longer carry READ_FLIP.
 */
export async function moveFlips(store: ShardStore, chunk = 10_000, maxChunks = Infinity): Promise<boolean> {
  let after: Key | null = null;
  for (let n = 0; n < maxChunks; n++) {
    const rows: { key: number[]; value: number }[] = [];
    for (const { key, value } of store.uflags.getRange(after === null ? { limit: chunk + 1 } : { start: after, limit: chunk + 1 })) {
      if (after !== null && rows.length === 0 && sameKey(key as number[], after as number[])) continue;
      if (rows.length === chunk) break;
      rows.push({ key: key as number[], value: value as number });
    }
    if (rows.length === 0) return true;
    after = rows[rows.length - 1].key;
    const flipped = rows.filter((r) => (r.value & READ_FLIP) !== 0);
    if (flipped.length > 0) {
      await store.env.transaction(() => moveRows(store, flipped));
      forgetCachedReads(store);
    }
  }
  return false;
}

function sameKey(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function moveRows(store: ShardStore, rows: { key: number[]; value: number }[]): void {
  const blocks = new Map<string, { key: number[]; bits: Uint8Array }>();
  for (const { key, value } of rows) {
    const [realmId, userId, msgId] = key;
    const block = flipBlock(msgId);
    const k = `${realmId}:${userId}:${block}`;
    let b = blocks.get(k);
    if (!b) {
      const stored = store.flips.get([realmId, userId, block]) as Uint8Array | undefined;
      const bits = new Uint8Array(FLIP_BLOCK / 8);
      if (stored) bits.set(stored);
      blocks.set(k, (b = { key: [realmId, userId, block], bits }));
    }
    b.bits[(msgId % FLIP_BLOCK) >> 3] |= 1 << (msgId & 7);
    const rest = value & ~READ_FLIP;
    if (rest === 0) {
      store.uflags.remove(key);
      store.uflagUsers.remove([realmId, msgId, userId]);
    } else store.uflags.put(key, rest);
    store.uflagIdx.remove([realmId, userId, 'flip', msgId]);
  }
  for (const { key, bits } of blocks.values()) {
    store.flips.put(key, bits);
    store.flipUsers.put([key[0], key[2], key[1]], null);
  }
}

/** The upgrade step: every shard of the data directory. */
export async function moveFlipsOfDataDir(dataDir: string): Promise<void> {
  for (const shard of shardFolders(dataDir)) {
    if (!existsSync(shardFile(dataDir, shard))) continue;
    const store = openShardStore(dataDir, shard);
    try {
      await moveFlips(store);
    } finally {
      await store.env.close();
    }
  }
}
