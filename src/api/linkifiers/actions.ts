import { badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { RealmRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { checkLinkifier, type LinkifierInput } from './validate.js';
import { linkifiersView, type StoredLinkifier } from './views.js';

/**
 * Linkifier do-actions. Linkifiers live in the realm record (one row per realm, no table of their
 * own), so every change writes the whole record. The new record replaces the old one in memory
 * before the commit is awaited, so a second change arriving meanwhile builds on the first; the
 * event carries the list as this change left it.
 */

const linkifierNotFound = () => badRequest('Linkifier not found.');

/** The reference strips both values before validating and storing them. */
export function cleanInput(pattern: string, urlTemplate: string): LinkifierInput {
  return { pattern: pattern.trim(), urlTemplate: urlTemplate.trim() };
}

function current(realm: RealmState): StoredLinkifier[] {
  return realm.realm.linkifiers ?? [];
}

async function replaceLinkifiers(shard: Shard, realm: RealmState, batch: WriteBatch, linkifiers: StoredLinkifier[]): Promise<void> {
  const record: RealmRecord = { ...realm.realm, linkifiers };
  realm.realm = record;
  const event = { type: 'realm_linkifiers', realm_linkifiers: linkifiersView(realm) };
  batch.put(shard.store.realms, record.id, record);
  batch.emit(realm.id, event, realm.activeUserIds());
  await batch.commit();
}

/** POST /realm/filters: a new linkifier, applied after the existing ones. Returns its id. */
export async function doAddLinkifier(shard: Shard, realm: RealmState, input: LinkifierInput): Promise<number> {
  checkLinkifier(realm.realm, input);
  const batch = shard.batch();
  const id = shard.allocate(batch, 'linkifier');
  await replaceLinkifiers(shard, realm, batch, [...current(realm), { id, pattern: input.pattern, urlTemplate: input.urlTemplate }]);
  return id;
}

/** PATCH /realm/filters/{filter_id}: a new pattern and template, in the same place in the order. */
export async function doUpdateLinkifier(shard: Shard, realm: RealmState, id: number, input: LinkifierInput): Promise<void> {
  const list = current(realm);
  if (!list.some((l) => l.id === id)) throw linkifierNotFound();
  checkLinkifier(realm.realm, input, id);
  const updated = list.map((l) => (l.id === id ? { id, pattern: input.pattern, urlTemplate: input.urlTemplate } : l));
  await replaceLinkifiers(shard, realm, shard.batch(), updated);
}

/** DELETE /realm/filters/{filter_id}; the others keep their order. */
export async function doRemoveLinkifier(shard: Shard, realm: RealmState, id: number): Promise<void> {
  const list = current(realm);
  if (!list.some((l) => l.id === id)) throw linkifierNotFound();
  await replaceLinkifiers(shard, realm, shard.batch(), list.filter((l) => l.id !== id));
}

/**
 * PATCH /realm/linkifiers: the list must name every linkifier exactly once. As in the reference,
 * a realm without linkifiers accepts the empty list and nothing is written or announced.
 */
export async function checkReorderLinkifiers(shard: Shard, realm: RealmState, orderedIds: number[]): Promise<void> {
  const wanted = new Set(orderedIds);
  if (wanted.size < orderedIds.length) throw badRequest('The ordered list must not contain duplicated linkifiers');
  const list = current(realm);
  const sameSet = list.length === wanted.size && list.every((l) => wanted.has(l.id));
  if (!sameSet) throw badRequest('The ordered list must enumerate all existing linkifiers exactly once');
  if (list.length === 0) return;
  const byId = new Map(list.map((l) => [l.id, l]));
  await replaceLinkifiers(shard, realm, shard.batch(), orderedIds.map((id) => byId.get(id)!));
}
