import type { Database } from 'lmdb';
import { PendingWrites, WriteBatch, type Key, type ShardStore } from '../store/shard-store.js';
import { forgetCachedReads } from '../store/read-caches.js';

/**
 * The import's write batch: the same store functions fill it as fill a live action's
 * (insertMessage, writeBits, setMessageLink...), so every row and index is what a send would
 * have written, but it skips what a live batch does for requests running beside it (pending
 * writes visible to other reads, one write per row, events), which an import with the server
 * stopped has no use for: a million messages are some fifteen million rows. Rows written in it
 * are not visible to reads until it commits; the import reads only committed rows.
 */
export class BulkBatch extends WriteBatch {
  private rows: [Database, Key, unknown][] = [];

  constructor(private readonly target: ShardStore) {
    super(target.env, new PendingWrites());
  }

  get size(): number {
    return this.rows.length;
  }

  override put(db: Database, key: Key, value: unknown): this {
    this.rows.push([db, key, value]);
    return this;
  }

  override del(db: Database, key: Key): this {
    return this.put(db, key, undefined);
  }

  override async commit(): Promise<void> {
    const rows = this.rows;
    this.rows = [];
    // Rows changed in place (WriteBatch.memo) are written now; later changes need a put again.
    this.memo.clear();
    if (rows.length === 0) return;
    await this.target.env.transaction(() => {
      for (const [db, key, value] of rows) {
        if (value === undefined) db.remove(key);
        else db.put(key, value);
      }
    });
    // A shard running beside an import would otherwise keep topics' ids from before it.
    forgetCachedReads(this.target);
  }
}
