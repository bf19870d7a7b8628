import type { ApiError } from '../../lib/errors.js';
import type { Timer } from '../../lib/timer-wheel.js';
import { RealmState } from '../../model/realm-state.js';
import { DESK_IDLE, DESK_PARKED, eventsBody, type DeskTask, type Grant } from '../../shard/desk-wire.js';
import type { Shard } from '../../shard/shard.js';
import { userLimitersOf } from '../../lib/rate-limit.js';
import { eventHead, type EventQueue, type ShapedEvent } from './queue.js';

/**
 * The shard's side of the long-poll desks.
 *
 * A poll costs a round trip to the shard: the front end posts it, the shard authenticates it,
 * checks its parameters, acknowledges, answers or parks it, and posts the answer back. A client
 * that keeps up polls once per event, so a message to a 50-subscriber channel meant 50 of those,
 * each waiting behind whatever the shard was doing (the sends). So once a poll has reached the
 * shard through the long-poll path, its answer carries a *desk*: the queue's unacknowledged
 * events and who may read them. The front end (host/desk.ts) then answers the queue's next polls
 * itself, as long as they carry the same credentials and plain parameters:
 *
 *     front end                                     shard
 *     poll ── not at a desk ─────────────────────>  poll(): answer + Grant (a desk number)
 *     desk <──────────────────────────────────────  ...
 *     poll ── at the desk: answered or parked here
 *          ── desks [queue, state, ack, newest] ─>  prune, expiry / heartbeat, rate count
 *     desk <── events {heads, [desk, id, head]} ──  a commit's deliveries to remote queues
 *     desk <── drop / auth / drain / reset ───────  queue gone; credentials changed; stop
 *
 * The queue here stays the one that counts: it keeps the events until they are acknowledged
 * (journal, caps, restarts), and a poll that reaches the shard takes the queue back (`local`).
 * The link is FIFO both ways, so every note is seen in order with the answers around it: a
 * DELETE /events or a new API key is answered only after its note, and the desk is gone by the
 * time the client can act on the answer.
 */
export interface QueueHooks {
  queue(id: string): EventQueue | undefined;
  armExpiry(queue: EventQueue): void;
  cancelExpiry(queue: EventQueue): void;
  heartbeat(queue: EventQueue): Timer;
}

/** The pushes of one commit: each head sent once, whatever the number of queues. */
export interface Push {
  add(queue: EventQueue, event: ShapedEvent, id: number): void;
  send(): void;
}

export class ShardDesks {
  /** Realms whose credentials changed this turn, told together (see authChanged). */
  private changedRealms = new Set<number>();
  /** Desk numbers given back (Grant.desk), for the next grants; and how many were ever made. */
  private readonly freeDesks: number[] = [];
  private desksMade = 0;
  /** The auth and reset notes sent so far (Grant.revoked). */
  private revoked = 0;

  constructor(
    private readonly shard: Shard,
    private readonly hooks: QueueHooks,
  ) {
    RealmState.onUsersChanged = (realmId) => this.authChanged(realmId);
  }

  /**
   * The desk for a queue whose poll is being answered, or parked at the desk (`parked`: the
   * queue has nothing for it): from now on its deliveries go there.
   *
   * The answer that carries the grant reaches the link some microtasks later (the handler's
   * promise chain), and commits that lmdb settled together run their deliveries in between: a
   * note with events for this desk can then be posted before the answer, and the front end,
   * which has no such desk yet, drops them, while the grant was taken before they were queued.
   * So until the desk's first task comes back, a delivery also adds its event to the grant
   * object, which the link clones only when it posts the answer; the front end skips an id that
   * its desk already has, whichever of the two brought it first. A note that ends desks can pass
   * the grant the same way: `drop` and a poll that takes the queue back mark the grant itself
   * (`ended`, release), `auth` and `reset` are counted (`revoked`).
   */
  grant(queue: EventQueue, parked = false): Grant {
    if (queue.desk < 0) queue.desk = this.freeDesks.pop() ?? this.desksMade++;
    const { ids, heads } = queue.pending();
    const grant: Grant = { queueId: queue.id, desk: queue.desk, realmId: queue.opts.realmId, userId: queue.opts.userId, ids, heads, newestPruned: queue.newestPruned, revoked: this.revoked };
    if (parked) {
      // The shard keeps the poll's heartbeat, as for a poll parked at a desk (run).
      grant.parked = true;
      this.hooks.cancelExpiry(queue);
      queue.remoteParked = this.hooks.heartbeat(queue);
    }
    queue.grantOnItsWay = grant;
    return grant;
  }

  /** A poll reached the shard: the front end dropped its desk first; the queue is local again. */
  local(queue: EventQueue): void {
    this.release(queue);
    this.unpark(queue);
  }

  /**
   * The queue's desk number is free again. It is given out again only after whatever ended the
   * desk at the front end (the poll it sent here, the drop or reset note sent before the next
   * grant), so notes carrying it before that are for a desk the front end no longer has.
   */
  private release(queue: EventQueue, ended?: { status: number; body: string }): void {
    // A grant not yet posted would make a desk the shard no longer feeds: it is told so. (Once
    // posted, the link carries whatever ended the desk after it.)
    if (queue.grantOnItsWay) queue.grantOnItsWay.ended = ended ?? { status: 200, body: eventsBody(queue.id, [], []) };
    queue.grantOnItsWay = null;
    if (queue.desk < 0) return;
    this.freeDesks.push(queue.desk);
    queue.desk = -1;
  }

  private unpark(queue: EventQueue): void {
    if (!queue.remoteParked) return;
    this.shard.wheel.cancel(queue.remoteParked);
    queue.remoteParked = null;
  }

  /** The front end's desks' polls (desk-wire.ts DeskTask), in the order they were answered or parked. */
  run(task: DeskTask): void {
    const { list } = task;
    for (let i = 0; i + 3 < list.length; i += 4) this.polled(list[i] as string, list[i + 1] as number, list[i + 2] as number | null, list[i + 3] as number);
  }

  private polled(queueId: string, state: number, lastEventId: number | null, newest: number): void {
    const queue = this.hooks.queue(queueId);
    // A desk the shard has taken back (or a queue gone) since the front end sent this.
    if (!queue || !queue.remote) return;
    // The front end has the desk: what it is sent from now on comes after the grant.
    queue.grantOnItsWay = null;
    this.unpark(queue);
    queue.lastUsed = Date.now();
    if (state === DESK_IDLE) return this.hooks.armExpiry(queue);
    // The desk checked it against the same events; a mismatch would be a bug, not a client's.
    if (lastEventId !== null && lastEventId >= queue.newestPruned && lastEventId <= queue.lastEventId) queue.prune(lastEventId);
    // Counted here too, so that a poll that reaches the shard later meets the same budget.
    userLimitersOf(this.shard)?.events.take(`${queue.opts.realmId}:${queue.opts.userId}`);
    // A poll parked while events it had not seen were on their way is answered with them as they
    // reach the desk (which then tells nothing more): for the shard it is over already.
    if (state === DESK_PARKED && queue.newestQueued <= newest) {
      this.hooks.cancelExpiry(queue);
      queue.remoteParked = this.hooks.heartbeat(queue);
    } else this.hooks.armExpiry(queue);
  }

  /** Collects one commit's deliveries to remote queues into one note: [desk, id, head, ...]. */
  pushFor(): Push {
    const heads: string[] = [];
    const index = new Map<string, number>();
    const list: number[] = [];
    return {
      add: (queue, event, id) => {
        const head = eventHead(event);
        let i = index.get(head);
        if (i === undefined) index.set(head, (i = heads.push(head) - 1));
        list.push(queue.desk, id, i);
        const grant = queue.grantOnItsWay;
        if (grant) {
          grant.ids.push(id);
          grant.heads.push(head);
        }
        // The desk answers its parked poll with these: the heartbeat is no longer due, and the
        // queue starts to age until the next poll.
        if (queue.remoteParked) {
          this.unpark(queue);
          this.hooks.armExpiry(queue);
          queue.lastUsed = Date.now();
        }
      },
      send: () => {
        if (list.length > 0) this.shard.toFront({ kind: 'events', heads, list });
      },
    };
  }

  /** The queue is gone: its desk goes, and a poll parked there gets the error (or no events). */
  dropped(queue: EventQueue, err?: ApiError): void {
    this.unpark(queue);
    const reply = err ? { status: err.status, body: JSON.stringify(err.body()) } : { status: 200, body: eventsBody(queue.id, [], []) };
    this.release(queue, reply);
    this.shard.toFront({ kind: 'drop', queueId: queue.id, ...reply });
  }

  /**
   * A user record changed (credentials, activity) or the realm was deactivated: the desks of
   * that realm go, and their next polls reach the shard, which checks them afresh. Told once per
   * turn, before any answer of the action that made the change (it awaits its commit).
   */
  private authChanged(realmId: number): void {
    if (this.changedRealms.size === 0) {
      queueMicrotask(() => {
        for (const id of this.changedRealms) this.shard.toFront({ kind: 'auth', realmId: id, revoked: ++this.revoked });
        this.changedRealms.clear();
      });
    }
    this.changedRealms.add(realmId);
  }

  /** The server stops: desks answer at once from now on. */
  drain(): void {
    this.shard.toFront({ kind: 'drain' });
  }

  /** After a reload from the store: every queue is local again, every desk goes. */
  reset(): void {
    this.shard.toFront({ kind: 'reset', revoked: ++this.revoked });
  }
}
