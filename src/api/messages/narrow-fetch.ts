import { badRequest } from '../../lib/errors.js';
import type { MessageRecord } from '../../model/message.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { getMessage, indexedMessage } from '../../store/messages.js';
import type { NarrowTerm } from './narrow.js';
import { planNarrow, type NarrowPlan } from './narrow-plan.js';
import { Slice, takeTurn } from '../../lib/slices.js';

/**
 * Fetching a range of a narrow around an anchor, with the reference's bookkeeping
 * (found_anchor, found_oldest, found_newest), for GET /messages and POST /messages/flags/narrow.
 */

/** The reference's stand-in for "past the newest message": `anchor=newest` reports it. */
export const LARGER_THAN_MAX_MESSAGE_ID = 10_000_000_000_000_000;

/** An anchor as the reference reads it; null stands for first_unread. */
export function parseAnchor(raw: string | undefined, useFirstUnread: boolean): number | null {
  if (useFirstUnread) return null;
  if (raw === undefined) throw badRequest("Missing 'anchor' argument.");
  if (raw === 'oldest') return 0;
  if (raw === 'newest') return LARGER_THAN_MAX_MESSAGE_ID;
  if (raw === 'first_unread') return null;
  const text = raw.trim();
  if (!/^[+-]?\d+$/.test(text)) throw badRequest('Invalid anchor');
  // Negative anchors are accepted as the oldest, as older clients relied on.
  const value = BigInt(text);
  if (value < 0n) return 0;
  return value > BigInt(LARGER_THAN_MAX_MESSAGE_ID) ? LARGER_THAN_MAX_MESSAGE_ID : Number(value);
}

/**
 * Up to `limit` matching messages from the range, walking the plan's candidates in order.
 *
 * In slices (lib/slices.ts): a narrow that matches little (a negated search, a rare word) may
 * walk a user's whole history, so after each few milliseconds the walk stops, lets the shard's
 * other requests run, and starts again past the last id it looked at. Each slice opens its own
 * cursors and closes them (an LMDB cursor left open across turns would pin a snapshot). Scans
 * of one `user` take turns. A message that arrives between slices is seen or not by where its
 * id falls, as with a read a moment later.
 */
export async function collect(shard: Shard, realm: RealmState, plan: NarrowPlan, range: { min: number; max: number; reverse: boolean; limit: number }, user?: UserRecord): Promise<MessageRecord[]> {
  const out: MessageRecord[] = [];
  let { min, max } = range;
  max = Math.min(max, Number.MAX_SAFE_INTEGER);
  if (range.limit <= 0 || min > max) return out;
  const slice = new Slice();
  let release: (() => void) | null = null;
  try {
    for (;;) {
      let stoppedAt: number | null = null;
      for (const id of plan.candidates({ min, max, reverse: range.reverse })) {
        const msg = plan.indexed ? indexedMessage(shard, realm, id) : getMessage(shard, realm, id);
        // An exact plan's candidates all match (a page of a topic): its tests would only agree.
        if (msg && (plan.exact !== null || plan.matches(msg))) {
          out.push(msg);
          if (out.length >= range.limit) return out;
        }
        if (slice.spent()) {
          stoppedAt = id;
          break;
        }
      }
      if (stoppedAt === null) return out;
      if (range.reverse) max = stoppedAt - 1;
      else min = stoppedAt + 1;
      if (min > max) return out;
      release ??= await takeTurn(shard, user ? `${realm.id}:${user.id}` : `realm:${realm.id}`);
      await slice.next();
    }
  } finally {
    release?.();
  }
}

/** The oldest unread message of the narrow, skipping muted topics (and muted channels unless it names one). */
export async function firstUnreadAnchor(shard: Shard, realm: RealmState, user: UserRecord, terms: NarrowTerm[]): Promise<number> {
  const plan = planNarrow(shard, realm, user, [...terms, { operator: 'is', operand: 'unread', negated: false }], { excludeMuted: true });
  const [first] = await collect(shard, realm, plan, { min: 0, max: Number.MAX_SAFE_INTEGER, reverse: false, limit: 1 }, user);
  return first ? first.id : LARGER_THAN_MAX_MESSAGE_ID;
}

export interface RangeRequest {
  /** null: first_unread. */
  anchor: number | null;
  includeAnchor: boolean;
  numBefore: number;
  numAfter: number;
}

export interface Fetched {
  messages: MessageRecord[];
  anchor: number;
  foundAnchor: boolean;
  foundOldest: boolean;
  foundNewest: boolean;
}

/** The reference's limit_query_to_range and post_process_limited_query. */
export async function fetchRange(shard: Shard, realm: RealmState, user: UserRecord, terms: NarrowTerm[], plan: NarrowPlan, req: RangeRequest): Promise<Fetched> {
  const anchor = req.anchor ?? (await firstUnreadAnchor(shard, realm, user, terms));
  return { ...(await limited(anchor, req, (m) => m.id, (min, max, reverse, limit) => collect(shard, realm, plan, { min, max, reverse, limit }, user))), anchor };
}

/**
 * fetchRange's ids alone, for a plan whose candidates all match (NarrowPlan.exact): a range of
 * the index, no message read. Marking 5,000 messages of a channel read needs only their ids.
 */
export async function fetchRangeIds(shard: Shard, realm: RealmState, user: UserRecord, terms: NarrowTerm[], plan: NarrowPlan, req: RangeRequest): Promise<Omit<Fetched, 'messages'> & { ids: number[] }> {
  if (!plan.exact) throw new Error('fetchRangeIds needs an exact plan');
  const anchor = req.anchor ?? (await firstUnreadAnchor(shard, realm, user, terms));
  const got = await limited<number>(anchor, req, (id) => id, (min, max, reverse, limit) => [...plan.candidates({ min, max, reverse, limit })]);
  return { ...got, ids: got.messages, anchor };
}

async function limited<T>(anchor: number, req: RangeRequest, idOf: (row: T) => number, get: (min: number, max: number, reverse: boolean, limit: number) => Promise<T[]> | T[]) {
  const { includeAnchor, numBefore } = req;
  const left = anchor === 0;
  const right = anchor >= LARGER_THAN_MAX_MESSAGE_ID;
  const numAfter = right ? 0 : req.numAfter;
  const needBefore = !left && numBefore > 0;
  const needAfter = !right && numAfter > 0;
  const top = Number.MAX_SAFE_INTEGER;

  let rows: T[];
  if (needBefore && needAfter) {
    rows = [...(await get(0, anchor - 1, true, numBefore)).reverse(), ...(await get(anchor, top, false, numAfter + 1))];
  } else if (needBefore) {
    const max = right ? top : anchor - (includeAnchor ? 0 : 1);
    rows = (await get(0, max, true, numBefore + (!right && includeAnchor ? 1 : 0))).reverse();
  } else if (needAfter) {
    rows = await get(anchor + (includeAnchor ? 0 : 1), top, false, numAfter + (includeAnchor ? 1 : 0));
  } else {
    // Nothing asked on either side: at most the anchor itself, as the reference answers.
    rows = await get(anchor, anchor, false, 1);
  }

  let before = right ? rows : rows.filter((m) => idOf(m) < anchor);
  const at = right ? [] : rows.filter((m) => idOf(m) === anchor);
  let after = right ? [] : rows.filter((m) => idOf(m) > anchor);
  if (numBefore) before = before.slice(-numBefore);
  if (numAfter) after = after.slice(0, numAfter);
  return {
    messages: [...before, ...at, ...after],
    foundAnchor: at.length === 1,
    foundOldest: left || before.length < numBefore,
    foundNewest: right || after.length < numAfter,
  };
}

/** The requested ids (GET /messages message_ids) that exist, match and may be read; ascending. */
export function fetchIds(shard: Shard, realm: RealmState, plan: NarrowPlan, ids: number[]): MessageRecord[] {
  const out: MessageRecord[] = [];
  for (const id of [...new Set(ids)].sort((a, b) => a - b)) {
    const msg = getMessage(shard, realm, id);
    if (msg && plan.matches(msg)) out.push(msg);
  }
  return out;
}

/** The reference's check shared by both range endpoints. */
export function checkIncludeAnchor(req: { includeAnchor: boolean; numBefore: number; numAfter: number }): void {
  if (req.numBefore > 0 && req.numAfter > 0 && !req.includeAnchor) throw badRequest('The anchor can only be excluded at an end of the range');
}
