import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { http, tempDir } from '../cli/run.js';
import { runToExit, spawnServer } from './spawn.js';

t.test('npm start: a second server on the same data directory is refused', async (t) => {
  const dataDir = tempDir(t, 'stoa-lock-');
  const first = await spawnServer(t, { STOA_PORT: '0', STOA_DATA_DIR: dataDir });
  const res = await runToExit({ STOA_PORT: '0', STOA_DATA_DIR: dataDir });
  t.equal(res.code, 1, 'exit status 1');
  t.equal(
    res.stderr,
    `stoa: data directory ${dataDir} is in use by process ${first.child.pid} (a running Stoa server or admin command); stop it first\n`,
    'one line naming the directory and the pid holding it',
  );
  t.equal(res.stdout, '', 'prints nothing else');
  t.equal(readFileSync(join(dataDir, 'stoa.pid'), 'utf8'), `${first.child.pid}\n`, 'the first server keeps its lock');
  const still = await http(first.port, { path: '/server_settings', host: `localhost:${first.port}` });
  t.equal(still.status, 200, 'the first server still serves');
});
