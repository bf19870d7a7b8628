import { randomUUID } from 'node:crypto';
import type { Timer } from '../../lib/timer-wheel.js';
import type { ShardStore, WriteBatch } from '../../store/shard-store.js';
import type { Grant } from '../../shard/desk-wire.js';

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

/** A poll's answer: the events as a JSON array, and for the long-poll path a desk (desk.ts). */
export interface PollAnswer {
  json: string;
  grant?: Grant;
}

export interface Parked {
  /** The front end's id of the HTTP request, so a closed connection can cancel it. */
  requestId: string;
  resolve(answer: PollAnswer): void;
  /** The poll came through the long-poll path, which takes a desk with its answer. */
  desk: boolean;
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

/**
 * A shaped event's JSON without its closing brace, made once per shaped event and shared by the
 * queues it was shaped the same for: a channel message to 50 subscribers is serialised once or
 * twice (one per view option set), not 50 times. A poll's answer appends each event's id:
 * `${head},"id":7}`, which is what `{...event, id}` serialises to. Made when the commit is
 * planned, so the event is as it was then.
 */
const heads = new WeakMap<object, string>();

// The head asked for last: a commit's deliveries ask for one event's head once per queue twice
// over (the queue, the desk's note), and the WeakMap's lookup showed in the fan-out's profile.
let lastEvent: ShapedEvent | null = null;
let lastHead = '';

export function eventHead(event: ShapedEvent): string {
  if (event === lastEvent) return lastHead;
  let head = heads.get(event);
  if (head === undefined) {
    // An event with a top-level `id` of its own would carry it twice: let the queue's id win, as
    // `{...event, id}` does. (No event type has one today.)
    const json = JSON.stringify(Object.hasOwn(event, 'id') ? { ...event, id: undefined } : event);
    head = json.length > 2 ? `${json.slice(0, -1)},` : '{';
    heads.set(event, head);
  }
  lastEvent = event;
  lastHead = head;
  return head;
}

export class EventQueue {
  readonly id: string;
  /**
   * The pending events, oldest first, as three parallel arrays: the shaped event's JSON head
   * (eventHead), its id in this queue, its event-log row (0: not logged). The head is shared by
   * every queue the event was shaped the same for (a channel message's view, an unchanged realm
   * event), so a queued event costs this queue three array slots, about 12 bytes, and the
   * event's JSON is made once, not once per queue and poll.
   */
  private readonly heads: string[] = [];
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
  /**
   * The number of the front end's desk for this queue (desk.ts), or -1: while it has one,
   * deliveries are pushed there, and its client's polls are answered there. The queue here stays
   * the one that counts (journal, caps, restarts); the desk is a copy of its pending events.
   */
  desk = -1;
  /**
   * The grant of the poll answer that made the desk, until the desk's first task shows the front
   * end has it (desk.ts: a later commit's events go into it as well as into the note).
   */
  grantOnItsWay: Grant | null = null;
  /** A poll parked at the front end's desk: its heartbeat timer here. */
  remoteParked: Timer | null = null;
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

  /** The front end holds a desk for this queue. */
  get remote(): boolean {
    return this.desk >= 0;
  }

  /** Whether a poll is parked on the queue, here or at the front end's desk. */
  get polling(): boolean {
    return this.parked !== null || this.remoteParked !== null;
  }

  /** The pending events' ids and JSON heads, for a desk (desk.ts). */
  pending(): { ids: number[]; heads: string[] } {
    return { ids: [...this.ids], heads: [...this.heads] };
  }

  /** How many events wait for the client. */
  get size(): number {
    return this.ids.length;
  }

  /** The id of the newest event queued, or -1. */
  get newestQueued(): number {
    return this.ids.length > 0 ? this.ids[this.ids.length - 1] : -1;
  }

  /** The pending events as a poll returns them: a JSON array. */
  eventsJson(): string {
    const { heads, ids } = this;
    let json = '[';
    for (let i = 0; i < heads.length; i++) json += `${i > 0 ? ',' : ''}${heads[i]}"id":${ids[i]}}`;
    return `${json}]`;
  }

  /** The pending events as objects (tests and tools; polls use eventsJson). */
  events(): QueuedEvent[] {
    return JSON.parse(this.eventsJson()) as QueuedEvent[];
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
    this.heads.push(eventHead(event));
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
      this.heads.splice(0, n);
      this.ids.splice(0, n);
      this.seqs.splice(0, n);
    }
  }

  wants(type: string): boolean {
    return this.opts.eventTypes === null || this.opts.eventTypes.has(type);
  }
}
