import type { ShardStore, WriteBatch } from './shard-store.js';

/**
 * The durable job table: work that must happen later (a scheduled message, a reminder, an
 * outgoing-webhook delivery or its retry), written in the transaction of the change that causes
 * it. shard/jobs.ts runs the jobs; this file is only their rows.
 *
 *   jobs     [due, key]  -> JobRecord    due: ms since the epoch, so the table is in due order
 *                                        and "what is due by T" is one range read from its start
 *   jobKeys  key         -> due          finds a job by its key (to cancel or move it)
 *
 * `key` names the job and its effect, unique in the shard: by convention
 * `<kind>:<realmId>:<id of what it is about>`. A handler that finds its effect already made
 * under that key knows it is a repeat (see shard/jobs.ts).
 */
export interface JobRecord<D = unknown> {
  key: string;
  kind: string;
  realmId: number;
  /** When it is due, in ms since the epoch (whole ms: keys compare exactly). */
  due: number;
  /** Runs that failed so far. */
  attempts: number;
  data: D;
}

/** Writes a job's two rows. The caller removes the rows of an earlier version first. */
export function putJob(batch: WriteBatch, store: ShardStore, job: JobRecord): void {
  batch.put(store.jobs, [job.due, job.key], job);
  batch.put(store.jobKeys, job.key, job.due);
}

export function deleteJob(batch: WriteBatch, store: ShardStore, key: string, due: number): void {
  batch.del(store.jobs, [due, key]);
  batch.del(store.jobKeys, key);
}

/** Committed jobs due at or before `until`, in due order. */
export function* dueJobs(store: ShardStore, until: number): Generator<JobRecord> {
  // [until + 1] sorts before every [until + 1, key]: the end is exclusive, dues are whole ms.
  for (const { value } of store.jobs.getRange({ end: [Math.floor(until) + 1] })) yield value as JobRecord;
}
