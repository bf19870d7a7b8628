import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import t from 'tap';
import { loadConfig, resolveConfig } from '../../src/lib/config.js';
import { StartGate } from '../../src/lib/start-gate.js';
import { ShardPool } from '../../src/host/pool.js';
import { shardFile } from '../../src/store/integrity.js';

/**
 * lib/start-gate.ts and ShardPool.prestart: a shard thread started before the start's checks
 * have passed loads its modules and waits, touching no store, until the pool opens its gate.
 */

const GATE = new URL('../../src/lib/start-gate.js', import.meta.url).href;

/** A thread that waits at the gate and posts what it was given. */
function waiter(gate: StartGate): Promise<{ port: number; shards: number }> {
  const code = `
    const { workerData, parentPort } = require('node:worker_threads');
    import(${JSON.stringify(GATE)}).then(async ({ StartGate }) => parentPort.postMessage(await new StartGate(workerData).passed()));`;
  const worker = new Worker(code, { eval: true, workerData: gate.buffer });
  return new Promise((resolve, reject) => {
    worker.on('message', (m) => {
      resolve(m);
      void worker.terminate();
    });
    worker.on('error', reject);
  });
}

const within = <T>(p: Promise<T>, ms: number): Promise<T | 'pending'> => Promise.race([p, new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))]);

t.test('a thread waits until the gate opens, and one started later passes at once', async (t) => {
  const gate = new StartGate();
  const early = waiter(gate);
  t.equal(await within(early, 300), 'pending', 'closed: the thread waits');
  gate.open(40123, 3);
  t.same(await early, { port: 40123, shards: 3 }, 'opened: the port and the shard count');
  t.same(await waiter(gate), { port: 40123, shards: 3 }, 'a thread started after the opening is not held');
  t.throws(() => gate.open(1, 1), /open already/, 'the gate opens once');
});

t.test('a prestarted shard opens no store before the pool opens its gate', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-gate-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig({}, { dataDir, shards: 2, logLevel: 'silent' });
  const pool = new ShardPool(config);
  pool.prestart([0, 7]);
  t.same(pool.started(), [0], 'shard 0 started; a shard the config does not have is left for later');
  const ping = pool.admin<unknown>(0, { kind: 'admin', op: 'ping' });
  t.equal(await within(ping, 1500), 'pending', 'the gate closed: no answer');
  t.notOk(existsSync(shardFile(dataDir, 0)), 'and no store opened');
  pool.open({ ...resolveConfig(config, 4567), shards: 3 });
  await ping;
  t.ok(existsSync(shardFile(dataDir, 0)), 'opened: the shard has its store');
  t.equal(pool.size, 3, 'the shard count the start settled on');
  await pool.close();
});
