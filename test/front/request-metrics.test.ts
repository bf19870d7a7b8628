import t from 'tap';
import { Counter, Histogram, Registry } from 'prom-client';
import { RequestMetrics } from '../../src/front/request-metrics.js';

/**
 * The request metrics counted without prom-client's per-call label hashing
 * (front/request-metrics.ts) must read exactly as prom-client's own Counter and Histogram would
 * for the same requests: the same lines, values and labels.
 */
const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

function theirs() {
  const registry = new Registry();
  const requests = new Counter({ name: 'stoa_http_requests_total', help: 'HTTP requests answered, by method, route template and status', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const latency = new Histogram({ name: 'stoa_http_request_duration_seconds', help: "Time from a request's arrival to its answer (long-polls included), by method and route template", labelNames: ['method', 'route'], buckets: BOUNDS, registers: [registry] });
  return {
    registry,
    observe: (method: string, route: string, status: number, seconds: number) => {
      requests.inc({ method, route, status: String(status) });
      latency.observe({ method, route }, seconds);
    },
  };
}

const lines = async (registry: Registry) => (await registry.metrics()).split('\n').sort();

t.test('the same text as prom-client for the same requests', async (t) => {
  const a = theirs();
  const registry = new Registry();
  const ours = new RequestMetrics(BOUNDS);
  ours.register(registry);
  t.same(await lines(registry), await lines(a.registry), 'no requests yet: the help and type lines alone');
  // Every bound exactly (a bound is its own bucket's: le is "less than or equal"), between them,
  // below the first, above the last; several methods, routes and statuses.
  const seconds = [0, 0.0004, ...BOUNDS, ...BOUNDS.map((b) => b * 1.5), 61, 1234.5];
  const routes = ['/api/v1/events', '/api/v1/messages', '/api/v1/users/{user_id}', 'unmatched'];
  const statuses = [200, 400, 499, 200, 429];
  let k = 0;
  for (const s of seconds) {
    for (const route of routes) {
      const method = k % 3 === 0 ? 'POST' : 'GET';
      const status = statuses[k % statuses.length];
      a.observe(method, route, status, s);
      ours.observe(method, route, status, s);
      k++;
    }
  }
  const got = await lines(registry);
  t.same(got, await lines(a.registry), `${got.length} lines, the same`);
  t.ok(got.some((l) => l.startsWith('stoa_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="unmatched"}')), 'with the +Inf bucket');
  t.ok(got.some((l) => /^stoa_http_requests_total\{method="POST",route="\/api\/v1\/events",status="\d+"\} \d+$/.test(l)), 'and the counts by status');
  // A later scrape sees the requests since, added to the earlier ones.
  a.observe('GET', '/api/v1/events', 200, 0.003);
  ours.observe('GET', '/api/v1/events', 200, 0.003);
  t.same(await lines(registry), await lines(a.registry), 'the same after more requests');
  t.same(await lines(Registry.merge([registry, new Registry()])), await lines(Registry.merge([a.registry, new Registry()])), 'and merged with the shards, as /metrics does');
});
