/**
 * What the long-poll desks (front end: host/desk.ts; shard: api/events/desk.ts) tell each
 * other over a shard's link (link.ts). The link is one FIFO each way, which is what makes the
 * desks safe: a note the shard sends while it changes something (a queue dropped, a user's
 * credentials changed) reaches the front end before the answer to any request that follows.
 */

/**
 * How a GET /events may use the front end's desks: its answer carrying one (the long-poll path),
 * or, for a plain poll of that path (one a desk could answer), parking there when it would park.
 * Without a mode (Koa's path, the web app's), it uses none.
 */
export type DeskMode = 'grant' | 'park';

/**
 * A poll's answer with these events (ids and their JSON heads, api/events/queue.ts eventHead), as
 * the shard's own GET /events writes it: the desks answer with it, and the shard's notes end a
 * desk's parked poll with it.
 */
export function eventsBody(queueId: string, ids: number[], heads: string[]): string {
  let events = '';
  for (let i = 0; i < ids.length; i++) events += `${i > 0 ? ',' : ''}${heads[i]}"id":${ids[i]}}`;
  return `{"result":"success","msg":"","events":[${events}],"queue_id":${JSON.stringify(queueId)}}`;
}

/** A desk for one queue, given with the answer to a poll that reached the shard. */
export interface Grant {
  queueId: string;
  /**
   * The desk's number in `events` notes: small, and reused once the shard has taken the desk
   * back (a poll that reached it, a drop, a reset). The link's order makes that safe: a number
   * is given again only after the note or the poll that ended its last desk, so no note for the
   * old queue can reach the new desk.
   */
  desk: number;
  realmId: number;
  userId: number;
  /** The queue's unacknowledged events: their ids and JSON heads (queue.ts eventHead). */
  ids: number[];
  heads: string[];
  newestPruned: number;
  /**
   * The poll that brought it parks at the desk: its queue had nothing for it, and the shard keeps
   * no request for it, only the queue's heartbeat timer (`queue.remoteParked`). Events that came
   * on the way are in `ids`: the desk then answers it with them at once.
   */
  parked?: boolean;
  /**
   * The `auth` and `reset` notes the shard had sent when it made this grant (see ShardNote). One
   * sent after it may have reached the front end before the answer carrying it: the grant is
   * then no good (the desk it would make could outlive changed credentials or a reload).
   */
  revoked: number;
  /**
   * Set on a grant still on its way when its queue went: the `drop` note may have reached the
   * front end first, so no desk is made, and a poll parked with the grant gets this answer.
   */
  ended?: { status: number; body: string };
}

/** Shard -> front end (link items numbered 0). */
export type ShardNote =
  /**
   * New events for desks: `list` is [desk, id, headIndex, ...] in delivery order. Numbers in
   * one flat array, not queue ids each with its own array: the structured clone of a commit's
   * note to 50 desks cost 5 times as much that way, on both threads.
   */
  | { kind: 'events'; heads: string[]; list: number[] }
  /** The queue is gone: a poll parked at its desk gets `reply` (BAD_EVENT_QUEUE_ID, or empty). */
  | { kind: 'drop'; queueId: string; status: number; body: string }
  /**
   * A user record (credentials, activity) or the realm changed: its desks go. `revoked` counts
   * the shard's auth and reset notes so far, this one included (Grant.revoked).
   */
  | { kind: 'auth'; realmId: number; revoked: number }
  /** The shard stops: polls are answered at once from now on. */
  | { kind: 'drain' }
  /**
   * The shard reloaded from the store (with `revoked`, as for auth), or its thread ended (the
   * link's own note, without: a new thread counts from 0): every desk goes.
   */
  | { kind: 'reset'; revoked?: number };

/** What a desk tells the shard of one poll, in a `desks` task. */
export const DESK_ANSWERED = 0;
/**
 * The poll parked at the desk. `newest` is the newest event id the desk had seen: a poll parked
 * below events the shard has already sent is answered as they arrive, so it is over as far as
 * the shard is concerned.
 */
export const DESK_PARKED = 1;
/**
 * The poll parked at a desk ended without events (its client left, or a new poll came, or the
 * realm's desks went). One answered with events needs none: the shard ended it when it sent them
 * (ShardDesks.pushFor), or when its poll's entry came in after them.
 */
export const DESK_IDLE = 2;

/**
 * Front end -> shard (a link task nobody waits for): polls answered or parked at desks, each
 * acknowledging up to lastEventId (null: none given), as [queueId, state, lastEventId, newest,
 * ...]. One flat array for many polls (the link joins the `desks` tasks queued one after another:
 * link.ts notify), not an object per poll: a message to a 50-member channel brings up to 50 polls,
 * and each object, cloned on one thread and rebuilt on the other, was then run as a task of its own
 * (a promise and a catch each). It made the shard cheaper per poll; P2's latency did not move
 * (bench/RESULTS.md, the tail6 session).
 */
export type DeskTask = { kind: 'desks'; list: (string | number | null)[] };

export function deskTask(queueId: string, state: number, lastEventId?: number, newest = -1): DeskTask {
  return { kind: 'desks', list: [queueId, state, lastEventId ?? null, newest] };
}
