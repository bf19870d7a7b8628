import { log } from '../lib/log.js';
import type { Emitted, EventStage, ShardEvent, WriteBatch } from '../store/shard-store.js';

export type { Emitted, ShardEvent } from '../store/shard-store.js';

export type EventListener = (realmId: number, event: ShardEvent, userIds: Iterable<number>) => void;

/**
 * Sees a transaction's events as it is about to start, and may add rows to it: work that
 * follows from what the events tell clients, whichever action made them (a mobile notification's
 * removal when messages are read or deleted, api/notify/). Runs before the sink plans delivery.
 */
export type EventObserver = (events: readonly Emitted[], batch: WriteBatch) => void;

/**
 * Decides where events go. `plan` runs synchronously when the transaction is about to start, and
 * may add rows to it; what it returns runs once the transaction has committed.
 */
export interface EventSink {
  plan(events: Emitted[], batch: WriteBatch): (() => void) | null;
}

interface Ticket {
  deliver: () => void;
  state: 'pending' | 'ok' | 'failed';
}

/**
 * The shard's event bus. Do-actions record each event on their WriteBatch with the ids of the
 * users it concerns (`batch.emit`); typing and presence, which change nothing durable, call
 * `emit` here directly.
 *
 * Delivery is a pipeline in commit order:
 *
 *   batch.commit()  ── plan (sync) ──> stage ─────────> [ LMDB txn ] ──> settle(ok)
 *                        │                  │                                │
 *                        │ the sink assigns │ a ticket in the FIFO            │ deliver every
 *                        │ per-queue event  │   [t1 done][t2 pending][t3 done]│ settled ticket
 *                        │ ids and writes   │    ^ head                       │ from the head,
 *                        │ its log row into │                                 │ so t3 waits
 *                        │ the same batch   │                                 │ for t2
 *
 * The sink (the event-queue layer) assigns ids when a commit starts, so ids follow commit
 * order; delivery must follow the same order, or a client acknowledging a later id would prune
 * an earlier event not yet delivered. Hence the FIFO: a transaction that commits early waits
 * for those begun before it, and an ephemeral event waits behind the commits in flight (a
 * millisecond at most) instead of overtaking them. A failed commit's ticket delivers nothing.
 */
export class EventBus implements EventStage {
  private listeners: EventListener[] = [];
  private readonly fifo: Ticket[] = [];
  /** The event-queue layer, once it exists. */
  sink: EventSink | null = null;
  /** See EventObserver; an observer that throws is logged and skipped. */
  readonly observers: EventObserver[] = [];

  /** Set by the shard: runs ephemeral events through a batch of their own (see emit). */
  ephemeral: (events: Emitted[]) => void = () => {};

  /** Called with every event as it is delivered (tests listen here). */
  subscribe(listener: EventListener): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /**
   * An event with no durable change behind it (typing, presence). It still goes through a batch:
   * its ids may raise a queue's stored ceiling, which must be written before they are seen.
   */
  emit(realmId: number, event: ShardEvent, userIds: Iterable<number>): void {
    this.ephemeral([{ realmId, event, userIds: [...userIds], durable: false }]);
  }

  /** An ephemeral event for one queue (a heartbeat). */
  emitTo(realmId: number, queueId: string, event: ShardEvent): void {
    this.ephemeral([{ realmId, event, userIds: [], durable: false, queueId }]);
  }

  /**
   * A batch's events as its transaction is about to start: the sink plans their delivery (adding
   * its rows to the batch) and they take a place in the delivery order, settled when the
   * transaction has ended.
   */
  stage(events: Emitted[], batch: WriteBatch): { settle(ok: boolean): void } {
    for (const observe of this.observers) {
      try {
        observe(events, batch);
      } catch (err) {
        log.error({ err }, 'event observer failed');
      }
    }
    const deliver = this.sink?.plan(events, batch) ?? null;
    const ticket: Ticket = {
      state: 'pending',
      deliver: () => {
        deliver?.();
        for (const { realmId, event, userIds } of events) for (const listener of this.listeners) listener(realmId, event, userIds);
      },
    };
    this.fifo.push(ticket);
    return { settle: (ok) => this.settle(ticket, ok) };
  }

  private settle(ticket: Ticket, ok: boolean): void {
    ticket.state = ok ? 'ok' : 'failed';
    while (this.fifo.length > 0 && this.fifo[0].state !== 'pending') {
      const head = this.fifo.shift()!;
      if (head.state !== 'ok') continue;
      // One bad delivery must not strand the tickets behind it.
      try {
        head.deliver();
      } catch (err) {
        log.error({ err }, 'event delivery failed');
      }
    }
  }
}
