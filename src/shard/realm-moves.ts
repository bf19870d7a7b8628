import { queuesOf } from '../api/events/manager.js';
import type { JobRecord } from '../store/jobs.js';
import { deleteJob } from '../store/jobs.js';
import { clearRealm, dumpRealm, loadRows, type DumpCursor } from '../store/realm-copy.js';
import type { Shard } from './shard.js';

/**
 * What a shard does for a cluster moving one of its realms (src/cluster/moves.ts drives it from
 * the main thread; these run in the shard's thread, one admin task each):
 *
 *   source:       pause -> dump (in slices) ... -> detach, or resume if the move is undone
 *   destination:  clear (a partial copy of an earlier try) -> load (per chunk) -> attach paused
 *                 -> resume once the node owns the realm
 *
 * A realm is never changed while it is dumped: `pause` returns once no write of it runs.
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
  | { kind: 'admin'; op: 'realmStats' };

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
  shard.realmGate.resume(realmId);
  return ended;
}
