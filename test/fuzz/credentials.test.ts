import fc from 'fast-check';
import t from 'tap';
import { allOperations } from '../../src/host/registry.js';
import { routes } from '../../src/routes.js';
import { startTestServer } from '../helpers/server.js';

// The lazily loaded modules' too (host/registry.ts).
const operations = await allOperations();

/**
 * Fuzzing the per-address limit for ways around it (front/guard.ts). Once an address is over its
 * limit, every request that does not authenticate as a user must be refused with
 * RATE_LIMIT_HIT, whatever it carries: a made-up or malformed Authorization header, another
 * scheme, an api_key in the URL, good credentials on an endpoint that authenticates nobody, any
 * route, any method. A request whose credentials authenticate is never refused by it.
 * (Carrying any credentials once skipped the count.) STOA_FUZZ_SEED replays a run,
 * STOA_FUZZ_RUNS=<n> runs more cases.
 */
const RUNS = Number(process.env.STOA_FUZZ_RUNS ?? 10) * 30;
const SEED = Number(process.env.STOA_FUZZ_SEED ?? 20261123);

t.test('fuzz: no credentials get around the per-address limit', async (t) => {
  t.setTimeout(600_000);
  const ts = await startTestServer(t, { rateLimits: { enabled: true, perUser: [[3600, 100_000]], perIp: [[3600, 10]] } });
  const basic = (user: string, key: string) => `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`;
  for (let i = 0; i < 10; i++) await ts.request('GET', '/server_settings', { auth: null });
  t.equal((await ts.request('GET', '/server_settings', { auth: null })).status, 429, 'the address is over its limit');

  const printable = fc.string({ maxLength: 40 });
  const header = fc.oneof(
    fc.constant(undefined),
    fc.constant(''),
    fc.tuple(fc.oneof(fc.constant(ts.owner.email), fc.emailAddress(), printable), fc.oneof(fc.constant(ts.owner.apiKey.toLowerCase()), fc.stringMatching(/^[A-Za-z0-9]{32}$/), printable)).map(([u, k]) => basic(u, k)),
    printable.map((s) => `Basic ${s}`),
    printable.map((s) => `Bearer ${s}`),
    fc.constant(`Basic ${Buffer.from(ts.owner.email).toString('base64')}`),
  );
  const apiKey = fc.oneof(fc.constant(undefined), fc.constant(ts.owner.apiKey.slice(1)), fc.stringMatching(/^[A-Za-z0-9]{32}$/), printable);
  const route = fc.constantFrom(...routes);
  const cases = fc.record({ route, authorization: header, apiKey, id: fc.constantFrom('1', '2', ts.owner.userId.toString(), 'me', 'x') });
  let refused = 0;
  await fc.assert(
    fc.asyncProperty(cases, async (c) => {
      const path = c.route.path.replace(/\{\w+\*?\}/g, c.id) + (c.apiKey === undefined ? '' : `?api_key=${encodeURIComponent(c.apiKey)}`);
      const res = await ts.request(c.route.method, path, { authorization: c.authorization, auth: c.authorization === undefined ? null : undefined, unchecked: true });
      const what = `${c.route.method} ${path} with ${JSON.stringify(c.authorization)}`;
      if (res.status !== 429 || res.body.code !== 'RATE_LIMIT_HIT') throw new Error(`${what}: answered ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      refused++;
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
  t.equal(refused, RUNS, `${RUNS} requests that do not authenticate, all refused`);

  // Good credentials on routes that authenticate: never refused by the address's limit.
  const authenticating = routes.filter((r) => operations[r.op]?.auth === 'user' && r.method === 'GET' && !r.path.includes('{'));
  for (const r of authenticating) {
    const res = await ts.request('GET', r.path, { unchecked: true });
    if (res.status === 429) t.fail(`${r.method} ${r.path} with good credentials: 429`);
  }
  t.pass(`${authenticating.length} authenticated GETs from the same address were not refused by its limit`);
  const settings = await ts.request('GET', '/server_settings');
  t.equal(settings.status, 429, 'good credentials on an endpoint that authenticates nobody are still refused');
});
