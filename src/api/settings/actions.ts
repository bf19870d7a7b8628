import { deleteUserSessions } from '../../store/sessions.js';
import { hashPassword, verifyPassword } from '../../lib/auth.js';
import { ApiError, badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import { realmSetting } from '../../model/realm-settings.js';
import { ROLE, type UserRecord } from '../../model/types.js';
import type { ShardEvent } from '../../shard/events.js';
import type { Shard } from '../../shard/shard.js';
import { LEGACY_DISPLAY, LEGACY_NOTIFICATIONS, NOTIFICATION_SOUNDS, USER_SETTING_DEFAULTS, userSetting } from '../../model/user-settings.js';
import { LANGUAGE_CODES, languageName } from '../realm/languages.js';
import { doSwitchPresenceSharing } from '../presence/presence.js';
import { attemptKey, limiterOf } from '../server/fetch-api-key.js';
import { checkFullName, saveUser } from '../users/actions.js';
import { usersWhoCanAccess } from '../../model/user-access.js';
import { preferenceProperties } from './params.js';
import { deleteAllDrafts } from '../drafts/actions.js';
import { checkEmailChange } from '../email-change/actions.js';
import { exportConsentEvent } from '../users/export-consent.js';

/**
 * PATCH /settings, the check and the do halves. The reference applies a request's parts one by
 * one, so a bad full name can follow a password already changed; here every part is checked
 * before anything changes, and a request either changes all it asks for or nothing.
 */
export type SettingsParams = Record<string, unknown> & {
  full_name?: string;
  email?: string;
  old_password?: string;
  new_password?: string;
};

export interface SettingsPlan {
  /** The new (trimmed) full name, or null when it does not change. */
  fullName: string | null;
  /** Changed preference settings, timezone included, in the order they were checked. */
  settings: Map<string, unknown>;
  /** Present when the request changes the password (its old one still to be verified). */
  newPassword: { old: string; new: string } | null;
  /** The (trimmed) address to mail a confirmation link to, or null when it does not change. */
  newEmail: string | null;
}

// The reference's PASSWORD_MAX_LENGTH (the minimum is config.passwordMinLength).
const PASSWORD_MAX_LENGTH = 100;
const WEEK_SECONDS = 7 * 24 * 60 * 60;

const isAdmin = (user: UserRecord) => user.role <= ROLE.administrator;

/**
 * An IANA zone name as the reference's zoneinfo knows it: Intl knows every zone and alias, but
 * also accepts any letter case and UTC offsets, which the reference does not.
 */
function isTimezone(name: string): boolean {
  if (!/^[A-Z][A-Za-z0-9_+-]*(\/[A-Z][A-Za-z0-9_+-]*)*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The reference's check_settings_values, and the checks its parameter types make. */
export function checkValues(p: SettingsParams): void {
  if (p.timezone !== undefined && !isTimezone(p.timezone as string)) {
    throw new ApiError('Invalid timezone: Not a recognized time zone', { code: 'REQUEST_VARIABLE_INVALID', data: { var_name: 'timezone' } });
  }
  if (p.default_language !== undefined && !LANGUAGE_CODES.has(p.default_language as string)) throw badRequest('Invalid default_language');
  const sound = p.notification_sound as string | undefined;
  if (sound !== undefined && sound !== 'none' && !NOTIFICATION_SOUNDS.includes(sound)) throw badRequest(`Invalid notification sound '${sound}'`);
  const period = p.email_notifications_batching_period_seconds as number | undefined;
  if (period !== undefined && (period <= 0 || period > WEEK_SECONDS)) throw badRequest(`Invalid email batching period: ${period} seconds`);
  // Every view here shows real addresses (users/views.ts); storing a stricter choice would
  // promise a privacy this server does not keep.
  const visibility = p.email_address_visibility as number | undefined;
  if (visibility !== undefined && visibility !== USER_SETTING_DEFAULTS.email_address_visibility) {
    throw badRequest('This server shows email addresses to everyone; email_address_visibility cannot be changed');
  }
}

/** The reference's check_full_name, with the realm's require_unique_names rule. */
function checkNewName(realm: RealmState, user: UserRecord, raw: string): string {
  const name = checkFullName(raw);
  if (realmSetting(realm, 'require_unique_names') === true) {
    const lower = name.toLowerCase();
    for (const other of realm.users.values()) {
      if (other.id !== user.id && other.fullName.toLowerCase() === lower) throw badRequest('Unique names required in this organization.');
    }
  }
  return name;
}

/** Validates a PATCH /settings request; changes nothing. */
export function checkSettingsUpdate(realm: RealmState, user: UserRecord, p: SettingsParams): SettingsPlan {
  if (user.isBot) throw badRequest('This endpoint does not accept bot requests.');
  checkValues(p);
  const plan: SettingsPlan = { fullName: null, settings: new Map(), newPassword: null, newEmail: null };
  if (p.new_password !== undefined) plan.newPassword = { old: p.old_password ?? '', new: p.new_password };

  // A new address is only asked for here: a link mailed to it makes the change (email-change/).
  // The same address in other letters is a change, refused as taken, as the reference does.
  if (p.email !== undefined && p.email.trim() !== user.email) {
    plan.newEmail = p.email.trim();
    checkEmailChange(realm, user, plan.newEmail);
  }

  // Refused silently, as the reference does: its own clients offer no way to ask.
  const nameLocked = realmSetting(realm, 'name_changes_disabled') === true && !isAdmin(user);
  if (p.full_name !== undefined && p.full_name !== user.fullName && !nameLocked) {
    const name = checkNewName(realm, user, p.full_name);
    if (name !== user.fullName) plan.fullName = name;
  }

  for (const name of Object.keys(preferenceProperties)) {
    const value = p[name];
    if (value === undefined) continue;
    const current = name === 'timezone' ? user.timezone : userSetting(user, name);
    if (value !== current) plan.settings.set(name, value);
  }
  return plan;
}

/**
 * Verifies the old password and returns the new one's hash. Attempts count against the same
 * limit as logins (the reference's authenticate does so): an API key alone must not allow
 * guessing the password at full speed.
 */
export async function checkPasswordChange(shard: Shard, realm: RealmState, user: UserRecord, change: { old: string; new: string }): Promise<string> {
  const limiter = limiterOf(shard);
  const key = attemptKey(realm.id, user.email);
  const wait = limiter.retryAfter(key);
  if (wait > 0) throw badRequest(`You're making too many attempts! Try again in ${Math.ceil(wait)} seconds.`);
  limiter.record(key);
  if (!(await verifyPassword(change.old, user.passwordHash))) throw badRequest('Wrong password!');
  limiter.clear(key);
  if (change.new.length < shard.config.passwordMinLength || change.new.length > PASSWORD_MAX_LENGTH) throw badRequest('New password is too weak!');
  return hashPassword(change.new);
}

/** The events one changed setting sends, as the reference's do_change_user_setting sends them. */
function settingEvents(shard: Shard, realm: RealmState, user: UserRecord, name: string, value: unknown): { event: ShardEvent; userIds: number[] }[] {
  const own = [user.id];
  const languageField = name === 'default_language' ? { language_name: languageName(value as string) } : {};
  const out = [{ event: { type: 'user_settings', op: 'update', property: name, value, ...languageField } as ShardEvent, userIds: own }];
  // The legacy forms reach only queues without user_settings_object (events/shape.ts drops
  // them for the others).
  if (LEGACY_NOTIFICATIONS.includes(name)) {
    out.push({ event: { type: 'update_global_notifications', user: user.email, notification_name: name, setting: value }, userIds: own });
  }
  if (LEGACY_DISPLAY.includes(name) || name === 'timezone') {
    out.push({ event: { type: 'update_display_settings', user: user.email, setting_name: name, setting: value, ...languageField }, userIds: own });
  }
  if (name === 'timezone') {
    out.push({ event: { type: 'realm_user', op: 'update', person: { email: user.email, user_id: user.id, timezone: value } }, userIds: usersWhoCanAccess(shard, realm, user) });
  }
  if (name === 'allow_private_data_export') out.push(exportConsentEvent(realm, user, value as boolean));
  return out;
}

/**
 * Applies a checked plan: the user's record changes in place (a request holding it sees the
 * change), is written once, and the events go out in the same transaction.
 */
export async function doUpdateSettings(shard: Shard, realm: RealmState, user: UserRecord, plan: SettingsPlan, passwordHash: string | null, keepSession?: string): Promise<void> {
  if (plan.fullName === null && plan.settings.size === 0 && passwordHash === null) return;
  const batch = shard.batch();
  if (passwordHash !== null) {
    user.passwordHash = passwordHash;
    // A new password ends the account's other browser sessions (someone may know the old one),
    // as the reference's update_session_auth_hash does, but not the one that changed it.
    deleteUserSessions(shard, batch, realm.id, user.id, { keep: keepSession });
  }
  if (plan.fullName !== null) {
    user.fullName = plan.fullName;
    batch.emit(realm.id, { type: 'realm_user', op: 'update', person: { user_id: user.id, full_name: user.fullName } }, usersWhoCanAccess(shard, realm, user));
  }
  const settings = { ...user.settings };
  for (const [name, value] of plan.settings) {
    if (name === 'timezone') user.timezone = value as string;
    // Only what differs from the defaults is stored.
    else if (value === USER_SETTING_DEFAULTS[name]) delete settings[name];
    else settings[name] = value;
    for (const { event, userIds } of settingEvents(shard, realm, user, name, value)) batch.emit(realm.id, event, userIds);
  }
  user.settings = settings;
  if (plan.settings.get('enable_drafts_synchronization') === false) deleteAllDrafts(shard, batch, realm, user);
  saveUser(shard, batch, realm, user);
  await batch.commit();
  // Presence lives in memory only (presence/state.ts), so it follows the committed setting.
  if (plan.settings.has('presence_enabled')) doSwitchPresenceSharing(shard, realm, user, plan.settings.get('presence_enabled') as boolean);
}
