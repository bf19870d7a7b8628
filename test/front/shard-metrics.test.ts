import t from 'tap';
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { commitMetrics, observeCommits, type ShardMetrics } from '../../src/host/metrics.js';
import { shardRegistry } from '../../src/front/shard-metrics.js';
import { RequestMetrics } from '../../src/front/request-metrics.js';
import type { Shard } from '../../src/shard/shard.js';

/**
 * The shards' metrics, counted in plain numbers on each shard thread (host/metrics.ts) and written
 * on the main thread (front/shard-metrics.ts), must read exactly as they did when each shard kept
 * prom-client's gauges, counter and histogram in a registry of its own and the main thread
 * aggregated the registries' JSON: the same text, line for line and in the same order.
 */
const BOUNDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

interface State {
  index: number;
  queues: number;
  parked: number;
  realms: number;
  waiting: number;
  overdue: number;
  /** Commits as the write batch reports them: seconds and whether it committed. */
  commits: [number, boolean][];
}

/** The shard's registry as host/metrics.ts built it with prom-client, fed the same state. */
function theirs(s: State) {
  const registry = new Registry();
  registry.setDefaultLabels({ shard: String(s.index) });
  const registers = [registry];
  new Gauge({ name: 'stoa_event_queues', help: 'Event queues held by the shard', registers, collect() { this.set(s.queues); } });
  new Gauge({ name: 'stoa_parked_polls', help: 'GET /events long-polls waiting for an event', registers, collect() { this.set(s.parked); } });
  new Gauge({ name: 'stoa_realms', help: 'Realms (organizations) on the shard', registers, collect() { this.set(s.realms); } });
  new Gauge({
    name: 'stoa_jobs',
    help: 'Durable jobs waiting (scheduled messages, reminders, webhook deliveries and retries, exports); state="overdue" counts those past due',
    labelNames: ['state'],
    registers,
    collect() {
      this.set({ state: 'waiting' }, s.waiting);
      this.set({ state: 'overdue' }, s.overdue);
    },
  });
  const commits = new Counter({ name: 'stoa_commits_total', help: 'LMDB write transactions, by outcome', labelNames: ['outcome'], registers });
  const duration = new Histogram({ name: 'stoa_commit_duration_seconds', help: 'Time from the start of a write transaction to its commit', buckets: BOUNDS, registers });
  for (const [seconds, ok] of s.commits) {
    commits.inc({ outcome: ok ? 'committed' : 'failed' });
    duration.observe(seconds);
  }
  return registry;
}

/** What a shard thread now answers a scrape with, its commits counted through the shard's observer. */
function ours(s: State): ShardMetrics {
  const shard = { index: s.index, commitObserver: null } as unknown as Shard;
  observeCommits(shard);
  for (const [seconds, ok] of s.commits) shard.commitObserver!(seconds, ok);
  return { shard: s.index, queues: s.queues, parkedPolls: s.parked, realms: s.realms, jobsWaiting: s.waiting, jobsOverdue: s.overdue, ...commitMetrics(shard) };
}

/** The main thread's registry with some requests, as /metrics merges the shards' into it. */
function mainRegistry() {
  const registry = new Registry();
  const requests = new RequestMetrics([0.01, 0.1, 1]);
  requests.register(registry);
  requests.observe('GET', '/api/v1/users/me', 200, 0.004);
  requests.observe('POST', '/api/v1/messages', 400, 0.2);
  return registry;
}

async function before(states: State[]): Promise<string> {
  const json = await Promise.all(states.map((s) => theirs(s).getMetricsAsJSON()));
  return Registry.merge([mainRegistry(), AggregatorRegistry.aggregate(json) as Registry]).metrics();
}

async function now(states: State[]): Promise<string> {
  // Through a structured clone, as the answer crosses from the shard thread.
  return Registry.merge([mainRegistry(), shardRegistry(structuredClone(states.map(ours)))]).metrics();
}

// Every bound exactly (a bound is its own bucket's), between bounds, below the first, above the last.
const durations = [0, 0.0001, ...BOUNDS, ...BOUNDS.map((b) => b * 1.3), 3, 17.25];

t.test('the same text as the shards\' prom-client registries, aggregated', async (t) => {
  const busy: State = { index: 0, queues: 12, parked: 7, realms: 3, waiting: 5, overdue: 1, commits: durations.map((d, i) => [d, i % 7 !== 3]) };
  const quiet: State = { index: 1, queues: 0, parked: 0, realms: 1, waiting: 0, overdue: 0, commits: [] };
  // A shard whose first transaction failed: its outcomes come in the other order.
  const failing: State = { index: 2, queues: 1, parked: 0, realms: 1, waiting: 2, overdue: 2, commits: [[0.003, false], [0.004, true], [0.2, false]] };

  const text = await now([busy, quiet, failing]);
  t.equal(text, await before([busy, quiet, failing]), 'three shards: the same text');
  t.match(text, /^stoa_commit_duration_seconds_bucket\{le="\+Inf",shard="0"\} \d+$/m, 'with the +Inf bucket');
  t.match(text, /^stoa_commits_total\{outcome="failed",shard="2"\} 2$/m, 'failed commits counted by shard');
  t.match(text, /^stoa_jobs\{state="overdue",shard="0"\} 1$/m, 'the overdue jobs');
  t.match(text, /^stoa_http_requests_total\{method="GET",route="\/api\/v1\/users\/me",status="200"\} 1$/m, 'beside the main thread\'s metrics');
  t.equal(await now([quiet]), await before([quiet]), 'one shard with no commit yet: the same');
  t.equal(await now([]), await before([]), 'no shard answered: the same (no shard lines at all)');
  t.notMatch(await now([]), /stoa_realms/, 'no shard lines when none answered');

  // Later scrapes see the commits since, added to the earlier ones.
  const more = { ...busy, commits: [...busy.commits, [0.0007, true], [0.06, true]] as [number, boolean][] };
  t.equal(await now([more, quiet]), await before([more, quiet]), 'the same after more commits');
});

t.test('a shard counts its commits once, however often it is asked', async (t) => {
  const shard = { index: 4, commitObserver: null } as unknown as Shard;
  observeCommits(shard);
  const observer = shard.commitObserver;
  observeCommits(shard);
  t.equal(shard.commitObserver, observer, 'the observer set at the start stays');
  shard.commitObserver!(0.002, true);
  shard.commitObserver!(0.5, true);
  const m = commitMetrics(shard);
  t.same(m.commits, [['committed', 2]], 'two commits');
  t.equal(m.commitCount, 2);
  t.equal(m.commitBuckets.reduce((a, b) => a + b, 0), 2, 'each in one bucket');
  t.equal(m.commitBuckets[BOUNDS.indexOf(0.0025)], 1, '2 ms in the 2.5 ms bucket');
  t.equal(m.commitBuckets[BOUNDS.indexOf(0.5)], 1, '500 ms in the 500 ms bucket');
  t.same(m.commitBounds, BOUNDS, 'the bounds the histogram had');
});
