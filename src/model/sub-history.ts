import type { StoreView, WriteBatch } from '../store/shard-store.js';
import type { RealmState, SubInterval } from './realm-state.js';

/**
 * Subscription history: the message-id intervals during which a user was subscribed to a
 * channel. It replaces the reference's per-recipient UserMessage rows for channel messages: a
 * user received a channel message iff its id falls in one of their intervals (read-state.ts).
 * An interval opens at the next id to be handed out and closes at the last one handed out.
 */
function save(shard: StoreView, batch: WriteBatch, realm: RealmState, userId: number, streamId: number, intervals: SubInterval[]): void {
  realm.setIntervals(userId, streamId, intervals);
  batch.put(shard.store.subHistory, [realm.id, userId, streamId], intervals);
}

export function openInterval(shard: StoreView, batch: WriteBatch, realm: RealmState, userId: number, streamId: number): void {
  const intervals = realm.intervals(userId, streamId);
  if (intervals.length > 0 && intervals[intervals.length - 1][1] === null) return;
  save(shard, batch, realm, userId, streamId, [...intervals, [shard.messageIds.current() + 1, null]]);
}

export function closeInterval(shard: StoreView, batch: WriteBatch, realm: RealmState, userId: number, streamId: number): void {
  const intervals = realm.intervals(userId, streamId);
  const last = intervals[intervals.length - 1];
  if (!last || last[1] !== null) return;
  const end = shard.messageIds.current();
  // Subscribed and left with no message in between: the interval covers nothing.
  const kept: SubInterval[] = end < last[0] ? intervals.slice(0, -1) : [...intervals.slice(0, -1), [last[0], end]];
  save(shard, batch, realm, userId, streamId, kept);
}
