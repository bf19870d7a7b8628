import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { tempDir } from '../cli/run.js';
import { spawnServer } from './spawn.js';

/**
 * The server starts without V8's compiling tiers and gets them back with its first client
 * (lib/start-tiers.ts, main.ts, server.ts). V8's --trace-opt lines say what TurboFan compiled;
 * they are read once the server has exited, when its output has all been flushed.
 */

const compiled = (out: string) => (out.match(/completed optimizing/g) ?? []).length;

t.test('nothing is compiled until a client comes; then the hot code is', async (t) => {
  const dataDir = tempDir(t, 'stoa-tiers-');
  const env = { STOA_PORT: '0', STOA_DATA_DIR: dataDir };
  // Without tap's preload, which loads modules before main.ts can hold anything (tap puts its
  // NODE_OPTIONS back into every child's environment: env takes it out).
  const launch = ['/usr/bin/env', '-u', 'NODE_OPTIONS', process.execPath, '--trace-opt'];
  // A first start (the organization made) and an idle second of quiet, with no client.
  const first = await spawnServer(t, env, [], launch);
  await sleep(1000);
  t.equal((await first.stop()).code, 0, 'stopped cleanly');
  t.equal(compiled(first.stdout()), 0, 'no function was optimized by the first start, its idle second or its stop');

  const second = await spawnServer(t, env, [], launch);
  await sleep(500);
  const base = `http://127.0.0.1:${second.port}/api/v1/server_settings`;
  let answered = 0;
  for (let i = 0; i < 1500; i++) {
    const res = await fetch(base);
    await res.arrayBuffer();
    if (res.status === 200) answered++;
  }
  t.equal(answered, 1500, 'every request answered');
  t.equal((await second.stop()).code, 0, 'stopped cleanly');
  t.ok(compiled(second.stdout()) > 0, `the requests' hot functions were optimized (${compiled(second.stdout())})`);
});
