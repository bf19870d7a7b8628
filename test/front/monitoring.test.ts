import { request } from 'node:http';
import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * GET /health and GET /metrics: for the addresses in monitoring.allowFrom only (loopback by
 * default; behind a trusted proxy the forwarded client's address counts), the shards answering,
 * and Prometheus text with requests by route and status, latencies, queues, parked long-polls,
 * commits and their durations, and the job backlog.
 */
function get(ts: TestServer, path: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port: ts.port, path, headers: { host: ts.server.config.externalHost, ...headers }, agent: false }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), text }));
    })
      .on('error', reject)
      .end();
  });
}

/** The value of one sample line of Prometheus text (labels in any order), or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

async function until<T>(what: () => Promise<T | undefined>, ok: (v: T | undefined) => boolean): Promise<T | undefined> {
  const deadline = Date.now() + 30_000;
  let value = await what();
  while (!ok(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await what();
  }
  return value;
}

t.test('GET /health', async (t) => {
  const ts = await startTestServer(t);
  const res = await get(ts, '/health');
  t.equal(res.status, 200, '200 from loopback');
  t.match(res.type, /^application\/json/, 'JSON');
  const body = JSON.parse(res.text);
  t.equal(body.status, 'ok', 'status ok');
  t.same(body.directory, { ok: true, realms: 1 }, 'the realm directory reads');
  t.ok(body.shards.length >= 1 && body.shards.every((s: { ok: boolean }) => s.ok), 'every started shard answers');
  t.equal(body.shards.reduce((n: number, s: { realms: number }) => n + s.realms, 0), 1, 'and between them hold the one realm');
});

t.test('GET /metrics', async (t) => {
  const ts = await startTestServer(t);
  for (let i = 0; i < 3; i++) await ts.request('GET', '/users/me');
  await ts.request('GET', '/users/99999', { unchecked: true });
  await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'metrics', content: 'counted' } });
  await ts.request('POST', '/scheduled_messages', { params: { type: 'stream', to: 1, topic: 'later', content: 'a job', scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 3600 }, unchecked: true });
  const queue = await ts.request('POST', '/register', { params: { event_types: ['message'] } });
  // A long-poll left parked while the metrics are read.
  const parked = ts.request('GET', '/events', { params: { queue_id: queue.body.queue_id, last_event_id: queue.body.last_event_id } });

  const text = (await until(async () => (await get(ts, '/metrics')).text, (v) => (sample(v ?? '', 'stoa_parked_polls') ?? 0) >= 1))!;
  const res = await get(ts, '/metrics');
  t.equal(res.status, 200, '200 from loopback');
  t.match(res.type, /^text\/plain; version=0\.0\.4/, 'Prometheus text');
  t.ok((sample(text, 'stoa_http_requests_total', { method: 'GET', route: '/api/v1/users/me', status: '200' }) ?? 0) >= 3, 'requests by method, route template and status');
  t.ok(sample(text, 'stoa_http_requests_total', { method: 'GET', route: '/api/v1/users/{user_id_or_email}', status: '400' }) === 1, 'errors counted under their route and status, not their path');
  t.ok((sample(text, 'stoa_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/users/me' }) ?? 0) >= 3, 'latencies, as a histogram');
  t.ok(sample(text, 'stoa_http_request_duration_seconds_bucket', { method: 'GET', route: '/api/v1/users/me', le: '+Inf' }) !== undefined, 'with buckets');
  // A send's form body takes the fast path (front/fast-post.ts), not Koa's: counted the same.
  t.ok((sample(text, 'stoa_http_requests_total', { method: 'POST', route: '/api/v1/messages', status: '200' }) ?? 0) >= 1, 'sends, answered on the fast path, are counted');
  t.ok((sample(text, 'stoa_http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/messages' }) ?? 0) >= 1, 'and timed');
  t.ok((sample(text, 'stoa_event_queues') ?? 0) >= 1, 'event queues');
  t.ok((sample(text, 'stoa_parked_polls') ?? 0) >= 1, 'parked long-polls');
  t.ok((sample(text, 'stoa_commits_total', { outcome: 'committed' }) ?? 0) >= 1, 'commits');
  t.ok((sample(text, 'stoa_commit_duration_seconds_count') ?? 0) >= 1, 'and their durations');
  t.ok((sample(text, 'stoa_jobs', { state: 'waiting' }) ?? 0) >= 1, 'the job backlog (the scheduled message)');
  t.ok(sample(text, 'stoa_jobs', { state: 'overdue' }) !== undefined, 'and how much of it is overdue');
  t.ok((sample(text, 'process_resident_memory_bytes') ?? 0) > 0, 'the process\'s own metrics');
  t.ok(sample(text, 'nodejs_eventloop_lag_seconds') !== undefined && sample(text, 'nodejs_heap_size_used_bytes') !== undefined, 'and Node\'s, from the first scrape (prom-client is loaded with it)');
  t.match(text, /stoa_realms\{shard="\d+"\} 1/, 'each shard\'s metrics carry its shard');
  t.notMatch(text, /api_key|password/i, 'no secret in the text');

  await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'metrics', content: 'wakes the poll' } });
  await parked;
});

t.test('only configured addresses may read them', async (t) => {
  const ts = await startTestServer(t, { monitoring: { allowFrom: ['192.0.2.0/24'] }, trustedProxies: ['127.0.0.1'] });
  for (const path of ['/health', '/metrics']) {
    const refused = await get(ts, path);
    t.equal(refused.status, 404, `${path} from an address not listed: the 404 of an unknown path`);
    t.notMatch(refused.text, /stoa_|"shards"/, 'revealing nothing');
    const forwarded = await get(ts, path, { 'x-forwarded-for': '192.0.2.7' });
    t.equal(forwarded.status, 200, `${path} for a listed client behind a trusted proxy`);
  }
});
