import { rateLimited } from '../lib/errors.js';
import type { RateLimiter } from '../lib/rate-limit.js';
import type { Reply } from './dispatch.js';
import { DESK_ANSWERED, DESK_IDLE, DESK_PARKED, deskTask, eventsBody, type DeskTask, type Grant, type ShardNote } from '../shard/desk-wire.js';

/**
 * The front end's long-poll desks for one shard: copies of queues' unacknowledged events, kept
 * on the main thread so that GET /events is answered without a round trip to the shard (the
 * shard's side, and why: api/events/desk.ts).
 *
 * A desk answers a poll only when nothing the shard would check can have changed: the same
 * Authorization header the shard accepted for the queue's user (any change to the realm's users
 * takes the desks away: an `auth` note), plain parameters (queue_id, last_event_id, dont_block,
 * in canonical form), a last_event_id within what the desk holds (anything else, an error among
 * them, goes to the shard), and the user's GET /events budget, counted here as the shard counts
 * it. The shard hears of every poll answered here (an entry of a `desks` task: acknowledgement,
 * parked or not), so its queue, expiry and heartbeat stay as they would have been.
 */
export interface DeskPoll {
  realmId: number;
  authorization: string;
  queueId: string;
  lastEventId?: number;
  dontBlock: boolean;
  /** Writes the HTTP answer. */
  answer(reply: Reply): void;
}

/** A poll parked at a desk: `leave` when its client goes away (a function of its own, a listener as it is). */
export interface DeskTicket {
  readonly leave: () => void;
}

interface Parked {
  poll: DeskPoll;
  headers: Record<string, string> | undefined;
  /** Whose poll it is (the access log's user). */
  userId: number;
}

interface Desk {
  queueId: string;
  /** Its number in the shard's `events` notes (desk-wire.ts Grant.desk). */
  num: number;
  realmId: number;
  userId: number;
  authorization: string;
  ids: number[];
  heads: string[];
  /**
   * How many of `heads` (and the queue id) are not ASCII: at 0 the answer's length is its byte
   * count and it goes out as Latin-1 (Reply.ascii), which a body of tens of KB, under load a
   * poll's many events, was scanned and encoded for otherwise. A head is checked once per note,
   * not once per desk and answer.
   */
  nonAscii: number;
  newestPruned: number;
  /** The newest id the desk has seen: a last_event_id above it is the shard's to judge. */
  newest: number;
  parked: Parked | null;
}

const noTicket: DeskTicket = { leave: () => undefined };

const NON_ASCII = /[^\x00-\x7f]/;
const nonAscii = (text: string): number => (NON_ASCII.test(text) ? 1 : 0);

export class FrontDesks {
  private readonly desks = new Map<string, Desk>();
  /** The same desks by number: what the shard's `events` notes name. */
  private readonly byNum: (Desk | undefined)[] = [];
  /** Set once the shard drains for a stop: polls are answered at once. */
  private draining = false;
  /** The shard's auth and reset notes read so far (desk-wire.ts Grant.revoked). */
  private revoked = 0;

  constructor(
    private readonly send: (task: DeskTask) => void,
    private readonly limiter: RateLimiter | null,
  ) {}

  get size(): number {
    return this.desks.size;
  }

  /** Answers or parks a poll at its queue's desk; null when the poll must go to the shard. */
  poll(poll: DeskPoll): DeskTicket | null {
    const desk = this.desks.get(poll.queueId);
    if (!desk || desk.realmId !== poll.realmId || desk.authorization !== poll.authorization) return null;
    const last = poll.lastEventId;
    if (last !== undefined && (last < desk.newestPruned || last > desk.newest)) return null;
    let headers: Record<string, string> | undefined;
    if (this.limiter) {
      const decision = this.limiter.take(`${desk.realmId}:${desk.userId}`);
      if (decision.retryAfter > 0) {
        const err = rateLimited(decision.retryAfter);
        poll.answer({ status: err.status, body: JSON.stringify(err.body()), headers: { ...decision.headers, ...err.headers }, userId: desk.userId });
        return noTicket;
      }
      headers = decision.headers;
    }
    if (last !== undefined) this.prune(desk, last);
    // A new poll finishes the one parked before it, with no events.
    if (desk.parked) this.answerEmpty(poll.queueId, desk.parked);
    desk.parked = null;
    const now = desk.ids.length > 0 || poll.dontBlock || this.draining;
    this.send(deskTask(poll.queueId, now ? DESK_ANSWERED : DESK_PARKED, last, desk.newest));
    return this.answerOrPark(desk, { poll, headers, userId: desk.userId }, now);
  }

  /** Answers the poll with the desk's events (`now`), or parks it there until some come. */
  private answerOrPark(desk: Desk, parked: Parked, now: boolean): DeskTicket {
    if (now) {
      this.answer(desk, parked);
      return noTicket;
    }
    desk.parked = parked;
    return {
      leave: () => {
        if (desk.parked !== parked || this.desks.get(desk.queueId) !== desk) return;
        desk.parked = null;
        this.send(deskTask(desk.queueId, DESK_IDLE));
      },
    };
  }

  /**
   * A poll that reached the shard was answered with a desk (called as the answer arrives, before
   * the shard's next notes are read). A `parked` grant's poll parks at the new desk (`park`, the
   * poll and the headers of the shard's answer), and gets a ticket, which is a blank one when it
   * was answered at once (events came with the grant, the desk ended on its way, the server
   * stops); null: no poll parked here, the shard's answer is the poll's.
   */
  grant(authorization: string, grant: Grant, park?: { poll: DeskPoll; headers: Record<string, string> | undefined }): DeskTicket | null {
    this.forget(grant.queueId);
    // The shard gives a number again only after the note or poll that ended its last desk here.
    const other = this.byNum[grant.desk];
    if (other) this.forget(other.queueId);
    // The poll that brought it was counted by the shard; the desk's budget counts it too.
    this.limiter?.take(`${grant.realmId}:${grant.userId}`);
    const parked: Parked | null = park && grant.parked ? { poll: park.poll, headers: park.headers, userId: grant.userId } : null;
    // A note that ends desks passed the answer on the link (desk-wire.ts Grant.revoked, ended).
    if (grant.ended || grant.revoked < this.revoked) {
      if (!parked) return null;
      const ended = grant.ended;
      if (ended) parked.poll.answer({ status: ended.status, body: ended.body, headers: parked.headers, userId: parked.userId });
      else {
        this.answerEmpty(grant.queueId, parked);
        // As for a poll parked at a desk an auth note takes away: the queue ages until the next.
        this.send(deskTask(grant.queueId, DESK_IDLE));
      }
      return noTicket;
    }
    const newest = Math.max(grant.newestPruned, grant.ids.length > 0 ? grant.ids[grant.ids.length - 1] : -1);
    let odd = nonAscii(grant.queueId);
    for (const head of grant.heads) odd += nonAscii(head);
    const desk: Desk = { queueId: grant.queueId, num: grant.desk, realmId: grant.realmId, userId: grant.userId, authorization, ids: grant.ids, heads: grant.heads, nonAscii: odd, newestPruned: grant.newestPruned, newest, parked: null };
    this.desks.set(grant.queueId, desk);
    this.byNum[grant.desk] = desk;
    if (!parked) return null;
    // Events that came on the grant's way: the shard ended the poll when it sent them.
    return this.answerOrPark(desk, parked, desk.ids.length > 0 || this.draining);
  }

  /** A poll or DELETE for the queue goes to the shard: its desk goes (a parked poll there ends empty). */
  forget(queueId: string): void {
    const desk = this.desks.get(queueId);
    if (!desk) return;
    this.remove(desk);
    if (desk.parked) this.answerEmpty(queueId, desk.parked);
  }

  private remove(desk: Desk): void {
    this.desks.delete(desk.queueId);
    if (this.byNum[desk.num] === desk) this.byNum[desk.num] = undefined;
  }

  /** The shard's notes (desk-wire.ts), in the order it sent them. */
  note(note: ShardNote): void {
    switch (note.kind) {
      case 'events': {
        const { heads, list } = note;
        let woken: Desk[] | null = null;
        // A commit's few heads, each checked once for all the desks it goes to.
        let odd: number[] | null = null;
        for (let i = 0; i < list.length; i += 3) {
          // No desk: the front end dropped it (a poll went to the shard, an auth note) after
          // the shard sent this; the shard's queue still has the events.
          const desk = this.byNum[list[i]];
          if (!desk) continue;
          const id = list[i + 1];
          // Already brought by the desk's grant (api/events/desk.ts grant).
          if (id <= desk.newest) continue;
          const h = list[i + 2];
          odd ??= heads.map(nonAscii);
          desk.ids.push(id);
          desk.heads.push(heads[h]);
          desk.nonAscii += odd[h];
          desk.newest = id;
          if (desk.parked) (woken ??= []).push(desk);
        }
        // Answered with every event of the commit. The shard knows these polls are over
        // (desk-wire.ts, DESK_IDLE): no note back.
        if (woken) {
          for (const desk of woken) {
            const parked = desk.parked;
            if (!parked) continue;
            desk.parked = null;
            this.answer(desk, parked);
          }
        }
        return;
      }
      case 'drop': {
        const desk = this.desks.get(note.queueId);
        if (!desk) return;
        this.remove(desk);
        if (desk.parked) desk.parked.poll.answer({ status: note.status, body: note.body, headers: desk.parked.headers, userId: desk.userId });
        return;
      }
      case 'auth':
        this.revoked = note.revoked;
        for (const [queueId, desk] of this.desks) {
          if (desk.realmId !== note.realmId) continue;
          const parked = desk.parked !== null;
          this.forget(queueId);
          // A poll parked there ended: the shard lets the queue age until the next one.
          if (parked) this.send(deskTask(queueId, DESK_IDLE));
        }
        return;
      case 'drain':
        this.draining = true;
        for (const desk of this.desks.values()) {
          if (!desk.parked) continue;
          this.answer(desk, desk.parked);
          desk.parked = null;
        }
        return;
      case 'reset':
        // Without a count it is the link's own: a new thread counts from 0.
        this.revoked = note.revoked ?? 0;
        for (const queueId of [...this.desks.keys()]) this.forget(queueId);
        return;
    }
  }

  private prune(desk: Desk, last: number): void {
    let n = 0;
    while (n < desk.ids.length && desk.ids[n] <= last) n++;
    if (n === 0) return;
    if (desk.nonAscii > 0) for (let i = 0; i < n; i++) desk.nonAscii -= nonAscii(desk.heads[i]);
    desk.newestPruned = desk.ids[n - 1];
    desk.ids.splice(0, n);
    desk.heads.splice(0, n);
  }

  /** Answers a poll with the desk's events. */
  private answer(desk: Desk, parked: Parked): void {
    parked.poll.answer({ status: 200, body: eventsBody(desk.queueId, desk.ids, desk.heads), ascii: desk.nonAscii === 0, headers: parked.headers, userId: parked.userId });
  }

  private answerEmpty(queueId: string, parked: Parked): void {
    parked.poll.answer({ status: 200, body: eventsBody(queueId, [], []), ascii: nonAscii(queueId) === 0, headers: parked.headers, userId: parked.userId });
  }
}
