import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { MessagePort } from 'node:worker_threads';
import { serveHashes } from '../lib/hasher.js';
import { configuredShards, type Config, type ResolvedConfig } from '../lib/config.js';
import { StartGate } from '../lib/start-gate.js';
import type { Reply, RequestTask, VerifyTask } from './dispatch.js';
import type { AdminTask } from './admin.js';
import { ShardLink } from './link.js';
import { BodyArena } from '../lib/body-arena.js';
import { FrontDesks, type DeskPoll, type DeskTicket } from './desk.js';
import type { ShardNote } from '../shard/desk-wire.js';
import { RateLimiter } from '../lib/rate-limit.js';
import { MessageIds, NO_LIMIT } from '../store/message-ids.js';
import { log } from '../lib/log.js';

/** A plain poll sent to the shard, which may park it at its queue's new desk (ShardPool.request). */
export interface ParkAtDesk {
  poll: DeskPoll;
  /** Set when the poll was parked at the desk, or answered there at once. */
  ticket: DeskTicket | null;
}

/**
 * The shard actors. Each shard is a piscina pool of exactly one thread, so a realm always reaches
 * the same thread and its state needs no locks. Atomics are disabled and the concurrency limit
 * is high, so the thread keeps its event loop: timers run, and a task that awaits (a parked
 * long-poll, an LMDB commit) never blocks the tasks queued behind it. idleTimeout is infinite:
 * the thread holds the shard's state and must never be recycled.
 *
 * Tasks travel over a channel of the shard's own, in batches (link.ts); piscina starts the
 * thread, replaces it after a crash, and hands it its end of the channel.
 *
 * A shard's thread starts when it is first needed: at start for the shards that hold realms,
 * later for the one a new realm is placed on. A thread costs about 25 MB even idle, and a
 * one-realm server needs one, whatever `shards` says (it only spreads realms created later).
 */
export class ShardPool {
  private readonly pools: (Piscina | undefined)[];
  private readonly links: (ShardLink | undefined)[];
  private readonly desks: (FrontDesks | undefined)[];
  /** Each shard's arena for big answer bodies (lib/body-arena.ts), made with its thread. */
  private readonly arenas: (BodyArena | undefined)[];
  /** GET /events budgets for polls answered at a desk (the shards count them too). */
  private readonly deskLimiter: RateLimiter | null;
  private readonly filename = new URL('./worker.js', import.meta.url).href;
  // One message-id counter for all shards (store/message-ids.ts); shared, not copied. A cluster
  // node may hand out no id until etcd has given it a block (src/cluster/ids.ts).
  private readonly idBuffer: SharedArrayBuffer;
  /** The same counter, seen from the main thread. */
  readonly messageIds: MessageIds;

  /** Between a thread's modules and its store (lib/start-gate.ts): opened by `open`. */
  private readonly gate = new StartGate();

  /**
   * Threads may start before the listener has its port (`prestart`); each waits at the gate
   * until `open` gives it the port and the shard count, and resolves its config from this one.
   */
  constructor(private readonly config: Config) {
    this.idBuffer = MessageIds.buffer(config.cluster ? 0 : NO_LIMIT);
    this.messageIds = new MessageIds(this.idBuffer);
    const shards = configuredShards(config);
    this.pools = new Array(shards).fill(undefined);
    this.links = new Array(shards).fill(undefined);
    this.desks = new Array(shards).fill(undefined);
    this.arenas = new Array(shards).fill(undefined);
    const { enabled, perUser } = config.rateLimits;
    this.deskLimiter = enabled && perUser.length > 0 ? new RateLimiter(perUser) : null;
  }

  get size(): number {
    return this.pools.length;
  }

  /**
   * Starts these shards' threads now, before the start's checks have passed: each loads its
   * modules, then waits at the gate without touching its store (serve.ts, for a store that
   * exists: the shards on disk).
   */
  prestart(shards: Iterable<number>): void {
    for (const index of shards) if (index < this.pools.length) this.link(index);
  }

  /** The start's checks have passed and the listener has its port: threads go on to their stores. */
  open(resolved: ResolvedConfig): void {
    for (const list of [this.pools, this.links, this.desks, this.arenas]) while (list.length < resolved.shards) list.push(undefined);
    this.gate.open(resolved.port, resolved.shards);
  }

  /** Set by ready(): shards started from then on run their durable jobs at once. */
  private jobsStarted = false;

  private link(index: number): ShardLink {
    const existing = this.links[index];
    if (existing) return existing;
    // A replacement thread gets the same arena: slots its predecessor filled stay taken until freed.
    const arena = (this.arenas[index] = new BodyArena(BodyArena.allocate()));
    const pool = new Piscina({
      filename: this.filename,
      minThreads: 1,
      maxThreads: 1,
      idleTimeout: Infinity,
      concurrentTasksPerWorker: 100_000,
      maxQueue: Infinity,
      atomics: 'disabled',
      // Piscina's run- and wait-time histograms, which nothing reads: two of Node's HDR
      // histograms of 352 KB each (malloc'd, partly resident) per pool.
      recordTiming: false,
      workerData: { index, config: this.config, gate: this.gate.buffer, messageIds: this.idBuffer, bodyArena: arena.buffer },
    });
    this.pools[index] = pool;
    // Piscina re-emits a worker's uncaught error on the pool, and an 'error' event with no
    // listener ends the process, taking every other shard with it. The failed shard's thread
    // is replaced (minThreads), and reloads its realms from the store.
    pool.on('error', (err) => log.error({ err, shard: index }, 'shard thread failed; a new one takes over from the store'));
    // With its channel, each thread (a replacement too) gets a port for its password hashes,
    // which the process's one hashing thread runs (lib/hasher.ts).
    const link = (this.links[index] = new ShardLink((port: MessagePort) => {
      const hashes = new MessageChannel();
      serveHashes(hashes.port1);
      return pool.run({ kind: 'link', port, hashPort: hashes.port2 }, { transferList: [port, hashes.port2] });
    }));
    const desks = (this.desks[index] = new FrontDesks((task) => link.notify(task, true), this.deskLimiter));
    link.onNote = (note) => desks.note(note as ShardNote);
    if (this.jobsStarted) link.call({ kind: 'startJobs' }).catch(() => undefined);
    return link;
  }

  /**
   * Starts the given shards and resolves once each has loaded its state, and so has raised the
   * shared message-id counter to its high-water mark: no request may be served before that. A
   * shard that holds no realm has no messages, so it may start later.
   */
  async ready(shards: Iterable<number>, beforeJobs?: () => Promise<void>): Promise<void> {
    await Promise.all([...new Set(shards)].map((index) => this.link(index).call({ kind: 'admin', op: 'ping' })));
    // A cluster node: its id block, and which realms it serves (src/cluster/node.ts).
    await beforeJobs?.();
    // Durable jobs send messages, so they too wait until every shard has raised the counter.
    this.jobsStarted = true;
    await Promise.all(this.running().map((link) => link.call({ kind: 'startJobs' })));
  }

  /**
   * A request for the shard. A GET or DELETE /events goes there only without a desk for its
   * queue (a desk's poll is answered by deskPoll); an answer with a desk sets one up, before
   * anything else the shard sent after it is read. A plain poll (`park`) that the shard parks at
   * that desk is parked there: `park.ticket` is then set, and the poll is the desk's to answer.
   */
  request(shard: number, task: RequestTask, park?: ParkAtDesk): Promise<Reply> {
    const link = this.link(shard);
    if (task.op !== 'events.get' && task.op !== 'events.delete') return link.call(task);
    const desks = this.desks[shard]!;
    const queueId = task.params.queue_id;
    if (typeof queueId === 'string') desks.forget(queueId);
    const authorization = task.authorization;
    return link.call<Reply>(task, (reply) => {
      const grant = reply.desk;
      if (!grant) return;
      delete reply.desk;
      if (!authorization) return;
      const ticket = desks.grant(authorization, grant, park && { poll: park.poll, headers: reply.headers });
      if (park) park.ticket = ticket;
    });
  }

  /** The shard's arena, where a reply's `arena` body lies. */
  arena(shard: number): BodyArena | undefined {
    return this.arenas[shard];
  }

  /** A GET /events answered at its queue's desk, without the shard; null: send it to the shard. */
  deskPoll(shard: number, poll: DeskPoll): DeskTicket | null {
    return this.desks[shard]?.poll(poll) ?? null;
  }

  /** Whether a request's credentials are good (front/guard.ts, for an address over its limit). */
  verify(shard: number, task: Omit<VerifyTask, 'kind'>): Promise<boolean> {
    return this.link(shard).call({ kind: 'verify', ...task });
  }

  /** Tells a shard that the client of a request went away (a parked long-poll is dropped). */
  cancel(shard: number, requestId: string): void {
    this.link(shard).notify({ kind: 'cancel', requestId });
  }

  admin<T>(shard: number, task: AdminTask): Promise<T> {
    return this.link(shard).call(task);
  }

  /** The shards whose threads have started (those holding realms, and any used since). */
  started(): number[] {
    return this.pools.flatMap((pool, index) => (pool ? [index] : []));
  }

  private running(): ShardLink[] {
    return this.links.filter((link): link is ShardLink => link !== undefined);
  }

  /** First step of a graceful stop: every shard answers its parked long-polls and parks no more. */
  async drain(): Promise<void> {
    await Promise.all(this.running().map((link) => link.call({ kind: 'drain' })));
  }

  /** Saves the event queues, flushes and closes every shard's LMDB environment, stops the threads. */
  async close(): Promise<void> {
    const links = this.running();
    await Promise.all(links.map((link) => link.call({ kind: 'close' })));
    await Promise.all(this.pools.map((pool) => pool?.destroy()));
    for (const link of links) link.close();
  }
}
