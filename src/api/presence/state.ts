import type { Shard } from '../../shard/shard.js';

/**
 * Presence, kept in memory by the shard that owns the realm and never written to LMDB.
 *
 * Presence is ephemeral: it says who was around in the last few minutes, every client reports
 * it again each minute, and a restart that forgets it costs one ping interval before everyone
 * shows as online again. Persisting it would turn the most frequent request of every client into
 * a disk write for nothing.
 *
 * Each user's record carries the update id of its last change. Ids come from one clock per shard
 * that never goes backwards and starts, after a restart, above any id handed out before it
 * (`max(last + 1, now in ms)`): a client polling with the last_update_id it kept from before the
 * restart still receives every record changed since.
 */
export interface PresenceRecord {
  /** Seconds; null until the user is first reported active. */
  lastActive: number | null;
  /** Seconds. */
  lastConnected: number;
  lastUpdateId: number;
}

/**
 * One realm's records, with a log of updates in id order so that "changed since id X" (what
 * every modern client asks each minute) costs a binary search and the changes, not a scan of
 * the realm. Log entries superseded by a later update of the same user are skipped, and the log
 * is compacted when they outnumber the live ones.
 */
export class RealmPresence {
  readonly records = new Map<number, PresenceRecord>();
  private log: { userId: number; id: number }[] = [];

  set(userId: number, record: PresenceRecord): void {
    this.records.set(userId, record);
    this.log.push({ userId, id: record.lastUpdateId });
    if (this.log.length > 2 * this.records.size + 64) this.compact();
  }

  /** Users whose record changed after `afterId`, oldest change first. */
  *changedSince(afterId: number): Generator<[number, PresenceRecord]> {
    let lo = 0;
    let hi = this.log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.log[mid].id <= afterId) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.log.length; i++) {
      const { userId, id } = this.log[i];
      const record = this.records.get(userId);
      if (record && record.lastUpdateId === id) yield [userId, record];
    }
  }

  private compact(): void {
    this.log = [...this.records].map(([userId, r]) => ({ userId, id: r.lastUpdateId })).sort((a, b) => a.id - b.id);
  }
}

export class PresenceStore {
  private readonly realms = new Map<number, RealmPresence>();
  private lastId = 0;

  realm(realmId: number): RealmPresence {
    let realm = this.realms.get(realmId);
    if (!realm) this.realms.set(realmId, (realm = new RealmPresence()));
    return realm;
  }

  nextUpdateId(now = Date.now()): number {
    this.lastId = Math.max(this.lastId + 1, now);
    return this.lastId;
  }
}

const stores = new WeakMap<Shard, PresenceStore>();

export function presenceOf(shard: Shard): PresenceStore {
  let store = stores.get(shard);
  if (!store) stores.set(shard, (store = new PresenceStore()));
  return store;
}
