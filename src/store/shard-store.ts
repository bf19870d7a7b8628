import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';

/**
 * One LMDB environment per shard, written only by that shard's thread.
 *
 * Key layout (lmdb-js ordered-binary array keys, so every prefix below is a range read):
 *
 *   realms    realmId                          -> RealmRecord
 *   users     [realmId, userId]                -> UserRecord
 *   streams   [realmId, streamId]              -> StreamRecord
 *   subs      [realmId, userId, streamId]      -> SubscriptionRecord
 *   groups    [realmId, groupId]               -> GroupRecord
 *   devices   [realmId, userId, kind, token]   -> DeviceRecord
 *   meta      'seq:<kind>'                     -> last id handed out (user, stream, group)
 *
 * Realm-scoped tables lead with realmId, so loading one realm is one range read per table and
 * deleting a realm is a range delete. Ids for users, streams and groups come from per-shard
 * counters: unique within the shard, which is the unit a realm never leaves.
 */
export interface ShardStore {
  env: RootDatabase;
  realms: Database;
  users: Database;
  streams: Database;
  subs: Database;
  groups: Database;
  devices: Database;
  meta: Database;
}

export function shardPath(dataDir: string, shard: number): string {
  return join(dataDir, 'shards', String(shard));
}

export function openShardStore(dataDir: string, shard: number): ShardStore {
  const path = shardPath(dataDir, shard);
  mkdirSync(path, { recursive: true });
  const env = open({ path, maxDbs: 32 });
  const db = (name: string) => env.openDB({ name });
  return {
    env,
    realms: db('realms'),
    users: db('users'),
    streams: db('streams'),
    subs: db('subs'),
    groups: db('groups'),
    devices: db('devices'),
    meta: db('meta'),
  };
}

type Key = string | number | (string | number)[];

/**
 * The writes of one do-action. The action changes the shard's in-memory state synchronously,
 * records the matching puts here, and awaits commit() before it answers: every acknowledged
 * change is durable, and all writes of one action land in one LMDB transaction.
 */
export class WriteBatch {
  private ops: { db: Database; key: Key; value: unknown }[] = [];

  constructor(private readonly store: ShardStore) {}

  put(db: Database, key: Key, value: unknown): this {
    this.ops.push({ db, key, value });
    return this;
  }

  del(db: Database, key: Key): this {
    this.ops.push({ db, key, value: undefined });
    return this;
  }

  async commit(): Promise<void> {
    if (this.ops.length === 0) return;
    const ops = this.ops;
    this.ops = [];
    await this.store.env.transaction(() => {
      for (const { db, key, value } of ops) {
        if (value === undefined) db.remove(key);
        else db.put(key, value);
      }
    });
  }
}
