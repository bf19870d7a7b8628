import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import t from 'tap';
import { field, http, tempDir } from '../cli/run.js';
import { spawnServer } from './spawn.js';

t.test('npm start: the first start on an empty data directory', async (t) => {
  const dataDir = tempDir(t, 'stoa-start-');
  const server = await spawnServer(t, { STOA_PORT: '0', STOA_DATA_DIR: dataDir });
  const out = server.stdout();
  const host = `localhost:${server.port}`;

  t.test('prints the owner\'s credentials and where the zuliprc is', async (t) => {
    t.match(out, new RegExp(`^Created organization "Stoa" at http://${host}$`, 'm'), 'names the new organization and its URL, with the real port');
    t.equal(field(out, 'owner email'), 'owner@stoa.invalid', 'the owner email from config/default.json');
    t.match(field(out, 'owner password'), /^[A-Za-z0-9]{12,}$/, 'a generated password');
    t.match(field(out, 'owner API key'), /^[A-Za-z0-9]{32}$/, 'a 32-character API key');
    t.equal(field(out, 'zuliprc'), join(dataDir, 'zuliprc'), 'the zuliprc is <data dir>/zuliprc');
    t.match(out, new RegExp(`^Stoa listening on http://127\\.0\\.0\\.1:${server.port} \\(data in ${dataDir}, 2 shards\\)$`, 'm'), 'the listening line shows the real port (port 0 picked it)');
    t.equal(server.stderr(), '', 'nothing on stderr');
  });

  t.test('writes a zuliprc the clients can use', async (t) => {
    const path = join(dataDir, 'zuliprc');
    t.equal(readFileSync(path, 'utf8'), `[api]\nemail=owner@stoa.invalid\nkey=${field(out, 'owner API key')}\nsite=http://${host}\n`, 'an [api] section with email, key and site');
    t.equal(statSync(path).mode & 0o777, 0o600, 'readable by its owner only');
  });

  t.test('the printed credentials work over HTTP', async (t) => {
    const owner = { email: field(out, 'owner email')!, apiKey: field(out, 'owner API key')! };
    const me = await http(server.port, { path: '/users/me', host, auth: owner });
    t.equal(me.status, 200, 'the API key authenticates');
    t.equal(me.body.role, 100, 'as the organization owner');
    const login = await http(server.port, { method: 'POST', path: '/fetch_api_key', host, form: { username: owner.email, password: field(out, 'owner password')! } });
    t.equal(login.status, 200, 'the password logs in');
    t.equal(login.body.api_key, owner.apiKey, 'and yields the same API key');
  });

  t.test('zulip-js connects with nothing but the zuliprc', async (t) => {
    const zulipInit = createRequire(import.meta.url)('zulip-js');
    const client = await zulipInit({ zuliprc: join(dataDir, 'zuliprc') });
    const profile = await client.users.me.getProfile();
    t.equal(profile.result, 'success', 'GET /users/me through zulip-js succeeds');
    t.equal(profile.email, 'owner@stoa.invalid', 'as the owner');
  });

  t.test('holds the data directory lock while it runs', async (t) => {
    t.equal(readFileSync(join(dataDir, 'stoa.pid'), 'utf8'), `${server.child.pid}\n`, 'stoa.pid holds the server pid');
  });
});
