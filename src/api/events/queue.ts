import { randomUUID } from 'node:crypto';
import type { Timer } from '../../lib/timer-wheel.js';
import type { ShardStore, WriteBatch } from '../../store/shard-store.js';

/**
 * One client's event queue. Events are kept, with increasing ids, until the client acknowledges
 * them by polling with a higher last_event_id. At most one poll is parked on a queue: a new poll
 * finishes the previous one (with no events), as the reference does.
 */
export interface QueueOptions {
  realmId: number;
  userId: number;
  /** null: every type. */
  eventTypes: Set<string> | null;
  /** [operator, operand, negated] terms; only matching messages are queued. */
  narrow: { operator: string; operand: unknown; negated: boolean }[];
  allPublicStreams: boolean;
  applyMarkdown: boolean;
  clientGravatar: boolean;
  /** client_capabilities, by name. */
  capabilities: Record<string, boolean>;
  lifespanSecs: number;
}

export interface QueuedEvent {
  id: number;
  type: string;
  [field: string]: unknown;
}

/** An event as shaped for a queue, before it has the queue's id. Shared by the queues it fits. */
export type ShapedEvent = Omit<QueuedEvent, 'id'>;

/** The `queues` row: what a queue is, never what it holds (its events are in the event log). */
export interface SavedQueue {
  id: string;
  /** The queue's short handle in event-log rows. */
  num: number;
  opts: Omit<QueueOptions, 'eventTypes'> & { eventTypes: string[] | null };
  /** No id above this has been handed out (see EventQueue.nextId). */
  ceiling: number;
  /** Acknowledged up to here, as of the last save (lazily kept). */
  acked: number;
  /** Rows saved by earlier versions at a graceful stop. */
  events?: QueuedEvent[];
}

export interface Parked {
  /** The front end's id of the HTTP request, so a closed connection can cancel it. */
  requestId: string;
  resolve(events: QueuedEvent[]): void;
  /** The queue went away under the poll (dropped over its cap): BAD_EVENT_QUEUE_ID. */
  reject(err: Error): void;
  heartbeat: Timer;
}

/**
 * Ids handed out ahead of the stored ceiling. Durable events are stored with their ids, but
 * heartbeats, typing and presence are not; after a crash the queue resumes above the ceiling, so
 * an id the client saw is never reused. Raising it costs one write per this many ids.
 */
const CEILING_STEP = 1024;

export class EventQueue {
  readonly id: string;
  /**
   * The pending events, oldest first, as three parallel arrays: the shaped event, its id in this
   * queue, its event-log row (0: not logged). The shaped event is shared by every queue it was
   * shaped the same for (a channel message's view, an unchanged realm event), so a queued event
   * costs this queue three array slots, about 12 bytes, instead of a copy of its own with the id
   * in it (about 370 bytes measured). `{...event, id}` is built only when a poll answers.
   */
  private readonly shaped: ShapedEvent[] = [];
  private readonly ids: number[] = [];
  private readonly seqs: number[] = [];
  /** The id of the last event queued (or reserved by a commit in flight), or -1. */
  lastEventId = -1;
  /** The id of the newest event dropped by an acknowledgement, or -1. */
  newestPruned = -1;
  /** Ids up to here may be handed out with no write; a new queue's row starts with room. */
  ceiling = CEILING_STEP - 1;
  /** newestPruned as last written to the `queues` row. */
  savedAcked = -1;
  parked: Parked | null = null;
  /** When no poll is parked: the timer that garbage-collects the queue. */
  expiry: Timer | null = null;
  /** When its client last polled (or registered it), in ms: the least recently used goes first. */
  lastUsed = Date.now();

  constructor(
    readonly opts: QueueOptions,
    readonly num: number,
    id: string = randomUUID(),
  ) {
    this.id = id;
  }

  /** How many events wait for the client. */
  get size(): number {
    return this.ids.length;
  }

  /** The id of the newest event queued, or -1. */
  get newestQueued(): number {
    return this.ids.length > 0 ? this.ids[this.ids.length - 1] : -1;
  }

  /** The pending events as a poll returns them. */
  events(): QueuedEvent[] {
    return this.shaped.map((event, i) => ({ ...event, id: this.ids[i] }) as QueuedEvent);
  }

  toSaved(): SavedQueue {
    const { eventTypes, ...rest } = this.opts;
    return { id: this.id, num: this.num, opts: { ...rest, eventTypes: eventTypes ? [...eventTypes] : null }, ceiling: this.ceiling, acked: this.newestPruned };
  }

  /** Writes the queue's row (its ceiling and acknowledgement) in `batch`. */
  save(batch: WriteBatch, store: ShardStore): void {
    this.savedAcked = this.newestPruned;
    batch.put(store.queues, this.id, this.toSaved());
  }

  static fromSaved(saved: SavedQueue): EventQueue {
    const queue = new EventQueue({ ...saved.opts, eventTypes: saved.opts.eventTypes ? new Set(saved.opts.eventTypes) : null }, saved.num ?? 0, saved.id);
    for (const { id, ...event } of saved.events ?? []) queue.push(event, id, 0);
    queue.newestPruned = queue.savedAcked = saved.acked ?? -1;
    queue.lastEventId = queue.ceiling = Math.max(saved.ceiling ?? -1, queue.newestQueued);
    return queue;
  }

  /**
   * Reserves the next id. Past the ceiling, the queue's row is rewritten in the batch that
   * carries the event, so the raised ceiling is durable before the id reaches a client.
   */
  nextId(batch: WriteBatch, store: ShardStore): number {
    const id = ++this.lastEventId;
    if (id > this.ceiling) {
      this.ceiling = id + CEILING_STEP - 1;
      this.save(batch, store);
    }
    return id;
  }

  /** Appends an event whose id was reserved with nextId(); `seq` is its event-log row, or 0. */
  push(event: ShapedEvent, id: number, seq: number): void {
    this.shaped.push(event);
    this.ids.push(id);
    this.seqs.push(seq);
  }

  /**
   * After a failed commit (QueueManager.resync): the stored row is what survives a crash, so
   * the ceiling goes back to it, and is raised and saved at once if ids above it are out.
   */
  resync(storedCeiling: number, batch: WriteBatch, store: ShardStore): void {
    this.ceiling = storedCeiling;
    if (this.lastEventId > this.ceiling) {
      this.ceiling = this.lastEventId + CEILING_STEP;
      this.save(batch, store);
    }
  }

  /** The oldest event-log row this queue still needs, or 0. */
  oldestSeq(): number {
    for (const seq of this.seqs) if (seq > 0) return seq;
    return 0;
  }

  /** Drops the events the client has acknowledged. */
  prune(lastEventId: number): void {
    let n = 0;
    while (n < this.ids.length && this.ids[n] <= lastEventId) n++;
    if (n > 0) {
      this.newestPruned = this.ids[n - 1];
      this.shaped.splice(0, n);
      this.ids.splice(0, n);
      this.seqs.splice(0, n);
    }
  }

  wants(type: string): boolean {
    return this.opts.eventTypes === null || this.opts.eventTypes.has(type);
  }
}
