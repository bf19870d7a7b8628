import type { RealmState } from '../model/realm-state.js';
import type { WriteBatch } from '../store/shard-store.js';
import type { ShardEvent } from './events.js';
import type { Shard } from './shard.js';

/**
 * The writes and events of one do-action that may span channels and subscriptions: state is
 * changed at once; the writes and the events go to one LMDB transaction.
 */
export interface Outbox {
  batch: WriteBatch;
  events: { event: ShardEvent; userIds: number[] }[];
}

export function outbox(shard: Shard): Outbox {
  return { batch: shard.batch(), events: [] };
}

export function queueEvent(out: Outbox, event: ShardEvent, userIds: Iterable<number>): void {
  const ids = [...userIds];
  if (ids.length > 0) out.events.push({ event, userIds: ids });
}

/** Commits the writes with the events, which are delivered in the order they were queued. */
export async function flush(_shard: Shard, realm: RealmState, out: Outbox): Promise<void> {
  for (const { event, userIds } of out.events) out.batch.emit(realm.id, event, userIds);
  out.events = [];
  await out.batch.commit();
}
