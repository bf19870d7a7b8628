import type { Database } from 'lmdb';
import type { RealmState } from '../model/realm-state.js';
import type { ShardEvent } from '../shard/events.js';
import type { Shard } from '../shard/shard.js';
import type { Key } from '../store/shard-store.js';

/**
 * Writes one of a user's own rows (a draft, a snippet), or deletes it when `value` is undefined,
 * with the event that tells the user's other clients, in one transaction.
 */
export async function writeOwnRow(shard: Shard, realm: RealmState, userId: number, db: Database, key: Key, value: unknown, event: ShardEvent): Promise<void> {
  const batch = shard.batch();
  if (value === undefined) batch.del(db, key);
  else batch.put(db, key, value);
  batch.emit(realm.id, event, [userId]);
  await batch.commit();
}
