import type { RealmState } from '../../model/realm-state.js';
import type { StreamRecord, UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { idsUnder, mergeIds, type IdRange } from '../../store/messages.js';
import { topicIds } from '../../store/topic-ids.js';
import type { NarrowTerm } from './narrow.js';
import type { SearchQuery } from './narrow-search.js';

/**
 * The channel part of a narrow plan (narrow-plan.ts): the candidate ids of a channel (or topic)
 * narrow, and whether they are the whole answer (NarrowPlan.exact).
 */

/** Candidate ids of one index; `rank` orders the choice, lowest (most selective) first. */
export interface Driver {
  rank: number;
  ids(range: IdRange): Iterable<number>;
  /** The ids are the client's (`id:`), not an index's. */
  given?: true;
}

export const CHANNEL_OPERATORS = new Set(['channel', 'stream']);

/** The part of a range within [min, max], or null when there is none. */
export const clip = (r: IdRange, min: number, max: number): IdRange | null => {
  const lo = Math.max(r.min ?? 0, min);
  const hi = Math.min(r.max ?? Number.MAX_SAFE_INTEGER, max);
  return lo <= hi ? { min: lo, max: hi, reverse: r.reverse } : null;
};

/**
 * Channel and topic terms drive by the channel's (or topic's) index: with `history`, all of it;
 * otherwise the user's own messages there.
 */
export function channelDriver(shard: Shard, realm: RealmState, user: UserRecord, stream: StreamRecord, topic: string | null, history: boolean): Driver {
  const { store } = shard;
  const r = realm.id;
  // A topic's newest ids are kept in memory (store/topic-ids.ts): a page of a topic reads no index.
  const read = (range: IdRange) => (topic !== null ? topicIds(store.byTopic).ids([r, stream.id, topic], range, shard.damage) : idsUnder(store.byStream, [r, stream.id], range));
  const rank = topic !== null ? 1 : 4;
  if (history) return { rank, ids: read };
  // The user's own messages of a channel are those within their subscription intervals, and
  // those they sent to it unsubscribed or starred without having received them (the tests
  // keep the ones of this channel): the channel's history outside the intervals is not read.
  return {
    rank,
    ids: (range) => {
      const sources = realm.intervals(user.id, stream.id).flatMap(([first, last]) => {
        const part = clip(range, first, last ?? Number.MAX_SAFE_INTEGER);
        return part ? [read(part)] : [];
      });
      sources.push(idsUnder(store.bySender, [r, user.id], range));
      sources.push(idsUnder(store.uflagIdx, [r, user.id, 'starred'], range));
      return mergeIds(sources, range.reverse);
    },
  };
}

/**
 * NarrowPlan.exact: the narrow's channel when it is only a channel term and a topic term, both
 * positive, read with history. The channel's (or topic's) index then holds exactly its
 * messages, and history access means canAccessMessage holds for each of them.
 */
export function exactChannel(terms: NarrowTerm[], history: boolean, excludeMuted: boolean, search: SearchQuery | null, channel: StreamRecord | null): StreamRecord | null {
  if (!history || excludeMuted || search !== null || terms.some((t) => t.negated)) return null;
  const count = (ops: (op: string) => boolean) => terms.filter((t) => ops(t.operator)).length;
  const exact =
    count((op) => CHANNEL_OPERATORS.has(op)) === 1 && count((op) => op === 'topic') <= 1 && count((op) => CHANNEL_OPERATORS.has(op) || op === 'topic') === terms.length;
  return exact ? channel : null;
}
