import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import t from 'tap';
import { configSchema } from '../../src/build/config-validator.js';
import { loadConfig } from '../../src/lib/config.js';

/**
 * The config's validator that `npm run build` compiles (build/config-validator.ts) answers as
 * Ajv's own compilation of the schema does, and a start's loadConfig uses it without loading
 * Ajv, which the main thread then never holds.
 */
const require = createRequire(import.meta.url);
const BUILT = new URL('../../src/lib/config-validator.cjs', import.meta.url);

t.test('the built validator is the current schema compiled', async (t) => {
  const built = require(BUILT.pathname) as ((data: unknown) => boolean) & { errors?: unknown; schemaDigest: string };
  t.equal(built.schemaDigest, configSchema().digest, 'built from the schema as it is');
  const ajv = new Ajv({ allErrors: false }).compile(JSON.parse(configSchema().text));
  const good = loadConfig({}) as unknown as Record<string, unknown>;
  const variants: [string, Record<string, unknown>][] = [
    ['the defaults', good],
    ['a port out of range', { ...good, port: 70000 }],
    ['a port of the wrong type', { ...good, port: '80' }],
    ['an unknown option', { ...good, colour: 'blue' }],
    ['an unknown nested option', { ...good, rateLimits: { ...(good.rateLimits as object), burst: 3 } }],
    ['a value outside an enum', { ...good, logLevel: 'loud' }],
    ['a string too long, counted in code points', { ...good, rootRealm: { name: '😀'.repeat(41), ownerEmail: 'a@b', ownerFullName: 'A' } }],
    ['a string just short enough in code points', { ...good, rootRealm: { name: '😀'.repeat(40), ownerEmail: 'a@b', ownerFullName: 'A' } }],
    ['a pattern not matched', { ...good, rootRealm: { name: 'N', ownerEmail: 'no at sign', ownerFullName: 'A' } }],
    ['an empty bind address', { ...good, bind: '' }],
    ['a shard count of null', { ...good, shards: null }],
    ['a shard count too high', { ...good, shards: 257 }],
    ['a list item of the wrong type', { ...good, trustedProxies: [1] }],
  ];
  for (const [what, data] of variants) {
    const expected = ajv(data);
    t.equal(built(data), expected, `${what}: ${expected ? 'valid' : 'invalid'} as Ajv says`);
    t.same(built.errors ?? null, ajv.errors ?? null, `${what}: the same errors`);
  }
});

t.test("a start's config is validated without Ajv", async (t) => {
  const script = `
    const { loadConfig } = await import(${JSON.stringify(new URL('../../src/lib/config.js', import.meta.url).href)});
    let refused = '';
    try { loadConfig({ STOA_PORT: '70000' }); } catch (err) { refused = err.message; }
    loadConfig({});
    const { createRequire } = await import('node:module');
    const cache = Object.keys(createRequire(import.meta.url).cache);
    console.log(JSON.stringify({ refused, ajv: cache.filter((f) => /[\\\\/]node_modules[\\\\/]ajv[\\\\/]/.test(f)) }));
  `;
  const out = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ['--input-type=module', '-e', script], (err, stdout) => (err ? reject(err) : resolve(stdout))),
  );
  const { refused, ajv } = JSON.parse(out) as { refused: string; ajv: string[] };
  t.equal(refused, 'invalid option "port": must be <= 65535', 'a bad option is still refused, with its message');
  t.same(
    ajv.map((f) => f.replace(/.*[\\/]node_modules[\\/]/, '')),
    ['ajv/dist/runtime/ucs2length.js'],
    "of Ajv, only the built code's helper is loaded",
  );
});
