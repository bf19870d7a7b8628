import type { RealmState } from '../../model/realm-state.js';
import type { RealmRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { realmDefault, USER_SETTING_DEFAULTS } from '../../model/user-settings.js';
import { operation } from '../../api-kit/operation.js';
import { checkValues } from '../settings/actions.js';
import { preferenceProperties } from '../settings/params.js';

/**
 * The realm's defaults for new users (PATCH /realm/user_settings_defaults, administrators), after
 * the reference's update_realm_user_settings_defaults and do_set_realm_user_default_setting. The
 * settings are PATCH /settings' own, with the same values, less those the reference keeps out of
 * administrators' hands (default_language, timezone, the login and marketing emails, private
 * data export). Settings newer than feature level 372 (the channel-folder sidebar ones) are not
 * known here and come back in ignored_parameters_unsupported.
 *
 * The realm record keeps only the defaults that differ from the server's. A user created later
 * starts with them (model/user-settings.ts newUserSettings); existing users keep their own settings.
 */

const NOT_DEFAULTS = new Set(['default_language', 'timezone', 'enable_marketing_emails', 'enable_login_emails', 'allow_private_data_export']);

export const DEFAULT_SETTINGS: readonly string[] = Object.keys(preferenceProperties).filter((name) => !NOT_DEFAULTS.has(name));

const properties: Record<string, Record<string, unknown>> = {};
for (const name of DEFAULT_SETTINGS) properties[name] = preferenceProperties[name];

async function doSetDefaults(shard: Shard, realm: RealmState, changes: Map<string, unknown>): Promise<void> {
  if (changes.size === 0) return;
  const defaults = { ...realm.realm.userSettingsDefaults };
  for (const [name, value] of changes) {
    if (value === USER_SETTING_DEFAULTS[name]) delete defaults[name];
    else defaults[name] = value;
  }
  const record: RealmRecord = { ...realm.realm, userSettingsDefaults: defaults };
  realm.realm = record;
  const batch = shard.batch();
  batch.put(shard.store.realms, record.id, record);
  const everyone = realm.activeUserIds();
  for (const [property, value] of changes) batch.emit(realm.id, { type: 'realm_user_settings_defaults', op: 'update', property, value }, everyone);
  await batch.commit();
}

const update = operation<Record<string, unknown>>({
  auth: 'user',
  role: 'administrator',
  params: { properties },
  handler: async (ctx) => {
    checkValues(ctx.params);
    const changes = new Map<string, unknown>();
    for (const name of Object.keys(properties)) {
      const value = ctx.params[name];
      if (value !== undefined && value !== realmDefault(ctx.realm.realm, name)) changes.set(name, value);
    }
    await doSetDefaults(ctx.shard, ctx.realm, changes);
    return {};
  },
});

export const operations = {
  'userDefaults.update': update,
};
