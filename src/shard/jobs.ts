import { log } from '../lib/log.js';
import type { Timer } from '../lib/timer-wheel.js';
import { deleteJob, dueJobs, putJob, type JobRecord } from '../store/jobs.js';
import type { WriteBatch } from '../store/shard-store.js';
import type { Shard } from './shard.js';

/**
 * Durable jobs: the one mechanism behind scheduled messages, reminders and outgoing-webhook
 * deliveries and their retries.
 *
 * LMDB is the truth, the wheel only a hint. A job is a row of the `jobs` table, keyed by due time
 * (store/jobs.ts), written with `schedule` in the transaction of the change that causes it. The
 * shard's timer wheel holds timers only for the jobs due within the next WINDOW_MS (and for every
 * overdue one after a restart, SCAN_LIMIT at a time): a refill, every REFILL_MS, reads the head
 * of the table and arms what is not armed yet, so jobs months ahead cost a row and no memory.
 *
 * Running a job, when its timer fires:
 *
 *   batch = [delete the job's rows]          the job's removal...
 *   kind.run({job, batch, retry})            ...and its effect, recorded on the same batch
 *   batch.commit()                           one LMDB transaction: both or neither
 *
 * A crash before the commit leaves the job in the table and its effect unmade, so the job runs
 * again on the next start (or at the next refill); a crash after leaves neither. So a run whose
 * effect is all in the batch (a message sent, a record updated) happens exactly once. An effect
 * outside the batch (an HTTP request) can be repeated by a crash, and the job's `key` is what
 * lets the effect recognise the repeat: a handler checks for the result it would leave under
 * that key before doing it again.
 *
 * `retry()` puts the job back in the same transaction, later and with `attempts + 1`. A handler
 * that throws gets the same from the runner, after its batch is discarded.
 *
 * Handlers are registered per kind with `defineJobKind`, by the modules that make the jobs
 * (src/api/...), so this layer imports none of them. Each shard thread has its own registry,
 * filled when the api modules load, before the worker calls `start()`. A module loaded on first
 * use (host/registry.ts `lazyModules`) names its kinds with `defineLazyJobKind` instead: the
 * runner loads it when a job of such a kind is due (after a restart, nothing else may have).
 */

/** Jobs due within this much of now have a timer on the wheel. */
export const WINDOW_MS = 10 * 60_000;
/** How often the head of the table is read again. Below WINDOW_MS / 2 (see `refill`). */
export const REFILL_MS = 60_000;
/** At most this many jobs are armed per refill: a start after a long stop arms the backlog gradually. */
export const SCAN_LIMIT = 512;
export const DEFAULT_MAX_ATTEMPTS = 10;
/** A job of a realm whose writes are paused looks again this much later. */
const PAUSED_RETRY_MS = 1_000;

/** 10 s, 20 s, 40 s, ... at most an hour, before run `attempts + 1`. */
export function defaultBackoff(attempts: number): number {
  return Math.min(3_600_000, 10_000 * 2 ** Math.max(0, attempts - 1));
}

export interface JobRun<D = unknown> {
  shard: Shard;
  job: JobRecord<D>;
  /** The transaction of the run. It already deletes the job; record the effect on it. */
  batch: WriteBatch;
  /**
   * Instead of ending, the job runs again at `at` (default: now + the kind's backoff) with
   * `attempts + 1`, written on `batch`. False, and nothing written, when that would exceed the
   * kind's maxAttempts: the job ends with this run, and the handler records what giving up means.
   */
  retry(at?: number): boolean;
}

export interface JobKind<D = unknown> {
  /**
   * Makes the job's effect: records it on `run.batch`, which the runner commits after (a handler
   * may commit it itself, to make its in-memory changes and the commit one synchronous step, but
   * then must not await before). Throwing discards the batch and retries the job.
   */
  run(run: JobRun<D>): void | Promise<void>;
  /** Runs in all, the first included (default DEFAULT_MAX_ATTEMPTS). */
  maxAttempts?: number;
  /** Delay before run `attempts + 1` (default: defaultBackoff). */
  backoff?(attempts: number): number;
  /** After the last run threw: what giving up means (recorded on `run.batch`). */
  exhausted?(run: JobRun<D>): void | Promise<void>;
}

const kinds = new Map<string, JobKind<any>>();
/** Kinds defined by modules loaded on first use (host/registry.ts): importing one defines its kinds. */
const lazyKinds = new Map<string, () => Promise<unknown>>();

/**
 * Called when a shard's runner starts, once its message ids are safe to use: modules whose jobs
 * recur (digests) make sure theirs exist here.
 */
export const startHooks: ((jobs: Jobs, shard: Shard) => void)[] = [];

export function defineJobKind<D>(kind: string, def: JobKind<D>): void {
  if (kinds.has(kind)) throw new Error(`job kind '${kind}' is defined twice`);
  kinds.set(kind, def);
}

/** Whether the kind's handler is defined (a lazy kind's, once its module has loaded). */
export function jobKindDefined(kind: string): boolean {
  return kinds.has(kind);
}

/** A kind that `load` defines (with defineJobKind), loaded when a job of it first runs. */
export function defineLazyJobKind(kind: string, load: () => Promise<unknown>): void {
  if (lazyKinds.has(kind)) throw new Error(`job kind '${kind}' is defined twice`);
  lazyKinds.set(kind, load);
}

export type NewJob<D> = Omit<JobRecord<D>, 'attempts'> & { attempts?: number };

export class Jobs {
  /** The runner's clock; tests set it, and drive the wheel with the same time. */
  now: () => number = Date.now;
  /** Every job due at or before this has a timer (or gets one when scheduled). */
  private horizon = -Infinity;
  private readonly armed = new Map<string, { due: number; timer: Timer }>();
  private readonly running = new Map<string, Promise<void>>();
  private started = false;
  private stopped = false;

  constructor(private readonly shard: Shard) {}

  /** Jobs with a timer on the wheel now. */
  get armedCount(): number {
    return this.armed.size;
  }

  /** A job as this shard's uncommitted writes leave it. */
  get<D = unknown>(key: string): JobRecord<D> | undefined {
    const { store } = this.shard;
    const due = this.shard.read<number>(store.jobKeys, key);
    return due === undefined ? undefined : this.shard.read<JobRecord<D>>(store.jobs, [due, key]);
  }

  /** Whether a job of this key is written (committed or not): one read, the record left undecoded. */
  has(key: string): boolean {
    return this.shard.read<number>(this.shard.store.jobKeys, key) !== undefined;
  }

  /**
   * Keeps the job of `key`, if there is one, from running until `batch` has committed (or been
   * discarded). A change that adds to a job's input in rows of its own, not in the job (the
   * missed-message email batch's notices), holds the job: its run reads committed rows only, and
   * one that ran while the change was in flight would miss its row, leaving it to a later job.
   * It rewrites the key's row as it is, which `fire` takes for a pending write of the job.
   */
  hold(batch: WriteBatch, key: string): void {
    const due = this.shard.read<number>(this.shard.store.jobKeys, key);
    if (due !== undefined) batch.put(this.shard.store.jobKeys, key, due);
  }

  /** Writes a job on `batch`, replacing the job of the same key if there is one. */
  schedule<D>(batch: WriteBatch, job: NewJob<D>): JobRecord<D> {
    const { store } = this.shard;
    const record: JobRecord<D> = { ...job, due: Math.round(job.due), attempts: job.attempts ?? 0 };
    const old = this.shard.read<number>(store.jobKeys, record.key);
    if (old !== undefined && old !== record.due) batch.del(store.jobs, [old, record.key]);
    putJob(batch, store, record);
    if (record.due <= this.horizon) this.arm(record.key, record.due);
    return record;
  }

  /** Deletes a job on `batch`; false if there is none. Its timer, if any, will find it gone. */
  cancel(batch: WriteBatch, key: string): boolean {
    const due = this.shard.read<number>(this.shard.store.jobKeys, key);
    if (due === undefined) return false;
    deleteJob(batch, this.shard.store, key, due);
    return true;
  }

  /** Arms the jobs due soon, overdue ones first; then keeps refilling. */
  start(): void {
    if (this.started) return;
    this.started = true;
    // The refill first: it sets the horizon, under which a hook's new job is armed as it is
    // scheduled. Before it, a hook's job (the digest round) went unarmed, and the refill, run
    // before the hook's transaction committed, did not see it either: it waited a whole
    // REFILL_MS, a minute after every start.
    this.refill();
    for (const hook of startHooks) {
      try {
        hook(this, this.shard);
      } catch (err) {
        log.error({ err }, 'job start hook failed');
      }
    }
  }

  /**
   * For a graceful stop: no new runs; waits up to `graceMs` for the running ones to commit. One
   * still running after that is cut short like a crash, and runs again on the next start.
   */
  async stop(graceMs = 5_000): Promise<void> {
    this.stopped = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.idle(), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
  }

  /** Resolves once no job is running (tests). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running.values());
  }

  /**
   * Arms every committed job due within the window that has no timer yet. It reads from the
   * table's start, not from the last horizon, so a job committed after the previous refill read
   * past its due time (scheduled beyond the horizon, committed just after the horizon moved) is
   * still found; and since REFILL_MS < WINDOW_MS / 2, found before it is due.
   */
  private refill(): void {
    const now = this.now();
    let horizon = now + WINDOW_MS;
    let fresh = 0;
    for (const job of dueJobs(this.shard.store, horizon)) {
      const armed = this.armed.get(job.key);
      if (this.running.has(job.key) || armed?.due === job.due) continue;
      if (fresh === SCAN_LIMIT) {
        horizon = job.due - 1;
        break;
      }
      this.arm(job.key, job.due);
      fresh++;
    }
    this.horizon = horizon;
    // A capped refill comes back on the next tick for the rest of the backlog.
    this.shard.wheel.schedule(fresh === SCAN_LIMIT ? now : now + REFILL_MS, () => this.refill());
  }

  private arm(key: string, due: number, at = due): void {
    const current = this.armed.get(key);
    if (current) this.shard.wheel.cancel(current.timer);
    const timer = this.shard.wheel.schedule(at, () => this.fire(key, timer));
    this.armed.set(key, { due, timer });
  }

  /** A timer fired: run the job if it is (still) due, committed and not already running. */
  private fire(key: string, timer: Timer): void {
    if (this.armed.get(key)?.timer === timer) this.armed.delete(key);
    if (this.stopped) return;
    const { store } = this.shard;
    const now = this.now();
    const due = this.shard.read<number>(store.jobKeys, key);
    if (due === undefined) return; // cancelled, or run already
    if (due > now) {
      // Moved later since the timer was set.
      if (due <= this.horizon) this.arm(key, due);
      return;
    }
    // Running, or written by a transaction not committed yet (which may still fail): next tick.
    if (this.running.has(key) || this.shard.pendingWrite(store.jobKeys, key) !== undefined) {
      this.arm(key, due, now);
      return;
    }
    const job = this.shard.read<JobRecord>(store.jobs, [due, key]);
    if (!job) return;
    // A realm a cluster is moving, away or here, waits (shard/realm-gate.ts); one this shard no
    // longer serves has had its jobs taken away with it.
    if (this.shard.realmGate.isPaused(job.realmId)) {
      this.arm(key, due, now + PAUSED_RETRY_MS);
      return;
    }
    this.shard.realmGate.enter(job.realmId);
    const run = this.run(job).finally(() => {
      this.running.delete(key);
      this.shard.realmGate.leave(job.realmId);
    });
    this.running.set(key, run);
  }

  private async run(job: JobRecord): Promise<void> {
    const load = kinds.has(job.kind) ? undefined : lazyKinds.get(job.kind);
    // A failed load leaves the kind undefined: the job fails and retries as below.
    if (load) {
      await load().catch((err) => log.error({ err, kind: job.kind }, 'loading the module of a job kind failed'));
      // A change may have held the job (`hold`) while its module loaded: it runs after that commits.
      if (this.shard.pendingWrite(this.shard.store.jobKeys, job.key) !== undefined) {
        this.arm(job.key, job.due, this.now());
        return;
      }
    }
    const kind = kinds.get(job.kind);
    const batch = this.shard.batch();
    const ctx = this.context(job, batch, kind);
    try {
      if (!kind) throw new Error(`no handler for job kind '${job.kind}'`);
      await kind.run(ctx);
      await batch.commit();
      return;
    } catch (err) {
      batch.discard();
      log.error({ err, job: job.key, kind: job.kind, attempts: job.attempts + 1 }, 'job failed');
    }
    // The failed run's writes are gone; record the retry, or the end, in a transaction of its own.
    try {
      const again = this.shard.batch();
      const ctx2 = this.context(job, again, kind);
      if (!ctx2.retry()) {
        log.error({ job: job.key, kind: job.kind }, 'job dropped after its last attempt');
        await kind?.exhausted?.(ctx2);
      }
      await again.commit();
    } catch (err) {
      // The job is still in the table as committed: the next refill arms it again.
      log.error({ err, job: job.key }, 'job retry could not be recorded');
    }
  }

  private context(job: JobRecord, batch: WriteBatch, kind: JobKind | undefined): JobRun {
    deleteJob(batch, this.shard.store, job.key, job.due);
    return {
      shard: this.shard,
      job,
      batch,
      retry: (at?: number) => {
        const attempts = job.attempts + 1;
        if (attempts >= (kind?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS)) return false;
        const due = at ?? this.now() + (kind?.backoff ?? defaultBackoff)(attempts);
        this.schedule(batch, { ...job, due, attempts });
        return true;
      },
    };
  }
}

const runners = new WeakMap<Shard, Jobs>();

/** The shard's job runner, created on first use (scheduling works before `start`). */
export function jobsOf(shard: Shard): Jobs {
  let jobs = runners.get(shard);
  if (!jobs) runners.set(shard, (jobs = new Jobs(shard)));
  return jobs;
}
