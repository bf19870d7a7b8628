import type { RealmState } from '../../model/realm-state.js';
import type { Shard } from '../../shard/shard.js';

/**
 * Deactivates or reactivates a realm (the admin CLI runs these). A deactivated realm keeps all
 * its data; every authenticated request to it fails with REALM_DEACTIVATED (401), which is how
 * clients learn of it (host/dispatch.ts). Returns false when the realm was already in that
 * state, so the command can be repeated safely.
 */
export async function doSetRealmDeactivated(shard: Shard, realm: RealmState, deactivated: boolean): Promise<boolean> {
  if (realm.realm.deactivated === deactivated) return false;
  const record = { ...realm.realm, deactivated };
  const batch = shard.batch();
  batch.put(shard.store.realms, record.id, record);
  realm.realm = record;
  // Its users' credentials no longer let them in: what was granted on them goes.
  realm.usersChanged();
  // The reference sends this to flush open long-polls; reactivation has no event, since nobody
  // can hold a queue in a deactivated realm.
  if (deactivated) batch.emit(realm.id, { type: 'realm', op: 'deactivated', realm_id: realm.id }, realm.users.keys());
  await batch.commit();
  return true;
}
