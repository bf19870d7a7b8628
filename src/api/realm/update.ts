import type { RealmState } from '../../model/realm-state.js';
import { groupSettingForApi, isRealmGroupSetting } from '../../model/realm-settings.js';
import type { GroupSetting, RealmRecord } from '../../model/types.js';
import type { ShardEvent } from '../../shard/events.js';
import type { Shard } from '../../shard/shard.js';
import { me, operation } from '../../api-kit/operation.js';
import { AccessWatch } from '../users/access-events.js';
import { checkRealmUpdate, updateRealmParams, type RealmUpdatePlan, type RealmUpdateParams } from './settings.js';

// Settings whose events have the update_dict form for historical reasons; the reference sends
// `op: update` with property and value for every other simple setting.
const UPDATE_DICT_SETTINGS = new Set(['allow_message_editing', 'message_content_edit_limit_seconds']);

/** The `realm` event the reference sends for one changed setting. */
export function realmUpdateEvent(realm: RealmState, name: string, value: unknown): ShardEvent {
  if (isRealmGroupSetting(name)) {
    return { type: 'realm', op: 'update_dict', property: 'default', data: { [name]: groupSettingForApi(realm, value as GroupSetting) } };
  }
  if (UPDATE_DICT_SETTINGS.has(name)) return { type: 'realm', op: 'update_dict', property: 'default', data: { [name]: value } };
  return { type: 'realm', op: 'update', property: name, value };
}

/**
 * Applies a checked plan: the new realm record replaces the old one in memory at once (so a
 * concurrent update builds on it), is written in one transaction, and each changed setting is
 * announced to every active user of the realm.
 */
export async function doUpdateRealm(shard: Shard, realm: RealmState, plan: RealmUpdatePlan): Promise<void> {
  if (plan.values.size === 0) return;
  const access = plan.values.has('can_access_all_users_group') ? AccessWatch.forSettingChange(shard, realm) : null;
  const record: RealmRecord = { ...realm.realm, settings: { ...realm.realm.settings } };
  for (const [name, value] of plan.values) {
    if (name === 'name') record.name = value as string;
    else if (name === 'description') record.description = value as string;
    else record.settings[name] = value;
  }
  realm.realm = record;
  const batch = shard.batch();
  batch.put(shard.store.realms, record.id, record);
  const userIds = realm.activeUserIds();
  for (const [name, value] of plan.values) batch.emit(realm.id, realmUpdateEvent(realm, name, value), userIds);
  // The reference documents only the setting's own event, after which a client keeps users it
  // may no longer see until it reloads. Here each guest is also told whom they gain or lose, so
  // that no client goes on showing what the new setting hides.
  access?.send((event, ids) => batch.emit(realm.id, event, ids));
  await batch.commit();
}

/** PATCH /realm: administrators change the organization's settings (some are owner-only). */
const update = operation<RealmUpdateParams>({
  auth: 'user',
  params: updateRealmParams,
  handler: async (ctx) => {
    const plan = checkRealmUpdate(ctx.realm, me(ctx), ctx.params);
    await doUpdateRealm(ctx.shard, ctx.realm, plan);
    return plan.response;
  },
});

export const operations = {
  'realm.update': update,
};
