import { defineJobKind, jobsOf } from '../../shard/jobs.js';
import type { Shard } from '../../shard/shard.js';
import { deleteExpiredSessions } from '../../store/sessions.js';
import type { WriteBatch } from '../../store/shard-store.js';

/**
 * Expired browser sessions are deleted by a durable job per realm (shard/jobs.ts), not left for
 * their owner's next login, which may never come. A login makes sure the realm's sweep is
 * scheduled; the sweep runs once a day while the realm has sessions, deleting at most
 * SWEEP_LIMIT rows per run (a backlog comes back a second later, so no run holds the shard's
 * thread for long), and stops when none is left: the next login schedules it again.
 */
export const SWEEP_KIND = 'sessions.sweep';
export const SWEEP_EVERY_MS = 24 * 3600 * 1000;
export const SWEEP_LIMIT = 5_000;

const keyOf = (realmId: number) => `${SWEEP_KIND}:${realmId}`;

/** In a login's transaction: the realm's sweep, unless one is already scheduled. */
export function ensureSweep(shard: Shard, batch: WriteBatch, realmId: number): void {
  const jobs = jobsOf(shard);
  if (jobs.get(keyOf(realmId))) return;
  jobs.schedule(batch, { key: keyOf(realmId), kind: SWEEP_KIND, realmId, due: jobs.now() + SWEEP_EVERY_MS, data: null });
}

defineJobKind<null>(SWEEP_KIND, {
  run({ shard, job, batch }) {
    // The runner's clock (tests move it).
    const now = jobsOf(shard).now();
    const { deleted, more } = deleteExpiredSessions(shard, batch, job.realmId, Math.floor(now / 1000), SWEEP_LIMIT);
    if (more) jobsOf(shard).schedule(batch, { key: job.key, kind: SWEEP_KIND, realmId: job.realmId, due: now + (deleted === SWEEP_LIMIT ? 1000 : SWEEP_EVERY_MS), data: null });
  },
});
