import type { Context, Next } from 'koa';
import type { Registry } from 'prom-client';
import type { ResolvedConfig } from '../lib/config.js';
import { addressSet } from '../lib/address-ranges.js';
import type { ShardPool } from '../host/pool.js';
import type { Directory } from '../store/directory.js';
import { clientAddress } from './client-address.js';
import { noteRoute, type Observe } from './request-log.js';
import { RequestMetrics } from './request-metrics.js';
import type { ShardMetrics } from '../host/metrics.js';

/**
 * GET /health and GET /metrics, for the addresses in `monitoring.allowFrom` only (others get
 * the 404 of an unknown path).
 *
 * /health: the process answers, the realm directory reads, and every shard thread answers and
 * reads its store, each within HEALTH_TIMEOUT_MS: 200 `{"status": "ok", ...}` or 503 with the
 * part that failed.
 *
 * /metrics: Prometheus text from prom-client: the process's (memory, CPU, event-loop delay,
 * GC), requests by route and status with their latencies (counted by front/request-log.ts),
 * and each shard's (host/metrics.ts, front/shard-metrics.ts), gathered from the shard threads at
 * every scrape.
 */
const HEALTH_TIMEOUT_MS = 5000;
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export interface Monitoring {
  observe: Observe;
  middleware(ctx: Context, next: Next): Promise<void>;
}

export function monitoring(config: ResolvedConfig, pool: ShardPool, directory: Directory, clusterHealth?: () => { ok: boolean } & Record<string, unknown>): Monitoring {
  const requests = new RequestMetrics(LATENCY_BUCKETS);
  const observe: Observe = (method, route, status, seconds) => requests.observe(method, route, status, seconds);
  const allowed = addressSet(config.monitoring.allowFrom);

  // prom-client (with the OpenTelemetry API it requires: 1.5 MB of heap) and its process metrics
  // are loaded with the first scrape: a server nobody scrapes never needs them (bench/RESULTS.md,
  // the idle5 session). The requests are counted from the start all the same (RequestMetrics);
  // what only prom-client observes, the collections' durations and the event loop's delay,
  // counts from the first scrape, which a counter's rate does not notice.
  let scraping: Promise<{ registry: Registry; text(shards: ShardMetrics[]): Promise<string> }> | null = null;
  const scraper = () =>
    (scraping ??= Promise.all([import('prom-client'), import('./shard-metrics.js')]).then(([{ collectDefaultMetrics, Registry }, { shardRegistry }]) => {
      const registry = new Registry();
      collectDefaultMetrics({ register: registry });
      requests.register(registry);
      return { registry, text: (shards: ShardMetrics[]) => Registry.merge([registry, shardRegistry(shards)]).metrics() };
    }));

  async function metricsText(): Promise<{ type: string; text: string }> {
    const [scrape, fromShards] = await Promise.all([
      scraper(),
      Promise.all(pool.started().map((shard) => within(pool.admin<ShardMetrics>(shard, { kind: 'admin', op: 'metrics' }), HEALTH_TIMEOUT_MS, `shard ${shard}`).catch(() => null))),
    ]);
    return { type: scrape.registry.contentType, text: await scrape.text(fromShards.filter((m): m is ShardMetrics => m !== null)) };
  }

  async function health(): Promise<{ status: number; body: Record<string, unknown> }> {
    let healthy = true;
    let directoryCheck: Record<string, unknown>;
    try {
      directoryCheck = { ok: true, realms: directory.list().length };
    } catch (err) {
      healthy = false;
      directoryCheck = { ok: false, error: (err as Error).message };
    }
    const shards = await Promise.all(
      pool.started().map(async (shard) => {
        const started = performance.now();
        try {
          const answer = await within(pool.admin<{ realms: number }>(shard, { kind: 'admin', op: 'health' }), HEALTH_TIMEOUT_MS, `shard ${shard}`);
          return { shard, ok: true, realms: answer.realms, ms: Math.round(performance.now() - started) };
        } catch (err) {
          healthy = false;
          return { shard, ok: false, error: (err as Error).message };
        }
      }),
    );
    // A cluster node is healthy only while it holds its lease (src/cluster/node.ts).
    const cluster = clusterHealth?.();
    if (cluster && !cluster.ok) healthy = false;
    return { status: healthy ? 200 : 503, body: { status: healthy ? 'ok' : 'failing', directory: directoryCheck, shards, ...(cluster ? { cluster } : {}) } };
  }

  return {
    observe,
    async middleware(ctx, next) {
      if ((ctx.path !== '/health' && ctx.path !== '/metrics') || (ctx.method !== 'GET' && ctx.method !== 'HEAD') || !allowed.has(clientAddress(ctx.req))) return next();
      noteRoute(ctx.req, ctx.path);
      ctx.set('Cache-Control', 'no-store');
      if (ctx.path === '/metrics') {
        const { type, text } = await metricsText();
        ctx.type = type;
        ctx.body = text;
        return;
      }
      const { status, body } = await health();
      ctx.status = status;
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(body);
    },
  };
}
