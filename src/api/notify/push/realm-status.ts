import type { RealmState } from '../../../model/realm-state.js';
import { realmSetting } from '../../../model/realm-settings.js';
import type { Shard } from '../../../shard/shard.js';
import { doUpdateRealm } from '../../realm/update.js';

/**
 * realm_push_notifications_enabled (and its end timestamp): what the mobile apps show about
 * whether notifications will arrive. Set from the service's answers, as the reference's
 * do_set_realm_property calls in remote_server.py and push_notifications.py set it; a change is
 * announced to the organization like any realm setting.
 */
export async function applyRealmPushStatus(shard: Shard, realm: RealmState, canPush: boolean, endTimestamp: number | null): Promise<void> {
  const values = new Map<string, unknown>();
  if (realmSetting(realm, 'push_notifications_enabled') !== canPush) values.set('push_notifications_enabled', canPush);
  if (realmSetting(realm, 'push_notifications_enabled_end_timestamp') !== endTimestamp) values.set('push_notifications_enabled_end_timestamp', endTimestamp);
  if (values.size > 0) await doUpdateRealm(shard, realm, { values, response: {} });
}
