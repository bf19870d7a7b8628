import { ApiError, badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { ShardEvent } from '../../shard/events.js';
import type { Shard } from '../../shard/shard.js';
import { EventQueue, type QueuedEvent, type QueueOptions, type SavedQueue } from './queue.js';
import { shapeEvent } from './shape.js';

/**
 * A shard's event queues, and the fan-out from its event bus to them.
 *
 * Fan-out: a do-action emits each event once with the ids of the users it concerns; for each of
 * those users' queues the event is filtered (event_types, narrow) and shaped for that queue's
 * client (shape.ts), then pushed. A queue with a parked poll hands its events over at once.
 *
 * Parked polls are plain pending promises in the shard's thread, so thousands cost memory only,
 * and never hold up other requests. Each parked poll owns a heartbeat timer on the shard's wheel;
 * a queue with no poll parked owns an expiry timer instead (queue_lifespan_secs after its last
 * poll ended).
 */
export class QueueManager {
  private readonly queues = new Map<string, EventQueue>();
  /** `${realmId}:${userId}` -> that user's queues. */
  private readonly byUser = new Map<string, Set<EventQueue>>();
  /** requestId -> queue with that request parked, for cancellation. */
  private readonly parkedBy = new Map<string, EventQueue>();
  /** Set when the server stops: polls answer at once instead of parking. */
  private draining = false;

  constructor(private readonly shard: Shard) {
    shard.events.subscribe((realmId, event, userIds) => this.deliver(realmId, event, userIds));
  }

  get size(): number {
    return this.queues.size;
  }

  register(opts: QueueOptions): EventQueue {
    return this.add(new EventQueue(opts));
  }

  private add(queue: EventQueue): EventQueue {
    const { opts } = queue;
    this.queues.set(queue.id, queue);
    const key = `${opts.realmId}:${opts.userId}`;
    let set = this.byUser.get(key);
    if (!set) this.byUser.set(key, (set = new Set()));
    set.add(queue);
    this.armExpiry(queue);
    return queue;
  }

  /** The user's own queue, else BAD_EVENT_QUEUE_ID (unknown, expired or another user's). */
  get(queueId: string, realm: RealmState, user: UserRecord): EventQueue {
    const queue = this.queues.get(queueId);
    if (!queue || queue.opts.realmId !== realm.id || queue.opts.userId !== user.id) {
      throw new ApiError(`Bad event queue ID: ${queueId}`, { code: 'BAD_EVENT_QUEUE_ID', data: { queue_id: queueId } });
    }
    return queue;
  }

  delete(queue: EventQueue): void {
    this.finish(queue, []);
    if (queue.expiry) this.shard.wheel.cancel(queue.expiry);
    this.queues.delete(queue.id);
    const key = `${queue.opts.realmId}:${queue.opts.userId}`;
    this.byUser.get(key)?.delete(queue);
    if (this.byUser.get(key)?.size === 0) this.byUser.delete(key);
  }

  /**
   * GET /events: acknowledges up to lastEventId, then answers with what is queued, or parks
   * until an event comes or the heartbeat is due.
   */
  poll(queue: EventQueue, lastEventId: number | undefined, dontBlock: boolean, requestId: string): Promise<QueuedEvent[]> | QueuedEvent[] {
    if (lastEventId !== undefined) {
      if (lastEventId < queue.newestPruned) throw badRequest(`An event newer than ${lastEventId} has already been pruned!`);
      if (lastEventId > queue.lastEventId) throw badRequest(`Event ${lastEventId} was not in this queue`);
      queue.prune(lastEventId);
    }
    // A new poll finishes the one parked before it.
    this.finish(queue, []);
    if (queue.events.length > 0 || dontBlock || this.draining) {
      this.armExpiry(queue);
      return [...queue.events];
    }
    if (queue.expiry) this.shard.wheel.cancel(queue.expiry);
    queue.expiry = null;
    return new Promise((resolve) => {
      const heartbeatAt = Date.now() + this.shard.config.heartbeatSeconds * 1000;
      const heartbeat = this.shard.wheel.schedule(heartbeatAt, () => {
        queue.push({ type: 'heartbeat' });
        this.finish(queue, [...queue.events]);
      });
      queue.parked = { requestId, resolve, heartbeat };
      this.parkedBy.set(requestId, queue);
    });
  }

  /**
   * A graceful stop, first step: answer every parked poll (empty) so that the HTTP server can
   * close, and park no more.
   */
  drain(): void {
    this.draining = true;
    for (const queue of this.queues.values()) this.finish(queue, []);
  }

  /**
   * A graceful stop, last step: save every queue, with its unacknowledged events, in the same
   * LMDB environment. The next start restores them (restore()), so clients carry on with their
   * queue_id and last_event_id after a `restart` event, as the reference's clients expect.
   */
  async save(): Promise<void> {
    const batch = this.shard.batch();
    for (const key of this.shard.store.queues.getKeys({})) batch.del(this.shard.store.queues, key as string);
    for (const queue of this.queues.values()) batch.put(this.shard.store.queues, queue.id, queue.toSaved());
    await batch.commit();
  }

  /**
   * Restores the queues a graceful stop saved, each told of the restart, and forgets the saved
   * copies (a later crash must not bring back stale ones).
   */
  async restore(restartEvent: Omit<QueuedEvent, 'id'>): Promise<number> {
    let count = 0;
    const batch = this.shard.batch();
    for (const { key, value } of this.shard.store.queues.getRange({})) {
      batch.del(this.shard.store.queues, key as string);
      const queue = this.add(EventQueue.fromSaved(value as SavedQueue));
      if (!this.shard.realm(queue.opts.realmId)?.users.get(queue.opts.userId)?.isActive) {
        this.delete(queue);
        continue;
      }
      queue.push(restartEvent);
      count++;
    }
    await batch.commit();
    return count;
  }

  /** The client went away: drop its parked poll, and let the queue start to age. */
  cancel(requestId: string): void {
    const queue = this.parkedBy.get(requestId);
    if (queue) this.finish(queue, []);
  }

  private finish(queue: EventQueue, events: QueuedEvent[]): void {
    const parked = queue.parked;
    if (!parked) return;
    queue.parked = null;
    this.parkedBy.delete(parked.requestId);
    this.shard.wheel.cancel(parked.heartbeat);
    this.armExpiry(queue);
    parked.resolve(events);
  }

  private armExpiry(queue: EventQueue): void {
    if (queue.expiry) this.shard.wheel.cancel(queue.expiry);
    queue.expiry = this.shard.wheel.schedule(Date.now() + queue.opts.lifespanSecs * 1000, () => this.delete(queue));
  }

  private deliver(realmId: number, event: ShardEvent, userIds: Iterable<number>): void {
    const realm = this.shard.realm(realmId);
    if (!realm) return;
    for (const userId of userIds) {
      const queues = this.byUser.get(`${realmId}:${userId}`);
      if (!queues) continue;
      for (const queue of queues) {
        if (!queue.wants(event.type)) continue;
        const shaped = shapeEvent(this.shard, realm, queue, event);
        if (shaped.length === 0) continue;
        for (const copy of shaped) queue.push(copy);
        if (queue.parked) this.finish(queue, [...queue.events]);
      }
    }
  }
}

const managers = new WeakMap<Shard, QueueManager>();

/** The shard's queue manager, created (and attached to its event bus) on first use. */
export function queuesOf(shard: Shard): QueueManager {
  let manager = managers.get(shard);
  if (!manager) managers.set(shard, (manager = new QueueManager(shard)));
  return manager;
}
