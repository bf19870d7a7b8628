import { queuesOf } from '../api/events/manager.js';
import type { JobRecord } from '../store/jobs.js';
import { deleteJob } from '../store/jobs.js';
import type { Database } from 'lmdb';
import { clearRealm, deltaRows, dumpRealm, loadRows, realmOfWrite, TABLE_SCOPES, type DumpCursor } from '../store/realm-copy.js';
import type { Key, ShardTable } from '../store/shard-store.js';
import type { Shard } from '../shard/shard.js';

/**
 * What a shard does for a cluster moving one of its realms (src/cluster/moves.ts drives it from
 * the main thread; these run in the shard's thread, one admin task each):
 *
 *   source:       track -> dump (in slices, writes go on) ... pause -> delta -> detach
 *                 (or untrack and resume if the move is undone)
 *   destination:  clear (a partial copy of an earlier try) -> load (per chunk) ... load the
 *                 delta -> attach paused -> resume once the node owns the realm
 *
 * `track` gathers the keys of every transaction that touches the realm from then on, so the
 * copy can be taken while the realm is in use: once it is paused (`pause` returns when no write
 * of it runs), the rows written since are read again as they stand (`delta`), and the pause
 * lasts as long as that delta, not the whole copy. A source that restarts has lost its tracker:
 * the delta is refused and the destination copies everything again, while the realm is paused.
 */
export type RealmMoveTask =
  | { kind: 'admin'; op: 'realmPause'; realmId: number }
  | { kind: 'admin'; op: 'realmResume'; realmId: number }
  | { kind: 'admin'; op: 'realmDump'; realmId: number; cursor: DumpCursor }
  | { kind: 'admin'; op: 'realmClear'; realmId: number; cursor?: DumpCursor }
  | { kind: 'admin'; op: 'realmLoad'; realmId: number; bytes: Uint8Array }
  | { kind: 'admin'; op: 'realmAttach'; realmId: number }
  | { kind: 'admin'; op: 'realmDetach'; realmId: number }
  | { kind: 'admin'; op: 'realmEndQueues'; realmId: number }
  | { kind: 'admin'; op: 'realmStats' }
  | { kind: 'admin'; op: 'realmTrack'; realmId: number; session: string }
  | { kind: 'admin'; op: 'realmUntrack'; realmId: number }
  | { kind: 'admin'; op: 'realmDelta'; realmId: number; session: string };

/** A realm's size and activity, for `stoa cluster nodes` and the choice of a node. */
export interface RealmStats {
  id: number;
  users: number;
  queues: number;
  writes: number;
  paused: boolean;
}

export async function runRealmMove(shard: Shard, task: RealmMoveTask): Promise<unknown> {
  switch (task.op) {
    case 'realmPause':
      await shard.realmGate.pause(task.realmId);
      // And every transaction in flight, whoever began it, has committed.
      await shard.quiesced(() => undefined);
      return shard.messageIds.current();
    case 'realmResume':
      shard.realmGate.resume(task.realmId);
      return null;
    case 'realmDump':
      return dumpRealm(shard.store, task.realmId, task.cursor);
    case 'realmClear':
      if (shard.realm(task.realmId)) throw new Error(`realm ${task.realmId} is served by shard ${shard.index}: it cannot be cleared`);
      return clearRealm(shard.store, task.realmId, task.cursor);
    case 'realmLoad':
      if (shard.realm(task.realmId)) throw new Error(`realm ${task.realmId} is served by shard ${shard.index}: a copy cannot be loaded over it`);
      // The copy's durable jobs wait until this node owns the realm (realmResume).
      await shard.realmGate.pause(task.realmId);
      return loadRows(shard.store, task.bytes);
    case 'realmAttach':
      // Held until the node owns it: no request or job may change it before.
      if (!shard.realm(task.realmId)) {
        await shard.realmGate.pause(task.realmId);
        shard.attachRealm(task.realmId);
      }
      return null;
    case 'realmDetach':
      return detach(shard, task.realmId);
    case 'realmEndQueues':
      return queuesOf(shard).endRealm(task.realmId);
    case 'realmTrack':
      trackersOf(shard).set(task.realmId, { session: task.session, keys: new Map() });
      observe(shard);
      return null;
    case 'realmUntrack':
      trackersOf(shard).delete(task.realmId);
      observe(shard);
      return null;
    case 'realmDelta': {
      const tracker = trackersOf(shard).get(task.realmId);
      // Only a paused realm's delta is whole: nothing may be written after it is read.
      if (!tracker || tracker.session !== task.session || !shard.realmGate.isPaused(task.realmId)) return null;
      return deltaRows(shard.store, tracker.keys.values());
    }
    case 'realmStats':
      return [...shard.realms.values()].map((realm): RealmStats => {
        let users = 0;
        for (const user of realm.users.values()) if (user.isActive && !user.isBot) users++;
        let queues = 0;
        for (const queue of queuesOf(shard).all()) if (queue.opts.realmId === realm.id) queues++;
        return { id: realm.id, users, queues, writes: shard.realmGate.writesOf(realm.id), paused: shard.realmGate.isPaused(realm.id) };
      });
  }
}

/**
 * The realm has a new owner: its queues end (BAD_EVENT_QUEUE_ID), its durable jobs go (the new
 * owner runs its copies), and the shard forgets it. Its rows stay until the operator drops them.
 */
async function detach(shard: Shard, realmId: number): Promise<number> {
  if (!shard.realm(realmId)) return 0;
  await shard.realmGate.pause(realmId);
  await shard.quiesced(() => undefined);
  const ended = await queuesOf(shard).endRealm(realmId);
  const batch = shard.batch();
  for (const { value } of shard.store.jobs.getRange({})) {
    const job = value as JobRecord;
    if (job.realmId === realmId) deleteJob(batch, shard.store, job.key, job.due);
  }
  await batch.commit();
  shard.detachRealm(realmId);
  trackersOf(shard).delete(realmId);
  observe(shard);
  shard.realmGate.resume(realmId);
  return ended;
}

/** The keys written to a realm since a copy of it began, by table and key. */
interface Tracker {
  session: string;
  keys: Map<string, [ShardTable, Key]>;
}

const trackers = new WeakMap<Shard, Map<number, Tracker>>();

function trackersOf(shard: Shard): Map<number, Tracker> {
  let map = trackers.get(shard);
  if (!map) trackers.set(shard, (map = new Map()));
  return map;
}

/** Installs (or removes, when nothing is tracked) the shard's observer of committed writes. */
function observe(shard: Shard): void {
  const tracked = trackersOf(shard);
  if (tracked.size === 0) {
    shard.writeObserver = null;
    return;
  }
  const tables = new Map<Database, ShardTable>();
  for (const name of Object.keys(TABLE_SCOPES) as ShardTable[]) tables.set(shard.store[name], name);
  shard.writeObserver = (writes) => {
    const named = writes.map(([db, key, value]) => [tables.get(db)!, key, value] as const);
    const realms = new Set<number>();
    for (const [table, key, value] of named) {
      const realm = realmOfWrite(table, key, value);
      if (realm !== undefined && tracked.has(realm)) realms.add(realm);
    }
    for (const realm of realms) {
      const keys = tracked.get(realm)!.keys;
      for (const [table, key] of named) {
        const scope = TABLE_SCOPES[table];
        // Event queues stay behind; the counters travel with every delta anyway.
        if (scope === 'live' || (table === 'meta' && typeof key === 'string' && key.startsWith('seq:'))) continue;
        keys.set(`${table}\u0000${JSON.stringify(key)}`, [table, key]);
      }
    }
  };
}
