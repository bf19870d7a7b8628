import { workerData } from 'node:worker_threads';
import type { ResolvedConfig } from '../config.js';
import { setLogLevel } from '../lib/log.js';
import { runAdmin, type AdminTask } from './admin.js';
import { dispatch, type RequestTask } from './dispatch.js';
import { Shard } from './shard.js';
import { queuesOf } from '../api/events/manager.js';

/** Piscina entry point: one module instance per shard thread, holding that shard's state. */
const { index, config, messageIds } = workerData as { index: number; config: ResolvedConfig; messageIds: SharedArrayBuffer };
setLogLevel(config.logLevel);
const shard = Shard.open(index, config, messageIds);
shard.wheel.start();

export type ShardTask = RequestTask | AdminTask | { kind: 'cancel'; requestId: string } | { kind: 'close' };

export default async function handle(task: ShardTask): Promise<unknown> {
  switch (task.kind) {
    case 'request':
      return dispatch(shard, task);
    case 'admin':
      return runAdmin(shard, task);
    case 'cancel':
      queuesOf(shard).cancel(task.requestId);
      return null;
    case 'close':
      await shard.close();
      return null;
  }
}
