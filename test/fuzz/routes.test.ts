import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { open, type RootDatabase } from 'lmdb';
import t from 'tap';
import { allOperations } from '../../src/host/registry.js';
import { routes, type Route } from '../../src/routes.js';
import { checkResponse } from '../helpers/openapi.js';
import { createUser, startTestServer, type Credentials, type RequestOptions, type TestServer } from '../helpers/server.js';

// The lazily loaded modules' too (host/registry.ts).
const operations = await allOperations();

/**
 * Property-based fuzzing of every route in the route table (fast-check): wrong types,
 * malformed JSON, huge, empty, deeply nested and Unicode-edge values, in every encoding, as a
 * member, an administrator and nobody. Every answer must be JSON in the reference's shape and
 * never a 5xx; an answer that is an error must have changed nothing in the store (compared by a
 * hash of every table, read from this thread while the server runs); a 2xx must match the
 * reference schema.
 *
 * Routes added to the table are fuzzed with no change here. A failure names the route and the
 * input; STOA_FUZZ_SEED=<seed> replays a run, STOA_FUZZ_RUNS=<n> runs more cases per route.
 */
const RUNS = Number(process.env.STOA_FUZZ_RUNS ?? 10);
const SEED = Number(process.env.STOA_FUZZ_SEED ?? 20261123);

// Tables that change without a request: the event log (garbage-collected) and the queue rows
// (acknowledgements saved every 10 s).
const UNSTABLE = new Set(['eventLog', 'queues']);

/** Hashes every stored row of every shard; the environments stay open (reads see each commit). */
function storeHasher(dataDir: string): { hash(): string; close(): Promise<void> } {
  const envs = new Map<string, RootDatabase>();
  return {
    hash() {
      const hash = createHash('sha256');
      const shards = join(dataDir, 'shards');
      for (const shard of existsSync(shards) ? readdirSync(shards).sort() : []) {
        if (!existsSync(join(shards, shard, 'data.mdb'))) continue;
        let env = envs.get(shard);
        if (!env) envs.set(shard, (env = open({ path: join(shards, shard), maxDbs: 64, readOnly: true })));
        const names = [...env.getKeys()].filter((k): k is string => typeof k === 'string' && !UNSTABLE.has(k)).sort();
        for (const name of names) {
          hash.update(`#${name}`);
          for (const { key, value } of env.openDB({ name, sharedStructuresKey: Symbol.for('structures') }).getRange({})) hash.update(JSON.stringify([key, value]) ?? '');
        }
      }
      return hash.digest('hex');
    },
    async close() {
      for (const env of envs.values()) await env.close();
    },
  };
}

// --- values ----------------------------------------------------------------------------------

const edgeText = fc.constantFrom(
  '', ' ', '\u0000', 'a\u0000b', '\u202Eevil', '👍🏽', 'e\u0301', '\uFFFF', '\uFEFF', '\u200B', '𝕳'.repeat(50), 'x'.repeat(70_000),
  '"', "'", '\\', '<script>alert(1)</script>', '%00', '../../etc/passwd', 'null', 'true', 'false', '0', '-1', '1e3', '0x10', ' 5',
  '9007199254740993', '-0', 'NaN', 'Infinity', 'general', 'me', 'owner@stoa.invalid',
);
/** Only JSON can carry them (URL encoding turns them into U+FFFD first). */
const loneSurrogates = fc.constantFrom('a\ud800b', '\udc00', 'x\ud83d');
const malformedJson = fc.constantFrom('[1,', '{"a":', '"unterminated', '[1 2]', "{'a': 1}", '[Infinity]', '{"a":1}}', ']');
const scalar = fc.oneof(fc.integer(), fc.integer({ min: -(2 ** 53), max: 2 ** 53 }), fc.double(), fc.boolean(), fc.constant(null), fc.string({ maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 20 }), edgeText);
const nested = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 4 })),
})).value;
const deep = fc.integer({ min: 30, max: 300 }).map((n) => JSON.parse('['.repeat(n) + ']'.repeat(n)) as unknown);
const huge = fc.constantFrom<unknown>(Array.from({ length: 20_000 }, (_, i) => i), Array.from({ length: 2000 }, () => ({ name: 'x' })));
const anyValue = fc.oneof(scalar, nested, deep, malformedJson, huge, loneSurrogates);

const ENCODINGS = ['query', 'form', 'multipart', 'json'] as const;
type Actor = 'member' | 'admin' | 'nobody' | 'wrong key';

interface Case {
  path: string;
  params: Record<string, unknown>;
  encoding: RequestOptions['encoding'];
  actor: Actor;
}

function caseArb(route: Route, ids: number[]): fc.Arbitrary<Case> {
  const known = Object.keys(operations[route.op]?.params?.properties ?? {});
  const pathValue = fc.oneof(
    fc.constantFrom(...ids).map(String),
    fc.integer({ min: -5, max: 2 ** 40 }).map(String),
    fc.string({ minLength: 1, maxLength: 12 }),
    edgeText.filter((s) => s.length > 0 && s.length < 200),
  );
  const segments = [...route.path.matchAll(/\{(\w+)(\*?)\}/g)];
  const path = fc.tuple(...segments.map(() => pathValue)).map((values) => {
    let i = 0;
    return route.path.replace(/\{(\w+)(\*?)\}/g, () => encodeURIComponent(values[i++].replace(/[\ud800-\udfff]/g, '?')));
  });
  const knownParams = known.length > 0 ? fc.record(Object.fromEntries(known.map((name) => [name, anyValue])), { requiredKeys: [] }) : fc.constant({});
  const unknownParams = fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), scalar, { maxKeys: 2 });
  return fc.record({
    path: segments.length > 0 ? path : fc.constant(route.path),
    params: fc.tuple(knownParams, unknownParams).map(([a, b]) => ({ ...b, ...a }) as Record<string, unknown>),
    encoding: fc.constantFrom(...ENCODINGS),
    actor: fc.constantFrom<Actor>('member', 'admin', 'member', 'admin', 'nobody', 'wrong key'),
  });
}

const show = (value: unknown) => {
  const text = JSON.stringify(value, (_k, v) => (typeof v === 'string' && v.length > 80 ? `${v.slice(0, 40)}...(${v.length} chars)` : Array.isArray(v) && v.length > 20 ? `[${v.length} items]` : v));
  return text.length > 600 ? `${text.slice(0, 600)}...` : text;
};

t.test('fuzz: every route answers JSON 4xx in the reference shape, never 5xx, and a failure changes nothing', async (t) => {
  t.setTimeout(600_000);
  const ts: TestServer = await startTestServer(t, { heartbeatSeconds: 1 });
  // Something for ids to point at: a channel, messages, a reaction.
  const ids = [1, 2, 3, ts.owner.userId];
  await ts.request('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'fuzzed' }] } });
  for (let i = 0; i < 3; i++) ids.push((await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'fuzz', content: `seed ${i}` } })).body.id);

  const store = storeHasher(ts.dataDir);
  t.teardown(() => store.close());
  // The actors; a case that succeeds may deactivate or demote one, so they are checked after
  // every success and made again when they no longer are what they were.
  const makeActors = async (): Promise<Record<Actor, Credentials | null>> => {
    const member = await createUser(ts, `m${Math.random().toString(36).slice(2)}@example.com`);
    const admin = await createUser(ts, `a${Math.random().toString(36).slice(2)}@example.com`);
    await ts.request('PATCH', `/users/${admin.userId}`, { params: { role: 200 } });
    return { member, admin, nobody: null, 'wrong key': { email: member.email, apiKey: 'x'.repeat(32) } };
  };
  const intact = async (creds: Record<Actor, Credentials | null>) => {
    const [m, a] = await Promise.all([ts.as(creds.member!)('GET', '/users/me'), ts.as(creds.admin!)('GET', '/users/me')]);
    return m.status === 200 && m.body.role === 400 && a.status === 200 && a.body.role === 200;
  };
  let creds = await makeActors();
  // A success may start work that commits later (a data export's job): the next baseline is
  // taken once it has.
  const backgroundDone = async () => {
    for (let i = 0; i < 200; i++) {
      const { body } = await ts.request('GET', '/export/realm');
      if (!body.exports?.some((e: { pending: boolean }) => e.pending)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const methods = new Set(routes.map((r) => r.method));
  t.ok(methods.size >= 4, 'the route table is read');
  for (const route of routes) {
    t.test(`${route.method} ${route.path}`, async (t) => {
      let baseline = store.hash();
      let cases = 0;
      await fc.assert(
        fc.asyncProperty(caseArb(route, ids), async (c) => {
          cases++;
          const what = `${route.method} ${c.path} as ${c.actor}, ${c.encoding}, params ${show(c.params)}`;
          let res;
          try {
            res = await ts.request(route.method, c.path, { params: c.params, encoding: c.encoding, auth: creds[c.actor], unchecked: true });
          } catch (err) {
            throw new Error(`${what}: ${(err as Error).message}`);
          }
          if (res.status >= 500) throw new Error(`${what}: ${res.status} ${show(res.body)}`);
          if (res.status >= 400) {
            const { result, msg, code } = res.body ?? {};
            if (result !== 'error' || typeof msg !== 'string' || typeof code !== 'string') throw new Error(`${what}: ${res.status} not in the reference's error shape: ${show(res.body)}`);
            const now = store.hash();
            if (now !== baseline) throw new Error(`${what}: answered ${res.status} ${show(res.body)} but changed the store`);
          } else {
            try {
              checkResponse(route.method, c.path.split('?')[0], res.body);
            } catch (err) {
              throw new Error(`${what}: ${(err as Error).message}`);
            }
            if (!(await intact(creds))) creds = await makeActors();
            await backgroundDone();
            baseline = store.hash();
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      t.equal(cases, RUNS, `${RUNS} cases`);
    });
  }
});
