import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { serveHashes } from '../lib/hasher.js';
import type { ResolvedConfig } from '../config.js';
import type { Reply, RequestTask, VerifyTask } from './dispatch.js';
import type { AdminTask } from './admin.js';
import { MessageIds } from '../store/message-ids.js';
import { log } from '../lib/log.js';

/**
 * The shard actors. Each shard is a piscina pool of exactly one thread, so a realm always reaches
 * the same thread and its state needs no locks. Atomics are disabled and the concurrency limit
 * is high, so the thread keeps its event loop: timers run, and a task that awaits (a parked
 * long-poll, an LMDB commit) never blocks the tasks queued behind it. idleTimeout is infinite:
 * the thread holds the shard's state and must never be recycled.
 *
 * A shard's thread starts when it is first needed: at start for the shards that hold realms,
 * later for the one a new realm is placed on. A thread costs about 25 MB even idle, and a
 * one-realm server needs one, whatever `shards` says (it only spreads realms created later).
 */
export class ShardPool {
  private readonly pools: (Piscina | undefined)[];
  private readonly filename = new URL('./worker.js', import.meta.url).href;
  // One message-id counter for all shards (store/message-ids.ts); shared, not copied.
  private readonly messageIds = MessageIds.buffer();

  constructor(private readonly config: ResolvedConfig) {
    this.pools = new Array(config.shards).fill(undefined);
  }

  get size(): number {
    return this.pools.length;
  }

  /** Set by ready(): shards started from then on run their durable jobs at once. */
  private jobsStarted = false;

  private pool(index: number): Piscina {
    const existing = this.pools[index];
    if (existing) return existing;
    const pool = (this.pools[index] = new Piscina({
      filename: this.filename,
      minThreads: 1,
      maxThreads: 1,
      idleTimeout: Infinity,
      concurrentTasksPerWorker: 100_000,
      maxQueue: Infinity,
      atomics: 'disabled',
      workerData: { index, config: this.config, messageIds: this.messageIds },
    }));
    // Piscina re-emits a worker's uncaught error on the pool, and an 'error' event with no
    // listener ends the process, taking every other shard with it. The failed shard's thread
    // is replaced (minThreads), and reloads its realms from the store.
    pool.on('error', (err) => {
      log.error({ err, shard: index }, 'shard thread failed; a new one takes over from the store');
      givePort(pool);
    });
    givePort(pool);
    if (this.jobsStarted) pool.run({ kind: 'startJobs' }).catch(() => undefined);
    return pool;
  }

  /**
   * Starts the given shards and resolves once each has loaded its state, and so has raised the
   * shared message-id counter to its high-water mark: no request may be served before that. A
   * shard that holds no realm has no messages, so it may start later.
   */
  async ready(shards: Iterable<number>): Promise<void> {
    await Promise.all([...new Set(shards)].map((index) => this.pool(index).run({ kind: 'admin', op: 'ping' })));
    // Durable jobs send messages, so they too wait until every shard has raised the counter.
    this.jobsStarted = true;
    await Promise.all(this.running().map((pool) => pool.run({ kind: 'startJobs' })));
  }

  request(shard: number, task: RequestTask): Promise<Reply> {
    return this.pool(shard).run(task);
  }

  /** Whether a request's credentials are good (front/guard.ts, for an address over its limit). */
  verify(shard: number, task: Omit<VerifyTask, 'kind'>): Promise<boolean> {
    return this.pool(shard).run({ kind: 'verify', ...task });
  }

  /** Tells a shard that the client of a request went away (a parked long-poll is dropped). */
  cancel(shard: number, requestId: string): void {
    this.pool(shard).run({ kind: 'cancel', requestId }).catch(() => undefined);
  }

  admin<T>(shard: number, task: AdminTask): Promise<T> {
    return this.pool(shard).run(task);
  }

  private running(): Piscina[] {
    return this.pools.filter((pool): pool is Piscina => pool !== undefined);
  }

  /** First step of a graceful stop: every shard answers its parked long-polls and parks no more. */
  async drain(): Promise<void> {
    await Promise.all(this.running().map((pool) => pool.run({ kind: 'drain' })));
  }

  /** Saves the event queues, flushes and closes every shard's LMDB environment, stops the threads. */
  async close(): Promise<void> {
    const pools = this.running();
    await Promise.all(pools.map((pool) => pool.run({ kind: 'close' })));
    await Promise.all(pools.map((pool) => pool.destroy()));
  }
}

/**
 * A shard thread's password hashes come to the main thread, which runs them on the process's one
 * hashing thread (lib/hasher.ts): the port is the thread's first task, and a replacement
 * thread's too.
 */
function givePort(pool: Piscina): void {
  const { port1, port2 } = new MessageChannel();
  serveHashes(port1);
  pool.run({ kind: 'hashPort', port: port2 }, { transferList: [port2] }).catch(() => undefined);
}
