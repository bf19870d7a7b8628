import { randomUUID } from 'node:crypto';
import type { Timer } from '../../lib/timer-wheel.js';

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

export interface SavedQueue {
  id: string;
  opts: Omit<QueueOptions, 'eventTypes'> & { eventTypes: string[] | null };
  events: QueuedEvent[];
  lastEventId: number;
  newestPruned: number;
}

export interface Parked {
  /** The front end's id of the HTTP request, so a closed connection can cancel it. */
  requestId: string;
  resolve(events: QueuedEvent[]): void;
  heartbeat: Timer;
}

export class EventQueue {
  readonly id: string;
  readonly events: QueuedEvent[] = [];
  /** The id of the last event queued, or -1. */
  lastEventId = -1;
  /** The id of the newest event dropped by an acknowledgement, or -1. */
  newestPruned = -1;
  parked: Parked | null = null;
  /** When no poll is parked: the timer that garbage-collects the queue. */
  expiry: Timer | null = null;

  constructor(
    readonly opts: QueueOptions,
    id: string = randomUUID(),
  ) {
    this.id = id;
  }

  /** What a graceful stop saves, to resume the queue on the next start. */
  toSaved(): SavedQueue {
    const { eventTypes, ...rest } = this.opts;
    return { id: this.id, opts: { ...rest, eventTypes: eventTypes ? [...eventTypes] : null }, events: this.events, lastEventId: this.lastEventId, newestPruned: this.newestPruned };
  }

  static fromSaved(saved: SavedQueue): EventQueue {
    const queue = new EventQueue({ ...saved.opts, eventTypes: saved.opts.eventTypes ? new Set(saved.opts.eventTypes) : null }, saved.id);
    queue.events.push(...saved.events);
    queue.lastEventId = saved.lastEventId;
    queue.newestPruned = saved.newestPruned;
    return queue;
  }

  push(event: Omit<QueuedEvent, 'id'>): QueuedEvent {
    const queued = { ...event, id: ++this.lastEventId } as QueuedEvent;
    this.events.push(queued);
    return queued;
  }

  /** Drops the events the client has acknowledged. */
  prune(lastEventId: number): void {
    let n = 0;
    while (n < this.events.length && this.events[n].id <= lastEventId) n++;
    if (n > 0) {
      this.newestPruned = this.events[n - 1].id;
      this.events.splice(0, n);
    }
  }

  wants(type: string): boolean {
    return this.opts.eventTypes === null || this.opts.eventTypes.has(type);
  }
}
