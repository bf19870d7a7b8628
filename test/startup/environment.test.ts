import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { http, tempDir } from '../cli/run.js';
import { freePort, spawnServer } from './spawn.js';

t.test('npm start: STOA_* variables are honoured', async (t) => {
  t.test('STOA_PORT and STOA_DATA_DIR', async (t) => {
    const dataDir = join(tempDir(t, 'stoa-env-'), 'nested', 'data');
    const port = await freePort();
    const server = await spawnServer(t, { STOA_PORT: String(port), STOA_DATA_DIR: dataDir });
    t.equal(server.port, port, 'listens on STOA_PORT');
    t.ok(existsSync(join(dataDir, 'zuliprc')), 'writes the zuliprc in STOA_DATA_DIR, creating it');
    t.ok(existsSync(join(dataDir, 'directory')), 'keeps the realm directory there');
    const res = await http(port, { path: '/server_settings', host: `localhost:${port}` });
    t.equal(res.status, 200, 'answers on that port');
  });

  t.test('STOA_BIND', async (t) => {
    const server = await spawnServer(t, { STOA_PORT: '0', STOA_BIND: '127.0.0.2', STOA_DATA_DIR: tempDir(t, 'stoa-env-') });
    t.equal(server.address, '127.0.0.2', 'the listening line shows the bound address');
    const res = await http(server.port, { path: '/server_settings', host: 'any', address: '127.0.0.2' });
    t.equal(res.status, 200, 'answers on 127.0.0.2');
    await t.rejects(http(server.port, { path: '/server_settings', host: 'any', address: '127.0.0.1' }), 'and not on 127.0.0.1');
  });

  t.test('STOA_EXTERNAL_HOST and STOA_SHARDS', async (t) => {
    const dataDir = tempDir(t, 'stoa-env-');
    const server = await spawnServer(t, { STOA_PORT: '0', STOA_DATA_DIR: dataDir, STOA_EXTERNAL_HOST: 'chat.example.com', STOA_SHARDS: '3' });
    t.match(server.stdout(), /^Created organization "Stoa" at http:\/\/chat\.example\.com$/m, 'the realm URL uses the external host');
    t.match(readFileSync(join(dataDir, 'zuliprc'), 'utf8'), /^site=http:\/\/chat\.example\.com$/m, 'so does the zuliprc');
    t.match(server.stdout(), /, 3 shards\)$/m, 'three shards');
  });

  t.test('STOA_CONFIG, with STOA_* variables over the file', async (t) => {
    const dir = tempDir(t, 'stoa-env-');
    const config = join(dir, 'stoa.json');
    writeFileSync(config, JSON.stringify({ port: 1, dataDir: join(dir, 'from-file'), rootRealm: { name: 'Team', ownerEmail: 'me@team.test', ownerFullName: 'Me' } }));
    const server = await spawnServer(t, { STOA_CONFIG: config, STOA_PORT: '0' });
    t.not(server.port, 1, 'STOA_PORT overrides the file');
    t.match(server.stdout(), /^Created organization "Team" at /m, 'the root realm comes from the file');
    t.match(server.stdout(), /^\s+owner email:\s+me@team\.test$/m, 'and its owner');
    t.ok(existsSync(join(dir, 'from-file', 'zuliprc')), 'the data directory comes from the file');
  });
});
