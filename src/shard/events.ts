/**
 * The shard's event bus. Do-actions emit each event once, with the ids of the users it concerns;
 * the event-queue layer subscribes and shapes a copy for every matching queue. Listeners run
 * synchronously, right after the action's LMDB commit.
 */
export interface ShardEvent {
  type: string;
  [field: string]: unknown;
}

export type EventListener = (realmId: number, event: ShardEvent, userIds: Iterable<number>) => void;

export class EventBus {
  private listeners: EventListener[] = [];

  subscribe(listener: EventListener): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  emit(realmId: number, event: ShardEvent, userIds: Iterable<number>): void {
    for (const listener of this.listeners) listener(realmId, event, userIds);
  }
}
