import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { http, tempDir } from '../cli/run.js';
import { spawnServer } from './spawn.js';

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  t.test(`npm start: ${signal} stops the server with exit status 0`, async (t) => {
    const dataDir = tempDir(t, 'stoa-start-');
    const server = await spawnServer(t, { STOA_PORT: '0', STOA_DATA_DIR: dataDir });
    const before = await http(server.port, { path: '/server_settings', host: `localhost:${server.port}` });
    t.equal(before.status, 200, 'it serves before the signal');
    const { code, signal: killedBy } = await server.stop(signal);
    t.equal(code, 0, 'exit status 0');
    t.equal(killedBy, null, 'it exits by itself, not killed by the signal');
    t.notOk(existsSync(join(dataDir, 'stoa.pid')), 'the pid file is removed');
    await t.rejects(http(server.port, { path: '/server_settings', host: `localhost:${server.port}` }), 'the port is closed');
  });
}
