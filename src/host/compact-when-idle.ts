import type { IncomingMessage } from 'node:http';
import { compactHeap, withRoomyOldGeneration, type YoungGeneration } from '../lib/compact-heap.js';
import { log } from '../lib/log.js';
import type { ShardPool } from './pool.js';

/** How often the process's CPU time is read, and the share of one core below which it is idle. */
const WINDOW_MS = 500;
const IDLE_SHARE = 0.2;

/** Each thread's young generation before and after, the main thread's first; null if the server stopped first. */
export type Compaction = ({ thread: 'main' | `shard ${number}` } & YoungGeneration)[] | null;

/**
 * The requests the front end has seen, as the watch reads them: counted where the server already
 * sees each one begin and end (server.ts), so the count costs a request two additions.
 */
export class RequestActivity {
  /** Requests begun plus requests ended: unchanged over a window, none came or went. */
  changes = 0;
  /** Requests in flight that a client waits on: all but GET /events, which parks by design. */
  waiting = 0;

  /** A request has begun; what it returns goes to `end` when it closes. */
  begin(req: IncomingMessage): boolean {
    this.changes++;
    const waits = req.method !== 'GET' || !req.url?.includes('/events');
    if (waits) this.waiting++;
    return waits;
  }

  end(waits: boolean): void {
    this.changes++;
    if (waits) this.waiting--;
  }
}

/**
 * Once the server has started and then been idle for a moment, every thread runs one low-memory
 * collection (lib/compact-heap.ts): the shards' first, then the main thread's. Idle is half a
 * second in which no request came or went, none but parked long-polls was in flight, and the
 * process used under a fifth of a core. The start leaves each thread's young generation at a busy
 * thread's size, about 27 MB over the main and one shard thread, which an idle server does not
 * need; a thread under load grows it again within seconds. Only once: after later busy spells
 * V8's memory reducer does the same when it finds a thread idle.
 *
 * The requests decide, not the CPU time alone: on a loaded machine a busy server gets under a
 * fifth of a core, and a client that sends one request at a time spends part of each round on
 * its side; either way the CPU test alone found such a server idle and compacted it between two
 * requests (bench/RESULTS.md, the gc3 session: P7b's registers right after a restart, where the
 * compaction fired during the first ones and the collections it cost fell on the next).
 *
 * What the next burst pays for it was profiled (bench/RESULTS.md, the mem3 session): P5 right
 * after start, A/B, spends the same in each function, runs as many collections and as many
 * optimising compilations and deoptimisations; only start-up code (URL getters, module
 * resolution) loses its optimised code to the collection.
 */
export function compactWhenIdle(pool: ShardPool, signal: AbortSignal, requests: RequestActivity): Promise<Compaction> {
  return new Promise((resolve) => {
    let last = process.cpuUsage();
    let changes = requests.changes;
    const timer = setInterval(() => {
      const spent = process.cpuUsage(last);
      last = process.cpuUsage();
      const quiet = requests.changes === changes && requests.waiting === 0;
      changes = requests.changes;
      if (!quiet || (spent.user + spent.system) / 1000 > WINDOW_MS * IDLE_SHARE) return;
      clearInterval(timer);
      const started = Date.now();
      void withRoomyOldGeneration(async (): Promise<Compaction> => {
        const shards = await Promise.all(
          pool.started().map(async (shard) => ({ thread: `shard ${shard}` as const, ...(await pool.admin<YoungGeneration>(shard, { kind: 'admin', op: 'compactHeap' })) })),
        );
        if (signal.aborted) return null;
        return [{ thread: 'main', ...(await compactHeap()) }, ...shards];
      }).then(
        (threads) => {
          log.info({ ms: Date.now() - started, threads }, 'idle after start: each thread handed back its young generation');
          resolve(threads);
        },
        (err) => {
          // A shard that stopped meanwhile: the server is stopping.
          log.debug({ err }, 'heap compaction after start not finished');
          resolve(null);
        },
      );
    }, WINDOW_MS);
    timer.unref();
    signal.addEventListener(
      'abort',
      () => {
        clearInterval(timer);
        resolve(null);
      },
      { once: true },
    );
  });
}
