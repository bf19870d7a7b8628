import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { queuesOf } from '../api/events/manager.js';
import type { Shard } from '../shard/shard.js';

/**
 * A shard thread's metrics (prom-client), labelled with its shard: event queues, parked
 * long-polls, LMDB transactions and how long they took, and the durable jobs waiting. The main
 * thread asks every shard for them on each scrape of /metrics (front/monitoring.ts) and serves
 * them with its own.
 */
const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

const registries = new WeakMap<Shard, Registry>();

/** The shard's registry, made (and its commits observed) on first use: at the thread's start. */
export function metricsOf(shard: Shard): Registry {
  let registry = registries.get(shard);
  if (!registry) registries.set(shard, (registry = shardMetrics(shard)));
  return registry;
}

function shardMetrics(shard: Shard): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ shard: String(shard.index) });
  const registers = [registry];
  new Gauge({ name: 'stoa_event_queues', help: 'Event queues held by the shard', registers, collect() { this.set(queuesOf(shard).size); } });
  new Gauge({ name: 'stoa_parked_polls', help: 'GET /events long-polls waiting for an event', registers, collect() { this.set(queuesOf(shard).parkedCount); } });
  new Gauge({ name: 'stoa_realms', help: 'Realms (organizations) on the shard', registers, collect() { this.set(shard.realms.size); } });
  new Gauge({
    name: 'stoa_jobs',
    help: 'Durable jobs waiting (scheduled messages, reminders, webhook deliveries and retries, exports); state="overdue" counts those past due',
    labelNames: ['state'],
    registers,
    collect() {
      this.set({ state: 'waiting' }, shard.store.jobs.getCount());
      this.set({ state: 'overdue' }, shard.store.jobs.getCount({ end: [Date.now()] }));
    },
  });
  const commits = new Counter({ name: 'stoa_commits_total', help: 'LMDB write transactions, by outcome', labelNames: ['outcome'], registers });
  const duration = new Histogram({ name: 'stoa_commit_duration_seconds', help: 'Time from the start of a write transaction to its commit', buckets: COMMIT_BUCKETS, registers });
  shard.commitObserver = (seconds, ok) => {
    commits.inc({ outcome: ok ? 'committed' : 'failed' });
    duration.observe(seconds);
  };
  return registry;
}
