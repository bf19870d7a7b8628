import type { MessagePort } from 'node:worker_threads';
import { createRequire } from 'node:module';
import type { Piscina } from 'piscina';
import type { HashTask } from './hash-worker.js';

export type { HashTask } from './hash-worker.js';

/**
 * Password hashing, off libuv's threadpool and bounded.
 *
 * Node's crypto.scrypt runs on libuv's threadpool (four threads for the whole process), which
 * every file operation also waits for: eight concurrent logins with made-up names, each a
 * 32 MiB scrypt, once held another person's 1 KB upload for 14 to 27 s. So hashes run on a
 * thread of their own (`scryptSync` in hash-worker.ts, through piscina), one for the whole
 * process: the main thread owns it, and each shard thread sends its hashes there over a
 * MessagePort (ShardPool hands the ports out). Its queue is bounded: a hash asked for when
 * QUEUE are already waiting is refused with HashQueueFull, which the API answers with
 * 429 RATE_LIMIT_HIT, rather than letting a flood of logins grow the wait for everyone.
 */
const THREADS = 1;
const QUEUE = 16;

export class HashQueueFull extends Error {
  constructor(readonly retryAfter: number) {
    super('too many password hashes waiting');
  }
}

interface Hasher {
  scrypt(task: HashTask): Promise<Buffer>;
}

/** The hashing thread, in the thread that owns it (the main thread; the CLI; in-process tests). */
class PoolHasher implements Hasher {
  // Required here, not imported: shard threads load this module for hashThroughPort, and piscina
  // would cost each of them about 0.6 MB of heap.
  private readonly pool: Piscina = new (createRequire(import.meta.url)('piscina') as typeof import('piscina')).Piscina({
    filename: new URL('./hash-worker.js', import.meta.url).href,
    minThreads: 0,
    maxThreads: THREADS,
    // Started on the first hash, stopped after a minute without one (and never keeps a process alive).
    idleTimeout: 60_000,
    // Its timing histograms, which nothing reads, would cost 0.7 MB of malloc'd memory.
    recordTiming: false,
  });
  private inFlight = 0;
  /** Recent time of one hash, for retry-after. */
  private hashMs = 100;

  async scrypt(task: HashTask): Promise<Buffer> {
    if (this.inFlight >= THREADS + QUEUE) throw new HashQueueFull(Math.max(0.5, ((this.inFlight - THREADS + 1) * this.hashMs) / THREADS / 1000));
    this.inFlight++;
    const started = Date.now();
    try {
      const key: Uint8Array = await this.pool.run(task);
      this.hashMs = this.hashMs * 0.8 + (Date.now() - started) * 0.2;
      return Buffer.from(key.buffer, key.byteOffset, key.byteLength);
    } finally {
      this.inFlight--;
    }
  }
}

type HashReply = { id: number; key: Uint8Array } | { id: number; full: number } | { id: number; error: string };

/** A shard thread's side: its hashes go to the main thread's hashing thread. */
class PortHasher implements Hasher {
  private next = 0;
  private readonly waiting = new Map<number, { resolve(key: Buffer): void; reject(err: Error): void }>();

  constructor(private readonly port: Promise<MessagePort>) {
    void port.then((p) => {
      p.on('message', (reply: HashReply) => {
        const waiter = this.waiting.get(reply.id);
        this.waiting.delete(reply.id);
        if (!waiter) return;
        if ('key' in reply) waiter.resolve(Buffer.from(reply.key.buffer, reply.key.byteOffset, reply.key.byteLength));
        else if ('full' in reply) waiter.reject(new HashQueueFull(reply.full));
        else waiter.reject(new Error(reply.error));
      });
      p.unref();
    });
  }

  async scrypt(task: HashTask): Promise<Buffer> {
    const port = await this.port;
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      port.postMessage({ id, task });
    });
  }
}

let local: PoolHasher | null = null;
let current: Hasher | null = null;

function hasher(): Hasher {
  return (current ??= local ??= new PoolHasher());
}

/** scrypt on the hashing thread; throws HashQueueFull when its queue is full. */
export function scryptOffPool(task: HashTask): Promise<Buffer> {
  return hasher().scrypt(task);
}

/**
 * In a shard thread, before its first hash: hashes will go over the port `arrives` resolves
 * with (ShardPool sends it as the thread's first task).
 */
export function hashThroughPort(arrives: Promise<MessagePort>): void {
  current = new PortHasher(arrives);
}

/** On the main thread: answers a shard thread's hashes from the process's hashing thread. */
export function serveHashes(port: MessagePort): void {
  const own = (local ??= new PoolHasher());
  port.on('message', ({ id, task }: { id: number; task: HashTask }) => {
    own.scrypt(task).then(
      (key) => port.postMessage({ id, key }),
      (err: Error) => port.postMessage(err instanceof HashQueueFull ? { id, full: err.retryAfter } : { id, error: err.message }),
    );
  });
  port.unref();
}
