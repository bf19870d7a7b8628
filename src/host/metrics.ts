import { queuesOf } from '../api/events/manager.js';
import type { Shard } from '../shard/shard.js';

/**
 * A shard thread's metrics: event queues, parked long-polls, realms, the durable jobs waiting,
 * LMDB transactions by outcome and how long they took. The main thread asks every shard for them
 * on each scrape of /metrics and writes them, labelled with the shard, beside its own
 * (front/shard-metrics.ts).
 *
 * Plain numbers, not prom-client's metrics: prom-client (with the OpenTelemetry API it requires)
 * is about 1.5 MB of heap in each thread that loads it, and a shard thread needed it only for these
 * six (bench/RESULTS.md, the idle5 session). The text is prom-client's all the same: the main
 * thread's registry writes it.
 */
export interface ShardMetrics {
  shard: number;
  queues: number;
  parkedPolls: number;
  realms: number;
  jobsWaiting: number;
  /** Of the waiting jobs, those past due. */
  jobsOverdue: number;
  /** Transactions by outcome, in the order each outcome was first seen. */
  commits: [outcome: string, count: number][];
  /** Transactions' durations: each bucket's upper bound in seconds, and how many fell in it (not cumulative); the last count is above every bound. */
  commitBounds: number[];
  commitBuckets: number[];
  commitSeconds: number;
  commitCount: number;
}

const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** The shard's transactions, counted as the write batch reports each commit. */
class Commits {
  readonly byOutcome = new Map<string, number>();
  readonly buckets = new Array<number>(COMMIT_BUCKETS.length + 1).fill(0);
  seconds = 0;
  count = 0;

  observe(seconds: number, ok: boolean): void {
    const outcome = ok ? 'committed' : 'failed';
    this.byOutcome.set(outcome, (this.byOutcome.get(outcome) ?? 0) + 1);
    // A duration equal to a bound is that bound's ("le": less than or equal).
    let b = 0;
    while (b < COMMIT_BUCKETS.length && seconds > COMMIT_BUCKETS[b]) b++;
    this.buckets[b]++;
    this.seconds += seconds;
    this.count++;
  }
}

const commitsByShard = new WeakMap<Shard, Commits>();

/** Starts counting the shard's commits: at the thread's start, before its first commit. */
export function observeCommits(shard: Shard): void {
  if (commitsByShard.has(shard)) return;
  const commits = new Commits();
  commitsByShard.set(shard, commits);
  shard.commitObserver = (seconds, ok) => commits.observe(seconds, ok);
}

/** The shard's transactions so far, as a scrape reports them. */
export function commitMetrics(shard: Shard): Pick<ShardMetrics, 'commits' | 'commitBounds' | 'commitBuckets' | 'commitSeconds' | 'commitCount'> {
  observeCommits(shard);
  const commits = commitsByShard.get(shard)!;
  return { commits: [...commits.byOutcome], commitBounds: COMMIT_BUCKETS, commitBuckets: [...commits.buckets], commitSeconds: commits.seconds, commitCount: commits.count };
}

/** The shard's metrics now, for one scrape. */
export function shardMetrics(shard: Shard): ShardMetrics {
  const queues = queuesOf(shard);
  return {
    shard: shard.index,
    queues: queues.size,
    parkedPolls: queues.parkedCount,
    realms: shard.realms.size,
    jobsWaiting: shard.store.jobs.getCount(),
    jobsOverdue: shard.store.jobs.getCount({ end: [Date.now()] }),
    ...commitMetrics(shard),
  };
}
