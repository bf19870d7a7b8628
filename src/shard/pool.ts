import { Piscina } from 'piscina';
import type { ResolvedConfig } from '../config.js';
import type { Reply, RequestTask } from './dispatch.js';
import type { AdminTask } from './admin.js';
import { MessageIds } from '../store/message-ids.js';

/**
 * The shard actors. Each shard is a piscina pool of exactly one thread, so a realm always reaches
 * the same thread and its state needs no locks. Atomics are disabled and the concurrency limit
 * is high, so the thread keeps its event loop: timers run, and a task that awaits (a parked
 * long-poll, an LMDB commit) never blocks the tasks queued behind it. idleTimeout is infinite:
 * the thread holds the shard's state and must never be recycled.
 */
export class ShardPool {
  private readonly pools: Piscina[];

  constructor(config: ResolvedConfig) {
    const filename = new URL('./worker.js', import.meta.url).href;
    // One message-id counter for all shards (store/message-ids.ts); shared, not copied.
    const messageIds = MessageIds.buffer();
    this.pools = Array.from({ length: config.shards }, (_, index) =>
      new Piscina({
        filename,
        minThreads: 1,
        maxThreads: 1,
        idleTimeout: Infinity,
        concurrentTasksPerWorker: 100_000,
        maxQueue: Infinity,
        atomics: 'disabled',
        workerData: { index, config, messageIds },
      }),
    );
  }

  get size(): number {
    return this.pools.length;
  }

  /**
   * Resolves once every shard has loaded its state, and so has raised the shared message-id
   * counter to its high-water mark: no request may be served before that.
   */
  async ready(): Promise<void> {
    await Promise.all(this.pools.map((pool) => pool.run({ kind: 'admin', op: 'ping' })));
  }

  request(shard: number, task: RequestTask): Promise<Reply> {
    return this.pools[shard].run(task);
  }

  /** Tells a shard that the client of a request went away (a parked long-poll is dropped). */
  cancel(shard: number, requestId: string): void {
    this.pools[shard].run({ kind: 'cancel', requestId }).catch(() => undefined);
  }

  admin<T>(shard: number, task: AdminTask): Promise<T> {
    return this.pools[shard].run(task);
  }

  /** First step of a graceful stop: every shard answers its parked long-polls and parks no more. */
  async drain(): Promise<void> {
    await Promise.all(this.pools.map((pool) => pool.run({ kind: 'drain' })));
  }

  /** Saves the event queues, flushes and closes every shard's LMDB environment, stops the threads. */
  async close(): Promise<void> {
    await Promise.all(this.pools.map((pool) => pool.run({ kind: 'close' })));
    await Promise.all(this.pools.map((pool) => pool.destroy()));
  }
}
