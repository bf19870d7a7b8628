import { ApiError, badRequest } from '../../lib/errors.js';
import { log } from '../../lib/log.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Emitted, EventSink } from '../../shard/events.js';
import type { Shard } from '../../shard/shard.js';
import type { Touched, WriteBatch } from '../../store/shard-store.js';
import type { Timer } from '../../lib/timer-wheel.js';
import { EventJournal } from './journal.js';
import { EventQueue, type PollAnswer, type QueueOptions, type SavedQueue, type ShapedEvent } from './queue.js';
import { shapeEvent } from './shape.js';
import { ShardDesks } from './desk.js';
import type { DeskMode } from '../../shard/desk-wire.js';

/** A poll's answer with no events. */
const NONE = '[]';

/**
 * Called when a queue goes for good (expiry after its client stopped polling, DELETE /events),
 * with whether it was its user's last: the reference's gc hooks, where its missedmessage_hook
 * notifies a user who vanished without saying so (api/notify/gc.ts).
 */
export const queueGcHooks: ((shard: Shard, queue: EventQueue, lastForUser: boolean) => void)[] = [];

/**
 * A shard's event queues, and the fan-out from its event bus to them.
 *
 * Fan-out happens when a do-action's transaction starts (EventSink.plan, called by
 * WriteBatch.commit): each event carries the ids of the users it concerns; for each of those
 * users' queues it is filtered (event_types, narrow), shaped for that queue's client (shape.ts)
 * and given the queue's next id. The event and the ids it got go into the same transaction as
 * the change (journal.ts), so a crash loses neither. Once the transaction has committed, and
 * every one begun before it too (shard/events.ts keeps that order), the shaped copies are
 * appended to their queues and parked polls are answered.
 *
 * Parked polls are plain pending promises in the shard's thread, so thousands cost memory only,
 * and never hold up other requests. Each parked poll owns a heartbeat timer on the shard's wheel;
 * a queue with no poll parked owns an expiry timer instead (queue_lifespan_secs after its last
 * poll ended). Once a queue's client polls through the front end's long-poll path, the front end
 * keeps a desk for it and answers its polls itself (desk.ts): deliveries are then pushed there.
 *
 * Queues are bounded, so that no client can make the server hold unbounded memory and event-log
 * rows: a user has at most `eventQueues.maxPerUser` queues (registering one more drops their
 * least recently used), and a queue holds at most `eventQueues.maxPendingEvents` events its
 * client has not acknowledged (one more drops the queue). A dropped queue's client gets
 * BAD_EVENT_QUEUE_ID on its next poll and registers again, as real clients do when a queue has
 * expired.
 */
export class QueueManager implements EventSink {
  private readonly queues = new Map<string, EventQueue>();
  /**
   * realmId -> userId -> that user's queues. Numbers, not a `${realmId}:${userId}` string: the
   * fan-out looks up every recipient of every event, and a string built per lookup was hashed anew.
   */
  private readonly byUser = new Map<number, Map<number, Set<EventQueue>>>();
  /** requestId -> queue with that request parked, for cancellation. */
  private readonly parkedBy = new Map<string, EventQueue>();
  /** Set when the server stops: polls answer at once instead of parking. */
  private draining = false;
  readonly journal: EventJournal;
  /** The front end's desks, as this side sees them. */
  readonly desks: ShardDesks;

  constructor(private readonly shard: Shard) {
    this.journal = new EventJournal(shard, this);
    this.desks = new ShardDesks(shard, {
      queue: (id) => this.queues.get(id),
      armExpiry: (queue) => this.armExpiry(queue),
      cancelExpiry: (queue) => this.cancelExpiry(queue),
      heartbeat: (queue) => this.scheduleHeartbeat(queue),
    });
    shard.events.sink = this;
    shard.repaired.push((touched) => this.resync(touched));
  }

  private get limits() {
    return this.shard.config.eventQueues;
  }

  /** Long-polls waiting for events, here or at the front end's desks (for /metrics). */
  get parkedCount(): number {
    let n = 0;
    for (const queue of this.queues.values()) if (queue.polling) n++;
    return n;
  }

  get size(): number {
    return this.queues.size;
  }

  all(): Iterable<EventQueue> {
    return this.queues.values();
  }

  /**
   * Creates a queue at once, so that the caller's snapshot, taken in the same synchronous step,
   * and the queue agree; `saved` resolves when its row is durable.
   */
  register(opts: QueueOptions): { queue: EventQueue; saved: Promise<void> } {
    const batch = this.shard.batch();
    // Over the user's cap, their least recently used queues go (a parked poll counts as in use).
    const own = [...this.userQueues(opts.realmId, opts.userId)];
    if (own.length >= this.limits.maxPerUser) {
      own.sort((a, b) => Number(a.polling) - Number(b.polling) || a.lastUsed - b.lastUsed);
      for (const old of own.slice(0, own.length - this.limits.maxPerUser + 1)) this.drop(old, batch, 'over the per-user queue cap');
    }
    const queue = this.add(new EventQueue(opts, this.shard.allocate(batch, 'queue')));
    queue.save(batch, this.shard.store);
    const saved = batch.commit();
    // A queue whose row was not written does not exist for a restart: forget it now (its
    // client gets the storage error; resync would also find it).
    saved.catch(() => this.forget(queue));
    return { queue, saved };
  }

  add(queue: EventQueue): EventQueue {
    const { opts } = queue;
    this.queues.set(queue.id, queue);
    let users = this.byUser.get(opts.realmId);
    if (!users) this.byUser.set(opts.realmId, (users = new Map()));
    let set = users.get(opts.userId);
    if (!set) users.set(opts.userId, (set = new Set()));
    set.add(queue);
    this.armExpiry(queue);
    return queue;
  }

  /** The user's own queue, else BAD_EVENT_QUEUE_ID (unknown, expired or another user's). */
  get(queueId: string, realm: RealmState, user: UserRecord): EventQueue {
    const queue = this.queues.get(queueId);
    if (!queue || queue.opts.realmId !== realm.id || queue.opts.userId !== user.id) throw badQueue(queueId);
    return queue;
  }

  /** DELETE /events, expiry, a deactivated user: the queue and its row go. */
  delete(queue: EventQueue): Promise<void> {
    const known = this.queues.get(queue.id) === queue;
    this.forget(queue);
    const done = this.shard.batch().del(this.shard.store.queues, queue.id).commit();
    if (known) {
      const last = !this.byUser.get(queue.opts.realmId)?.has(queue.opts.userId);
      for (const hook of queueGcHooks) {
        try {
          hook(this.shard, queue, last);
        } catch (err) {
          log.error({ err, queue: queue.id }, 'queue gc hook failed');
        }
      }
    }
    return done;
  }

  /** A user's live queues. */
  userQueues(realmId: number, userId: number): Iterable<EventQueue> {
    return this.byUser.get(realmId)?.get(userId) ?? [];
  }

  /** Takes a queue out of memory (its row, if any, is the caller's business). */
  private forget(queue: EventQueue, err?: ApiError): void {
    if (this.queues.get(queue.id) !== queue) return;
    // Out of the map first: a poll answered below gets no desk for it.
    this.queues.delete(queue.id);
    if (queue.remote) this.desks.dropped(queue, err);
    if (err && queue.parked) {
      const parked = queue.parked;
      queue.parked = null;
      this.parkedBy.delete(parked.requestId);
      this.shard.wheel.cancel(parked.heartbeat);
      parked.reject(err);
    } else this.finish(queue, NONE);
    this.cancelExpiry(queue);
    const users = this.byUser.get(queue.opts.realmId);
    const set = users?.get(queue.opts.userId);
    set?.delete(queue);
    if (set?.size === 0) users!.delete(queue.opts.userId);
    if (users?.size === 0) this.byUser.delete(queue.opts.realmId);
  }

  /** Drops a queue over one of its caps, its row deleted in `batch`; its client's next poll gets BAD_EVENT_QUEUE_ID. */
  private drop(queue: EventQueue, batch: WriteBatch, why: string): void {
    log.info({ queue: queue.id, realm: queue.opts.realmId, user: queue.opts.userId, why }, 'event queue dropped');
    this.forget(queue, badQueue(queue.id));
    batch.del(this.shard.store.queues, queue.id);
  }

  /**
   * Ends every queue of a realm this shard stops serving (a cluster moved it): a parked poll is
   * answered BAD_EVENT_QUEUE_ID at once, as is every later poll, so its client registers again
   * and reaches the realm's new node. The rows go in one transaction.
   */
  async endRealm(realmId: number): Promise<number> {
    const batch = this.shard.batch();
    const ended = [...this.queues.values()].filter((queue) => queue.opts.realmId === realmId);
    for (const queue of ended) this.drop(queue, batch, 'the organization moved to another node');
    // Rows of queues that were never restored (their user was gone) belong to the realm too.
    for (const { key, value } of this.shard.store.queues.getRange({})) if ((value as SavedQueue).opts?.realmId === realmId) batch.del(this.shard.store.queues, key as string);
    await batch.commit();
    return ended.length;
  }

  /**
   * After a failed commit the shard repaired its state from the store (Shard.repair): of the
   * queues that commit would have written, one whose row was never written goes, and the others
   * take back their stored ceiling.
   */
  private resync(touched: Touched): void {
    // Every desk goes (a repaired user record may have changed credentials): a flag per queue.
    // A poll parked at one ends with it, and its queue starts to age.
    for (const queue of this.queues.values()) {
      const parked = queue.remoteParked !== null;
      this.desks.local(queue);
      if (parked) this.armExpiry(queue);
    }
    this.desks.reset();
    const { queues } = this.shard.store;
    const batch = this.shard.batch();
    for (const [db, keys] of touched) {
      if (db !== queues) continue;
      for (const id of keys) {
        const queue = this.queues.get(id as string);
        if (!queue) continue;
        const row = queues.get(id) as SavedQueue | undefined;
        if (!row) this.forget(queue, badQueue(queue.id));
        else queue.resync(row.ceiling, batch, this.shard.store);
      }
    }
    batch.commit().catch(() => undefined);
  }

  /**
   * GET /events: acknowledges up to lastEventId, then answers with what is queued, or parks
   * until an event comes or the heartbeat is due. Through the long-poll path (`desk`), the answer
   * carries a desk for the queue; a plain poll ('park') that would park parks at that desk
   * instead, so the shard holds no request for it (desk.ts grant).
   */
  poll(queue: EventQueue, lastEventId: number | undefined, dontBlock: boolean, requestId: string, desk?: DeskMode): Promise<PollAnswer> | PollAnswer {
    // Through here, the front end holds no desk for the queue (it dropped it before asking).
    this.desks.local(queue);
    if (lastEventId !== undefined) {
      if (lastEventId < queue.newestPruned) throw badRequest(`An event newer than ${lastEventId} has already been pruned!`);
      if (lastEventId > queue.lastEventId) throw badRequest(`Event ${lastEventId} was not in this queue`);
      queue.prune(lastEventId);
    }
    // A new poll finishes the one parked before it; this one takes the queue (no desk for that).
    this.finish(queue, NONE, false);
    queue.lastUsed = Date.now();
    if (queue.size > 0 || dontBlock || this.draining) {
      this.armExpiry(queue);
      return this.answer(queue, queue.eventsJson(), desk !== undefined);
    }
    this.cancelExpiry(queue);
    if (desk === 'park' && this.queues.get(queue.id) === queue) return { json: NONE, grant: this.desks.grant(queue, true) };
    return new Promise((resolve, reject) => {
      queue.parked = { requestId, resolve, reject, heartbeat: this.scheduleHeartbeat(queue), desk: desk !== undefined };
      this.parkedBy.set(requestId, queue);
    });
  }

  /** A poll's answer; for the long-poll path, with a desk for the queue (desk.ts). */
  private answer(queue: EventQueue, json: string, desk: boolean): PollAnswer {
    return desk && !this.draining && this.queues.get(queue.id) === queue ? { json, grant: this.desks.grant(queue) } : { json };
  }

  /** The heartbeat takes an id like any event, so it goes through the bus in commit order. */
  private scheduleHeartbeat(queue: EventQueue): Timer {
    return this.shard.wheel.schedule(Date.now() + this.shard.config.heartbeatSeconds * 1000, () => this.shard.events.emitTo(queue.opts.realmId, queue.id, { type: 'heartbeat' }));
  }

  /**
   * A graceful stop, first step: answer every parked poll (empty) so that the HTTP server can
   * close, and park no more.
   */
  drain(): void {
    this.draining = true;
    this.desks.drain();
    for (const queue of this.queues.values()) this.finish(queue, NONE);
  }

  /** The client went away: drop its parked poll, and let the queue start to age. */
  cancel(requestId: string): void {
    const queue = this.parkedBy.get(requestId);
    if (queue) this.finish(queue, NONE);
  }

  private finish(queue: EventQueue, events: string, grant = true): void {
    const parked = queue.parked;
    if (!parked) return;
    queue.parked = null;
    this.parkedBy.delete(parked.requestId);
    this.shard.wheel.cancel(parked.heartbeat);
    this.armExpiry(queue);
    queue.lastUsed = Date.now();
    parked.resolve(this.answer(queue, events, grant && parked.desk));
  }

  private armExpiry(queue: EventQueue): void {
    if (queue.expiry) this.shard.wheel.cancel(queue.expiry);
    queue.expiry = this.shard.wheel.schedule(Date.now() + queue.opts.lifespanSecs * 1000, () => void this.delete(queue));
  }

  private cancelExpiry(queue: EventQueue): void {
    if (queue.expiry) this.shard.wheel.cancel(queue.expiry);
    queue.expiry = null;
  }

  /**
   * The queues an event is for: its users' queues, or the one queue it names. An array, not a
   * generator: a channel message's 50 recipients made 50 resumptions of one per send.
   */
  private targets(e: Emitted): EventQueue[] {
    const out: EventQueue[] = [];
    if (e.queueId !== undefined) {
      const queue = this.queues.get(e.queueId);
      if (queue) out.push(queue);
      return out;
    }
    const users = this.byUser.get(e.realmId);
    if (!users) return out;
    for (const userId of e.userIds) {
      const queues = users.get(userId);
      if (queues) for (const queue of queues) out.push(queue);
    }
    return out;
  }

  /** EventSink: shapes and numbers each event for its queues; delivers once committed. */
  plan(events: Emitted[], batch: WriteBatch): (() => void) | null {
    const { store } = this.shard;
    const deliveries: { queue: EventQueue; event: ShapedEvent; id: number }[] = [];
    const logged: { realmId: number; event: Emitted['event']; targets: number[] }[] = [];
    for (const e of events) {
      const realm = this.shard.realm(e.realmId);
      if (!realm) continue;
      // [num, first id, count] per queue: what a restart needs to rebuild the copies.
      const targets: number[] = [];
      const memo = new Map<string | number, unknown>();
      for (const queue of this.targets(e)) {
        // A heartbeat (the one event aimed at a queue) goes whatever event_types asked for.
        if (e.queueId === undefined && !queue.wants(e.event.type)) continue;
        const shaped = shapeEvent(this.shard, realm, queue, e.event, memo);
        if (shaped.length === 0) continue;
        targets.push(queue.num, queue.lastEventId + 1, shaped.length);
        for (const copy of shaped) deliveries.push({ queue, event: copy, id: queue.nextId(batch, store) });
      }
      if (e.durable && targets.length > 0) logged.push({ realmId: e.realmId, event: e.event, targets });
    }
    const seq = this.journal.append(batch, logged);
    if (deliveries.length === 0) return null;
    return () => {
      if (seq > 0) this.journal.delivered = seq;
      const woken = new Set<EventQueue>();
      const over = new Set<EventQueue>();
      // What goes to the front end's desks: one note for the whole commit (desk.ts).
      const push = this.desks.pushFor();
      for (const { queue, event, id } of deliveries) {
        if (this.queues.get(queue.id) !== queue) continue;
        queue.push(event, id, seq);
        if (queue.size > this.limits.maxPendingEvents) over.add(queue);
        else if (queue.remote) push.add(queue, event, id);
        else if (queue.parked) woken.add(queue);
      }
      push.send();
      for (const queue of woken) this.finish(queue, queue.eventsJson());
      if (over.size > 0) {
        const drops = this.shard.batch();
        for (const queue of over) this.drop(queue, drops, 'over the pending-event cap');
        drops.commit().catch(() => undefined);
      }
    };
  }
}

const badQueue = (queueId: string) => new ApiError(`Bad event queue ID: ${queueId}`, { code: 'BAD_EVENT_QUEUE_ID', data: { queue_id: queueId } });

const managers = new WeakMap<Shard, QueueManager>();

/** The shard's queue manager, created (and attached to its event bus) on first use. */
export function queuesOf(shard: Shard): QueueManager {
  let manager = managers.get(shard);
  if (!manager) managers.set(shard, (manager = new QueueManager(shard)));
  return manager;
}
