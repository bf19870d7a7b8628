/**
 * A realm's defaults for new users as the rest of the server reads them (kept apart from the
 * endpoint, which needs the settings actions, so that user creation can use them without a cycle).
 */
import type { RealmRecord } from '../../model/types.js';
import { EMOJISET_CHOICES, NOTIFICATION_SOUNDS, USER_SETTING_DEFAULTS } from '../events/register-settings.js';

/** A realm's default value of a personal setting. */
export function realmDefault(realm: RealmRecord, name: string): unknown {
  const own = realm.userSettingsDefaults;
  return own && Object.hasOwn(own, name) ? own[name] : USER_SETTING_DEFAULTS[name];
}

/** `realm_user_settings_defaults`: every setting a new user of the realm starts with. */
export function realmUserSettingsDefaults(realm: RealmRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(USER_SETTING_DEFAULTS)) out[name] = realmDefault(realm, name);
  return { ...out, available_notification_sounds: NOTIFICATION_SOUNDS, emojiset_choices: EMOJISET_CHOICES };
}

/**
 * A new user's stored settings: the realm's defaults, which are kept because they differ from the
 * server's (UserRecord.settings holds only such differences).
 */
export function newUserSettings(realm: RealmRecord): Record<string, unknown> {
  return { ...realm.userSettingsDefaults };
}

