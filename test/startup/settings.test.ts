import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import { deepMerge, loadConfig, projectRoot, unknownVariables } from '../../src/lib/config.js';
import { field, http, tempDir } from '../cli/run.js';
import { runToExit, spawnServer } from './spawn.js';

/**
 * How settings reach the server: a config file holding a few nested keys keeps the defaults
 * beside them, misspelt STOA_* variables are named, a relative data directory means the same
 * place wherever the server is started from, and the first start's organization and owner come
 * from the command line or the environment.
 */

t.test('config: nested keys are merged with their defaults', async (t) => {
  const dir = tempDir(t, 'stoa-settings-');
  const file = join(dir, 'stoa.json');
  const defaults = loadConfig({});
  const cases: [string, Record<string, unknown>, (c: ReturnType<typeof loadConfig>) => unknown, unknown][] = [
    ['rateLimits.perIp alone', { rateLimits: { perIp: [[60, 1000]] } }, (c) => c.rateLimits, { ...defaults.rateLimits, perIp: [[60, 1000]] }],
    ['eventQueues.maxPerUser alone', { eventQueues: { maxPerUser: 3 } }, (c) => c.eventQueues, { ...defaults.eventQueues, maxPerUser: 3 }],
    ['email.smtp.host alone', { email: { smtp: { host: 'mail.example.org' } } }, (c) => c.email, { from: null, smtp: { host: 'mail.example.org' } }],
    ['rootRealm.name alone', { rootRealm: { name: 'Acme' } }, (c) => c.rootRealm, { ...defaults.rootRealm, name: 'Acme' }],
    ['a list replaces the default list', { monitoring: { allowFrom: ['10.0.0.0/8'] } }, (c) => c.monitoring.allowFrom, ['10.0.0.0/8']],
  ];
  for (const [what, content, pick, expected] of cases) {
    writeFileSync(file, JSON.stringify(content));
    t.same(pick(loadConfig({ STOA_CONFIG: file })), expected, what);
  }
  writeFileSync(file, JSON.stringify({ rateLimits: { perIp: [[60, 1000]] } }));
  t.equal(loadConfig({ STOA_CONFIG: file, STOA_RATE_LIMITS: 'off' }).rateLimits.enabled, false, 'STOA_RATE_LIMITS applies over a merged section');
  t.same(loadConfig({ STOA_CONFIG: file }, { rateLimits: { enabled: false } as never }).rateLimits.perIp, [[60, 1000]], 'and so do overrides');
  t.same(deepMerge({ a: { b: 1, c: [1] }, d: null }, { a: { c: [2] }, d: { e: 1 } }), { a: { b: 1, c: [2] }, d: { e: 1 } }, 'deepMerge: objects merge, lists and null are replaced');

  t.test('a start with such a file runs, with the limit it names', async (t) => {
    const dataDir = join(dir, 'merged');
    writeFileSync(file, JSON.stringify({ rateLimits: { perIp: [[60, 2]] } }));
    const server = await spawnServer(t, { STOA_CONFIG: file, STOA_PORT: '0', STOA_DATA_DIR: dataDir, STOA_RATE_LIMITS: 'on' });
    const host = `localhost:${server.port}`;
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push((await http(server.port, { path: '/server_settings', host })).status);
    t.same(answers, [200, 200, 429], 'perIp [[60, 2]] holds, with the other rate limit keys from the defaults');
  });
});

t.test('STOA_* variables nothing reads are named at start', async (t) => {
  t.same(unknownVariables({ STOA_PROT: '80', STOA_PORT: '1', STOA_FUZZ_SEED: '1', PATH: '/bin' }), ['unknown variable STOA_PROT is ignored (did you mean STOA_PORT?)'], 'a misspelling, with the nearest known name; test and bench variables pass');
  t.same(unknownVariables({ STOA_WHATEVER_ELSE_ENTIRELY: '1' }), ['unknown variable STOA_WHATEVER_ELSE_ENTIRELY is ignored'], 'no suggestion when nothing is near');
  const server = await spawnServer(t, { STOA_PORT: '0', STOA_DATA_DIR: tempDir(t, 'stoa-settings-'), STOA_DATADIR: '/tmp/elsewhere' });
  t.match(server.stderr(), /^stoa: unknown variable STOA_DATADIR is ignored \(did you mean STOA_DATA_DIR\?\)$/m, 'the server prints it on stderr');
});

t.test('a relative dataDir is the project folder\'s, wherever the server starts', async (t) => {
  const dir = tempDir(t, 'stoa-settings-');
  const rel = relative(projectRoot, join(dir, 'rel-data'));
  t.equal(loadConfig({ STOA_DATA_DIR: rel }).dataDir, join(dir, 'rel-data'), 'resolved against the project folder, not the working directory');
  t.equal(loadConfig({}).dataDir, join(projectRoot, 'data'), 'the default ./data is <project>/data');
});

t.test('the first start takes the organization and its owner from the command line or the environment', async (t) => {
  t.test('from the command line', async (t) => {
    const dataDir = tempDir(t, 'stoa-settings-');
    const server = await spawnServer(t, { STOA_PORT: '0', STOA_DATA_DIR: dataDir }, ['--owner-email', 'boss@acme.example', '--owner-name', 'Bo Ss', '--organization-name', 'Acme']);
    t.match(server.stdout(), /^Created organization "Acme" at /m, 'the organization is named');
    t.equal(field(server.stdout(), 'owner email'), 'boss@acme.example', 'the owner has the address given');
    t.match(readFileSync(join(dataDir, 'zuliprc'), 'utf8'), /^email=boss@acme\.example$/m, 'and so has the zuliprc');
    const me = await http(server.port, { path: '/users/me', host: `localhost:${server.port}`, auth: { email: 'boss@acme.example', apiKey: field(server.stdout(), 'owner API key')! } });
    t.equal(me.body.full_name, 'Bo Ss', 'with the name given');
    await server.stop();

    const again = await spawnServer(t, { STOA_PORT: '0', STOA_DATA_DIR: dataDir }, ['--organization-name', 'Other']);
    t.match(again.stderr(), /the organization exists already, so the owner and organization given are ignored/, 'a later start says it ignores them');
    t.notMatch(again.stdout(), /Created organization/, 'and creates nothing');
  });

  t.test('from the environment', async (t) => {
    const dataDir = tempDir(t, 'stoa-settings-');
    const server = await spawnServer(t, { STOA_PORT: '0', STOA_DATA_DIR: dataDir, STOA_OWNER_EMAIL: 'me@team.example', STOA_ORGANIZATION_NAME: 'Team' });
    t.match(server.stdout(), /^Created organization "Team" at /m, 'the organization is named');
    t.equal(field(server.stdout(), 'owner email'), 'me@team.example', 'the owner has the address given');
    t.match(server.stdout(), new RegExp(`a new organization: ${dataDir} held none`), 'and the start says where the new organization lives');
  });

  t.test('a bad argument stops the start', async (t) => {
    const dataDir = join(tempDir(t, 'stoa-settings-'), 'data');
    const unknown = await runToExit({ STOA_DATA_DIR: dataDir }, ['--owner-mail', 'x@y.z']);
    t.equal(unknown.code, 2, 'an unknown option: exit status 2');
    t.match(unknown.stderr, /^stoa: Unknown option '--owner-mail'/, 'naming it');
    const bad = await runToExit({ STOA_DATA_DIR: dataDir }, ['--owner-email', 'nobody']);
    t.equal(bad.code, 2, 'a bad address: exit status 2');
    t.match(bad.stderr, /^stoa: invalid option "rootRealm\.ownerEmail": must match pattern/, 'naming the option');
    t.notOk(existsSync(dataDir), 'nothing is created');
  });
});
