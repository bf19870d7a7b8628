import type { Database } from 'lmdb';
import { flagBlocksOf } from './flag-blocks.js';
import { topicIdsOf } from './topic-ids.js';

/**
 * Rows were written that the writer does not name one by one (an import's batch, a realm copy
 * loaded or cleared, a format upgrade): what the shard keeps in memory of its tables is read
 * again (store/topic-ids.ts, store/flag-blocks.ts). A write batch names its rows instead
 * (write-batch.ts), so only what it wrote is dropped.
 */
export function forgetCachedReads(store: { byTopic: Database; uflags: Database }): void {
  topicIdsOf(store.byTopic)?.clear();
  flagBlocksOf(store.uflags)?.clear();
}
