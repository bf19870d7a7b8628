import { randomBytes } from 'node:crypto';
import type { RealmState } from '../../model/realm-state.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';
import type { Trigger } from '../../model/notifications.js';

/**
 * The `notify` table: what the notifications of people who are away keep beyond jobs.
 *
 *   ['unsub', key]                  -> {realmId, userId}  the key of a user's unsubscribe links
 *   ['unsubUser', realmId, userId]  -> key
 *   ['active', realmId, userId]     -> seconds  when the user was last seen active (presence),
 *                                                at most one write per user an hour
 *   ['digest', realmId, userId]     -> seconds  when the user's last digest was made
 *   ['batchItem', realmId, userId, messageId] -> {trigger, groupId, at}  a notice of the user's
 *                                                missed-message email batch after its first
 *                                                (email-batch.ts); `at`: when it was added (ms)
 */

/**
 * The key of a user's unsubscribe links (the reference's one-click unsubscribe confirmation), made
 * on first use. One key per user serves every kind of email: the link names the kind.
 */
export function unsubscribeKey(shard: Shard, batch: WriteBatch, realm: RealmState, userId: number): string {
  const existing = shard.read<string>(shard.store.notify, ['unsubUser', realm.id, userId]);
  if (existing) return existing;
  // 24 characters, as the reference's confirmation keys.
  const key = randomBytes(12).toString('hex');
  batch.put(shard.store.notify, ['unsubUser', realm.id, userId], key);
  batch.put(shard.store.notify, ['unsub', key], { realmId: realm.id, userId });
  return key;
}

export function unsubscribeOwner(shard: Shard, key: string): { realmId: number; userId: number } | undefined {
  return shard.read(shard.store.notify, ['unsub', key]);
}

export function lastActive(shard: Shard, realm: RealmState, userId: number): number | undefined {
  return shard.read<number>(shard.store.notify, ['active', realm.id, userId]);
}

export function setLastActive(batch: WriteBatch, shard: Shard, realm: RealmState, userId: number, seconds: number): void {
  batch.put(shard.store.notify, ['active', realm.id, userId], seconds);
}

export function lastDigest(shard: Shard, realm: RealmState, userId: number): number | undefined {
  return shard.read<number>(shard.store.notify, ['digest', realm.id, userId]);
}

export function setLastDigest(batch: WriteBatch, shard: Shard, realm: RealmState, userId: number, seconds: number): void {
  batch.put(shard.store.notify, ['digest', realm.id, userId], seconds);
}

/** A notice of a missed-message email batch (missed-email.ts's BatchItem, which imports this module). */
interface BatchItem {
  id: number;
  trigger: Trigger;
  groupId: number | null;
}

type StoredItem = Omit<BatchItem, 'id'> & { at: number };

const itemKey = (realmId: number, userId: number, messageId: number) => ['batchItem', realmId, userId, messageId];

export function queueBatchItem(shard: Shard, batch: WriteBatch, realmId: number, userId: number, item: BatchItem): void {
  const row: StoredItem = { trigger: item.trigger, groupId: item.groupId, at: Date.now() };
  batch.put(shard.store.notify, itemKey(realmId, userId, item.id), row);
}

/** The user's batch rows, in the order they were added (then by message), deleted on `batch`. */
export function takeBatchItems(shard: Shard, batch: WriteBatch, realmId: number, userId: number): BatchItem[] {
  const out: (BatchItem & { at: number })[] = [];
  for (const { key, value } of shard.store.notify.getRange({ start: ['batchItem', realmId, userId], end: ['batchItem', realmId, userId + 1] })) {
    const row = value as StoredItem;
    out.push({ id: (key as number[])[3], trigger: row.trigger, groupId: row.groupId, at: row.at });
    batch.del(shard.store.notify, key as (string | number)[]);
  }
  // The range is in message order; a stable sort keeps it among notices of the same moment.
  out.sort((a, b) => a.at - b.at);
  return out.map(({ at: _at, ...item }) => item);
}
