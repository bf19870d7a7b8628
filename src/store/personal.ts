import type { Database } from 'lmdb';

/**
 * The rows a user keeps for themself (drafts, snippets, scheduled messages), keyed
 * [realmId, userId, id]: one range read each, in id order. Committed rows only: actions commit
 * before they answer, so a later request sees their writes.
 */
export function userRows<T>(db: Database, realmId: number, userId: number): T[] {
  const out: T[] = [];
  for (const { value } of db.getRange({ start: [realmId, userId], end: [realmId, userId + 1] })) out.push(value as T);
  return out;
}
