import type { UserRecord } from '../../model/types.js';
import { EMOJISET_CHOICES, LEGACY_DISPLAY, LEGACY_NOTIFICATIONS, NOTIFICATION_SOUNDS, USER_SETTING_DEFAULTS, userSetting } from '../../model/user-settings.js';

/**
 * The /register `user_settings` object, and the legacy flat keys that clients without the
 * user_settings_object capability read instead; the settings themselves and their defaults are
 * model/user-settings.ts.
 */

/** `user_settings` of /register. */
export function userSettingsObject(user: UserRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(USER_SETTING_DEFAULTS)) out[name] = userSetting(user, name);
  out.timezone = user.timezone;
  out.available_notification_sounds = NOTIFICATION_SOUNDS;
  out.emojiset_choices = EMOJISET_CHOICES;
  return out;
}

/** The flat keys of update_display_settings. */
export function legacyDisplaySettings(user: UserRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of LEGACY_DISPLAY) out[name] = userSetting(user, name);
  out.emojiset_choices = EMOJISET_CHOICES;
  out.timezone = user.timezone;
  return out;
}

/** The flat keys of update_global_notifications. */
export function legacyNotificationSettings(user: UserRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of LEGACY_NOTIFICATIONS) out[name] = userSetting(user, name);
  out.available_notification_sounds = NOTIFICATION_SOUNDS;
  return out;
}
