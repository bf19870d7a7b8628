import { log } from '../../lib/log.js';
import type { ShardEvent } from '../../shard/events.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { EventQueue, type SavedQueue } from './queue.js';
import { packTargets, unpackTargets } from './log-targets.js';
import { shapeEvent } from './shape.js';


/** Where restored queues go and saved queues come from: the shard's QueueManager. */
export interface QueueRegistry {
  add(queue: EventQueue): unknown;
  all(): Iterable<EventQueue>;
}

/**
 * The event log: what lets queues survive a crash (kill -9), not only a graceful stop.
 *
 *   eventLog  seq -> LogItem[]       one row per transaction that delivered durable events
 *   queues    queueId -> SavedQueue  one row per live queue: options, num, ceiling, acked
 *
 * A do-action's events are written in its own transaction, as one row: each event once,
 * unshaped, with `targets` = [num, firstId, count, ...] for the queues it reached (packed as
 * bytes, log-targets.ts). That is a constant number of writes per action, however many queues
 * receive it; the per-queue copies are rebuilt by shaping again on restore. Ids are stored, not re-derived, because heartbeats,
 * typing and presence also take ids and are not logged: replaying could not number the same way.
 * Those unlogged ids stay below the queue's stored `ceiling` (queue.ts), and a restored queue
 * numbers on from there, so no id a client has seen is given twice.
 *
 * Rows are dropped once every live queue has acknowledged them: every GC_SECONDS the journal
 * finds the oldest row a queue still holds, deletes the rows before it, and saves how far each
 * queue has been acknowledged (an older `acked` only means a restore re-queues a few events the
 * client already has; its next poll acknowledges them again).
 */
export interface LogItem {
  realmId: number;
  event: ShardEvent;
  /** As the row holds them: packed (log-targets.ts), or a list in rows of earlier versions. */
  targets: number[] | Uint8Array;
}

const GC_SECONDS = 10;

export class EventJournal {
  private seq: number;
  /**
   * The newest row whose events have reached their queues. Rows after it belong to
   * transactions still in flight: no queue holds them yet, but GC must keep them.
   */
  delivered: number;

  constructor(
    private readonly shard: Shard,
    private readonly manager: QueueRegistry,
  ) {
    let last = 0;
    for (const key of shard.store.eventLog.getKeys({ reverse: true, limit: 1 })) last = key as number;
    this.seq = this.delivered = last;
    this.scheduleGc();
  }

  /** Writes the durable events of one transaction as one row; returns its seq, or 0. */
  append(batch: WriteBatch, items: LogItem[]): number {
    if (items.length === 0) return 0;
    for (const item of items) if (Array.isArray(item.targets)) item.targets = packTargets(item.targets);
    batch.put(this.shard.store.eventLog, ++this.seq, items);
    return this.seq;
  }

  /**
   * At start: brings back every queue with its unacknowledged durable events, each followed by
   * `restartEvent` (if its event_types let it through), which tells the client that the server
   * restarted. Queues of users no longer active are dropped.
   */
  async restore(restartEvent: ShardEvent): Promise<number> {
    const { store } = this.shard;
    const byNum = new Map<number, EventQueue>();
    for (const { value } of store.queues.getRange({})) {
      const queue = EventQueue.fromSaved(value as SavedQueue);
      if (!this.shard.realm(queue.opts.realmId)?.users.get(queue.opts.userId)?.isActive) {
        await this.shard.batch().del(store.queues, queue.id).commit();
        continue;
      }
      this.manager.add(queue);
      byNum.set(queue.num, queue);
    }
    for (const { key, value } of store.eventLog.getRange({})) {
      for (const item of value as LogItem[]) this.replay(key as number, item, byNum);
    }
    const batch = this.shard.batch();
    for (const queue of byNum.values()) {
      // As the reference's send_restart_events: only to queues that asked for the type.
      if (!queue.wants('restart')) continue;
      queue.push(restartEvent, queue.nextId(batch, store), 0);
    }
    await batch.commit();
    return byNum.size;
  }

  private replay(seq: number, item: LogItem, byNum: Map<number, EventQueue>): void {
    const realm = this.shard.realm(item.realmId);
    if (!realm) return;
    // Shared by the item's queues, as at delivery (manager.plan): one message view per option
    // set, one shaped event per view and flags, instead of one per queue (2,000,000 queued
    // events took a minute to restore without it).
    const memo = new Map<string | number, unknown>();
    const targets = unpackTargets(item.targets);
    for (let i = 0; i < targets.length; i += 3) {
      const num = targets[i];
      const firstId = targets[i + 1];
      const count = targets[i + 2];
      const queue = byNum.get(num);
      // Already acknowledged, or (graceful-stop rows of earlier versions) already queued.
      if (!queue || firstId + count - 1 <= Math.max(queue.newestPruned, queue.newestQueued)) continue;
      const copies = shapeEvent(this.shard, realm, queue, item.event, memo).slice(0, count);
      copies.forEach((copy, k) => {
        if (firstId + k > queue.newestPruned) queue.push(copy, firstId + k, seq);
      });
    }
  }

  /** Saves every queue's acknowledgement; a graceful stop calls it last. */
  async saveAcks(): Promise<void> {
    const batch = this.shard.batch();
    for (const queue of this.manager.all()) if (queue.newestPruned !== queue.savedAcked) queue.save(batch, this.shard.store);
    await batch.commit();
  }

  private scheduleGc(): void {
    this.shard.wheel.schedule(Date.now() + GC_SECONDS * 1000, () => {
      this.gc().catch((err) => log.error({ err, shard: this.shard.index }, 'event log GC failed'));
      this.scheduleGc();
    });
  }

  /** Deletes the rows no live queue needs, and saves acknowledgements. */
  async gc(): Promise<void> {
    const { store } = this.shard;
    let keep = this.delivered + 1;
    for (const queue of this.manager.all()) {
      const oldest = queue.oldestSeq();
      if (oldest > 0 && oldest < keep) keep = oldest;
    }
    const batch = this.shard.batch();
    for (const key of store.eventLog.getKeys({ end: keep })) batch.del(store.eventLog, key as number);
    for (const queue of this.manager.all()) if (queue.newestPruned !== queue.savedAcked) queue.save(batch, store);
    await batch.commit();
  }
}
