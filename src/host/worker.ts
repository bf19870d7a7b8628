import { workerData, type MessagePort } from 'node:worker_threads';
import { hashThroughPort } from '../lib/hasher.js';
import { resolveConfig, type Config, type ResolvedConfig } from '../lib/config.js';
import { StartGate } from '../lib/start-gate.js';
import { log, setLogLevel } from '../lib/log.js';
import { runAdmin, type AdminTask } from './admin.js';
import { dispatch, verifyCredentials, type RequestTask, type VerifyTask } from './dispatch.js';
import { Shard } from '../shard/shard.js';
import { serveLink } from './link.js';
import { useBodyArena } from '../lib/body-arena.js';
import type { DeskTask } from '../shard/desk-wire.js';
import { jobsOf } from '../shard/jobs.js';
import { observeCommits } from './metrics.js';
import { queuesOf } from '../api/events/manager.js';
import { SERVER_GENERATION } from '../api/events/register-realm.js';
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../lib/version.js';

/** Piscina entry point: one module instance per shard thread, holding that shard's state. */
const started = workerData as { index: number; config: Config; gate: SharedArrayBuffer; messageIds: SharedArrayBuffer; bodyArena?: SharedArrayBuffer };
const { index, messageIds, bodyArena } = started;
useBodyArena(bodyArena);
// A thread may start while the main thread is still checking the store (ShardPool.prestart):
// nothing below the gate runs before those checks have passed.
const opened = await new StartGate(started.gate).passed();
const config: ResolvedConfig = { ...resolveConfig(started.config, opened.port), shards: opened.shards };
setLogLevel(config.logLevel);
// Password hashes go to the main thread's hashing thread (lib/hasher.ts), over the port that
// ShardPool sends with the thread's link (its first task).
let hashPortArrived: (port: MessagePort) => void = () => undefined;
hashThroughPort(new Promise((resolve) => (hashPortArrived = resolve)));
// An unhandled rejection would end this thread, and with it the shard's realms: log it instead.
// (lmdb-js rejects internal promises nobody holds when a commit fails; Shard.commitFailed
// handles the failure itself.)
process.on('unhandledRejection', (reason) => log.error({ err: reason, shard: index }, 'unhandled promise rejection in shard'));
const shard = Shard.open(index, config, messageIds);
// Before any commit: the metrics observe every transaction from the first.
observeCommits(shard);
shard.wheel.start();
// Queues resume after a stop or a crash, each with a `restart` event.
await queuesOf(shard).journal.restore({
  type: 'restart',
  zulip_version: ZULIP_VERSION,
  zulip_merge_base: ZULIP_MERGE_BASE,
  zulip_feature_level: ZULIP_FEATURE_LEVEL,
  server_generation: SERVER_GENERATION,
});

export type ShardTask = RequestTask | VerifyTask | AdminTask | { kind: 'cancel'; requestId: string } | { kind: 'drain' } | { kind: 'startJobs' } | { kind: 'close' } | { kind: 'link'; port: MessagePort; hashPort?: MessagePort } | DeskTask;

export default async function handle(task: ShardTask): Promise<unknown> {
  switch (task.kind) {
    case 'link':
      // The only task piscina carries: every other comes over this channel (link.ts).
      shard.toFront = serveLink(task.port, handle);
      if (task.hashPort) hashPortArrived(task.hashPort);
      return null;
    case 'desks':
      queuesOf(shard).desks.run(task);
      return null;
    case 'request':
      return dispatch(shard, task);
    case 'verify':
      return verifyCredentials(shard, task);
    case 'admin':
      return runAdmin(shard, task);
    case 'cancel':
      queuesOf(shard).cancel(task.requestId);
      return null;
    case 'startJobs':
      // Sent by ShardPool.ready once every shard has raised the message-id counter. Overdue jobs
      // (due while the server was down) run first. Their kinds were registered when the api
      // modules loaded (through dispatch.js).
      jobsOf(shard).start();
      return null;
    case 'drain':
      queuesOf(shard).drain();
      return null;
    case 'close':
      await jobsOf(shard).stop();
      // A full disk may refuse the acknowledgements: clients then get a few events again after
      // the restart, as after a crash, and the stop goes on.
      await queuesOf(shard)
        .journal.saveAcks()
        .catch((err) => log.error({ err, shard: index }, 'saving event queue acknowledgements at the stop failed'));
      await shard.close();
      return null;
  }
}
