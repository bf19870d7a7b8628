import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { tempDir } from '../cli/run.js';
import { runToExit, spawnServer } from './spawn.js';

t.test('npm start: a bad configuration stops the start', async (t) => {
  const dir = tempDir(t, 'stoa-config-');
  const configFile = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const cases: [string, Record<string, string>, RegExp][] = [
    ['a port that is not a number', { STOA_CONFIG: configFile('port.json', '{"port": "x"}') }, /^stoa: invalid option "port": must be integer\n$/],
    ['a port out of range', { STOA_CONFIG: configFile('range.json', '{"port": 70000}') }, /^stoa: invalid option "port": must be <= 65535\n$/],
    ['an unknown option', { STOA_CONFIG: configFile('unknown.json', '{"prot": 9991}') }, /^stoa: invalid config: must NOT have additional properties "prot"\n$/],
    ['a bad nested option', { STOA_CONFIG: configFile('nested.json', '{"rootRealm": {"name": "X", "ownerEmail": "nobody", "ownerFullName": "Y"}}') }, /^stoa: invalid option "rootRealm\.ownerEmail": must match pattern/],
    ['an unknown log level', { STOA_CONFIG: configFile('level.json', '{"logLevel": "loud"}') }, /^stoa: invalid option "logLevel": must be equal to one of the allowed values\n$/],
    ['a config file that is not JSON', { STOA_CONFIG: configFile('broken.json', '{"port": ') }, /^stoa: config file .*broken\.json is not valid JSON: /],
    ['a missing config file', { STOA_CONFIG: join(dir, 'absent.json') }, /^stoa: cannot read config file .*absent\.json: ENOENT/],
    ['a bad STOA_PORT', { STOA_PORT: 'eighty' }, /^stoa: STOA_PORT must be a non-negative integer, got "eighty"\n$/],
    ['a bad STOA_SHARDS', { STOA_SHARDS: '0' }, /^stoa: invalid option "shards": must be >= 1\n$/],
    ['a bad STOA_LOG_LEVEL', { STOA_LOG_LEVEL: 'chatty' }, /^stoa: invalid option "logLevel"/],
    ['a nested option of the wrong type', { STOA_CONFIG: configFile('nested-type.json', '{"rateLimits": {"perIp": 5}}') }, /^stoa: invalid option "rateLimits\.perIp": must be array\n$/],
    ['an unknown nested option', { STOA_CONFIG: configFile('nested-unknown.json', '{"eventQueues": {"maxPerUsr": 5}}') }, /^stoa: invalid option "eventQueues": must NOT have additional properties "maxPerUsr"\n$/],
    ['an unreadable SMTP CA file', { STOA_CONFIG: configFile('ca.json', '{"email": {"smtp": {"host": "mail", "caFile": "/nonexistent/ca.pem"}}}') }, /^stoa: invalid option "email\.smtp\.caFile": cannot read \/nonexistent\/ca\.pem: ENOENT/],
  ];
  for (const [what, env, message] of cases) {
    t.test(`refuses ${what}`, async (t) => {
      const dataDir = join(dir, `data-${what.replace(/\W+/g, '-')}`);
      const res = await runToExit({ STOA_DATA_DIR: dataDir, ...env });
      t.equal(res.code, 2, 'exit status 2');
      t.match(res.stderr, message, 'a one-line message naming the option');
      t.equal(res.stdout, '', 'nothing is printed on stdout: no half start');
      t.notOk(existsSync(dataDir), 'the data directory is not created');
    });
  }

  t.test('refuses a port already in use, and leaves no lock behind', async (t) => {
    const running = await spawnServer(t, { STOA_PORT: '0', STOA_DATA_DIR: join(dir, 'running') });
    const dataDir = join(dir, 'second');
    const res = await runToExit({ STOA_PORT: String(running.port), STOA_DATA_DIR: dataDir });
    t.equal(res.code, 1, 'exit status 1');
    t.match(res.stderr, new RegExp(`^stoa: failed to start: listen EADDRINUSE: port ${running.port} on 127\\.0\\.0\\.1 is in use .*set STOA_PORT`), 'says the address is in use, and which setting to change');
    t.notMatch(res.stdout, /Stoa listening/, 'does not claim to listen');
    t.notOk(existsSync(join(dataDir, 'stoa.pid')), 'the lock is released');
  });
});
