import { Registry, type Metric } from 'prom-client';
import type { ShardMetrics } from '../host/metrics.js';

/**
 * The shards' metrics (host/metrics.ts) in the main thread's registry, each sample labelled with
 * its shard: the shards count in plain numbers and answer each scrape with them; prom-client's
 * registry writes them as it wrote the gauges, counter and histogram each shard once kept in a
 * registry of its own, aggregated (test/front/shard-metrics.test.ts holds the two texts line for
 * line).
 */
type Value = { labels: Record<string, string | number>; value: number; metricName?: string };

const HELP = {
  queues: 'Event queues held by the shard',
  parked: 'GET /events long-polls waiting for an event',
  realms: 'Realms (organizations) on the shard',
  jobs: 'Durable jobs waiting (scheduled messages, reminders, webhook deliveries and retries, exports); state="overdue" counts those past due',
  commits: 'LMDB write transactions, by outcome',
  duration: 'Time from the start of a write transaction to its commit',
};

/** A registry of the shards' answers to one scrape, to merge with the main thread's. */
export function shardRegistry(shards: ShardMetrics[]): Registry {
  const registry = new Registry();
  // No shard answered: no lines at all, as prom-client's aggregation of nothing gave.
  if (shards.length === 0) return registry;
  const metric = (name: string, help: string, type: string, values: (s: ShardMetrics, shard: string) => Value[]) => {
    const m = { name, help, type, aggregator: 'sum', get: async () => ({ ...m, values: shards.flatMap((s) => values(s, String(s.shard))) }) };
    // The registry takes any object with a name and a `get` in its metrics' shape.
    registry.registerMetric(m as unknown as Metric);
  };
  metric('stoa_event_queues', HELP.queues, 'gauge', (s, shard) => [{ labels: { shard }, value: s.queues }]);
  metric('stoa_parked_polls', HELP.parked, 'gauge', (s, shard) => [{ labels: { shard }, value: s.parkedPolls }]);
  metric('stoa_realms', HELP.realms, 'gauge', (s, shard) => [{ labels: { shard }, value: s.realms }]);
  metric('stoa_jobs', HELP.jobs, 'gauge', (s, shard) => [
    { labels: { state: 'waiting', shard }, value: s.jobsWaiting },
    { labels: { state: 'overdue', shard }, value: s.jobsOverdue },
  ]);
  metric('stoa_commits_total', HELP.commits, 'counter', (s, shard) => s.commits.map(([outcome, n]) => ({ labels: { outcome, shard }, value: n })));
  metric('stoa_commit_duration_seconds', HELP.duration, 'histogram', (s, shard) => {
    const name = 'stoa_commit_duration_seconds';
    const values: Value[] = [];
    let acc = 0;
    s.commitBounds.forEach((le, i) => {
      acc += s.commitBuckets[i];
      values.push({ labels: { le, shard }, value: acc, metricName: `${name}_bucket` });
    });
    values.push({ labels: { le: '+Inf', shard }, value: s.commitCount, metricName: `${name}_bucket` });
    values.push({ labels: { shard }, value: s.commitSeconds, metricName: `${name}_sum` });
    values.push({ labels: { shard }, value: s.commitCount, metricName: `${name}_count` });
    return values;
  });
  return registry;
}
