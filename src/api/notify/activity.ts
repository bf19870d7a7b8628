import { log } from '../../lib/log.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { presenceOf } from '../presence/state.js';
import { lastActive, setLastActive } from './store.js';

/**
 * When each person was last active, durably: digests go to those away for a while (the
 * reference's UserActivityInterval). Presence is kept in memory only (api/presence/state.ts);
 * this copies what it says to the notify table once an hour (and before each digest round), a
 * write only for a person active since their stored time by more than that hour. A crash loses
 * at most the last hour of it.
 */
const FLUSH_MS = 3_600_000;
const GRANULARITY_S = 3600;

export function flushActivity(shard: Shard, batch: WriteBatch): void {
  for (const realm of shard.realms.values()) {
    for (const [userId, record] of presenceOf(shard).realm(realm.id).records) {
      if (record.lastActive === null) continue;
      const stored = lastActive(shard, realm, userId) ?? 0;
      if (record.lastActive - stored >= GRANULARITY_S) setLastActive(batch, shard, realm, userId, record.lastActive);
    }
  }
}

export function watchActivity(shard: Shard): void {
  const tick = () => {
    const batch = shard.batch();
    flushActivity(shard, batch);
    batch.commit().catch((err) => log.error({ err, shard: shard.index }, 'recording activity failed'));
    shard.wheel.schedule(Date.now() + FLUSH_MS, tick);
  };
  shard.wheel.schedule(Date.now() + FLUSH_MS, tick);
}
