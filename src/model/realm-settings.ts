import { userHasPermission, type GroupSettingRule } from './groups.js';
import type { RealmState } from './realm-state.js';
import { ROLE, type GroupSetting, type RealmImage, type UserRecord } from './types.js';

export type { GroupSettingRule } from './groups.js';

/**
 * Realm settings and their reference defaults for a new realm (Zulip 10.2, feature level 372).
 * Names are the reference's, without the `realm_` prefix that /register adds. The realm's name
 * and description are fields of RealmRecord itself, not settings.
 *
 * Realms created before a setting existed have no stored value for it: read settings through
 * realmSetting(), which falls back to the default, never through `realm.settings[name]`.
 */
const DAY = 86400;

export const DEFAULT_SETTINGS: Record<string, unknown> = {
  allow_message_editing: true,
  avatar_changes_disabled: false,
  default_code_block_language: '',
  default_language: 'en',
  digest_emails_enabled: false,
  // Tuesday; 0 is Monday.
  digest_weekday: 1,
  disallow_disposable_email_addresses: true,
  email_changes_disabled: false,
  emails_restricted_to_domains: false,
  enable_guest_user_dm_warning: true,
  enable_guest_user_indicator: true,
  // On, as the reference's do_create_realm turns it on for invite-only organizations (the default).
  enable_read_receipts: true,
  enable_spectator_access: false,
  // 2 = rated G.
  giphy_rating: 2,
  inline_image_preview: true,
  inline_url_embed_preview: false,
  invite_required: true,
  jitsi_server_url: null,
  mandatory_topics: false,
  message_content_allowed_in_email_notifications: true,
  // Time limits: null means no limit; the reference never stores 0.
  message_content_delete_limit_seconds: 600,
  message_content_edit_limit_seconds: 600,
  message_edit_history_visibility_policy: 'all',
  // -1: messages are kept forever.
  message_retention_days: -1,
  move_messages_between_streams_limit_seconds: 7 * DAY,
  move_messages_within_stream_limit_seconds: 7 * DAY,
  name_changes_disabled: false,
  require_unique_names: false,
  send_welcome_emails: true,
  // 1 = Jitsi Meet.
  video_chat_provider: 1,
  waiting_period_threshold: 0,
  want_advertise_in_communities_directory: false,
  // Channel-valued settings; -1 means disabled.
  moderation_request_channel_id: -1,
  new_stream_announcements_stream_id: -1,
  signup_announcements_stream_id: -1,
  zulip_update_announcements_stream_id: -1,
  // Organization type 0 = unspecified; plan type 1 = self-hosted.
  org_type: 0,
  plan_type: 1,
  presence_disabled: false,
  push_notifications_enabled: false,
  push_notifications_enabled_end_timestamp: null,
  icon_source: 'G',
  logo_source: 'D',
  night_logo_source: 'D',
};

const rule = (defaultGroup: string, allowNobody: boolean, allowEveryone: boolean, allowedSystemGroups: string[] = []): GroupSettingRule => ({
  defaultGroup,
  allowNobody,
  allowEveryone,
  requireSystemGroup: allowedSystemGroups.length > 0,
  allowedSystemGroups,
});

export const REALM_GROUP_SETTINGS: Record<string, GroupSettingRule> = {
  can_access_all_users_group: rule('role:everyone', false, true, ['role:everyone', 'role:members']),
  can_add_custom_emoji_group: rule('role:members', true, false),
  can_add_subscribers_group: rule('role:members', true, false),
  can_create_bots_group: rule('role:members', true, false),
  can_create_groups: rule('role:members', true, false),
  can_create_private_channel_group: rule('role:members', true, false),
  can_create_public_channel_group: rule('role:members', true, false),
  can_create_web_public_channel_group: rule('role:owners', true, false, ['role:moderators', 'role:administrators', 'role:owners', 'role:nobody']),
  can_create_write_only_bots_group: rule('role:members', true, false),
  can_delete_any_message_group: rule('role:administrators', true, false),
  can_delete_own_message_group: rule('role:everyone', true, true),
  can_invite_users_group: rule('role:members', true, false),
  can_manage_all_groups: rule('role:owners', false, false),
  can_manage_billing_group: rule('role:administrators', false, false),
  can_mention_many_users_group: rule('role:administrators', true, true),
  can_move_messages_between_channels_group: rule('role:members', true, false),
  can_move_messages_between_topics_group: rule('role:everyone', true, true),
  can_resolve_topics_group: rule('role:everyone', true, true),
  can_summarize_topics_group: rule('role:everyone', true, true),
  create_multiuse_invite_group: rule('role:administrators', true, false),
  direct_message_initiator_group: rule('role:everyone', true, true),
  direct_message_permission_group: rule('role:everyone', true, true),
};

/** Permission group settings of a realm, with the system group each defaults to. */
export const DEFAULT_GROUP_SETTINGS: Record<string, string> = Object.fromEntries(
  Object.entries(REALM_GROUP_SETTINGS).map(([name, r]) => [name, r.defaultGroup]),
);

export function defaultRealmSettings(groupId: (name: string) => number): Record<string, unknown> {
  const settings: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  for (const [name, group] of Object.entries(DEFAULT_GROUP_SETTINGS)) settings[name] = groupId(group);
  return settings;
}

export function isRealmGroupSetting(name: string): boolean {
  return Object.hasOwn(REALM_GROUP_SETTINGS, name);
}

/** A realm setting's value: the stored one, else the default (for realms older than the setting). */
export function realmSetting(realm: RealmState, name: string): unknown {
  if (name === 'name') return realm.realm.name;
  if (name === 'description') return realm.realm.description;
  const stored = realm.realm.settings;
  if (Object.hasOwn(stored, name)) return stored[name];
  if (isRealmGroupSetting(name)) return realm.systemGroupId(REALM_GROUP_SETTINGS[name].defaultGroup);
  if (Object.hasOwn(DEFAULT_SETTINGS, name)) return DEFAULT_SETTINGS[name];
  throw new Error(`unknown realm setting ${name}`);
}

export function realmGroupSetting(realm: RealmState, name: string): GroupSetting {
  if (!isRealmGroupSetting(name)) throw new Error(`${name} is not a realm permission group setting`);
  return realmSetting(realm, name) as GroupSetting;
}

/**
 * Whether a user has a realm permission. Settings that do not allow role:everyone never grant
 * the permission to guests, whatever group they name (the reference's allow_everyone_group).
 */
export function userHasRealmPermission(realm: RealmState, user: UserRecord, name: string): boolean {
  if (!REALM_GROUP_SETTINGS[name].allowEveryone && user.role === ROLE.guest) return false;
  return userHasPermission(realm, user, realmGroupSetting(realm, name));
}

/** A group setting as the API shows it: anonymous groups list only active members. */
export function groupSettingForApi(realm: RealmState, value: GroupSetting): GroupSetting {
  if (typeof value === 'number') return value;
  return {
    direct_members: value.direct_members.filter((id) => realm.users.get(id)?.isActive === true),
    direct_subgroups: [...value.direct_subgroups],
  };
}

/** `server_supported_permission_settings.realm` of a /register response. */
export function realmPermissionSettingsForApi(): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, r] of Object.entries(REALM_GROUP_SETTINGS)) {
    out[name] = {
      require_system_group: r.requireSystemGroup,
      allow_internet_group: false,
      allow_nobody_group: r.allowNobody,
      allow_everyone_group: r.allowEveryone,
      default_group_name: r.defaultGroup,
      default_for_system_groups: null,
      allowed_system_groups: r.allowedSystemGroups,
    };
  }
  return out;
}

// The deprecated enum settings /register still carries, derived from their group settings the
// way the reference does: the enum of the system group when the old enum had one, else the
// most permissive value the old enum allowed.
const POLICY_OF_GROUP: Record<string, number> = {
  'role:owners': 7,
  'role:administrators': 2,
  'role:moderators': 4,
  'role:fullmembers': 3,
  'role:members': 1,
  'role:everyone': 5,
  'role:nobody': 6,
};
const WILDCARD_POLICY_OF_GROUP: Record<string, number> = {
  'role:everyone': 1,
  'role:members': 2,
  'role:fullmembers': 3,
  'role:administrators': 5,
  'role:nobody': 6,
  'role:moderators': 7,
};

function legacyPolicy(realm: RealmState, name: string, allowed: number[], fallback: number, map = POLICY_OF_GROUP): number {
  const value = realmGroupSetting(realm, name);
  const group = typeof value === 'number' ? realm.groups.get(value) : undefined;
  const policy = group?.isSystemGroup ? map[group.name] : undefined;
  return policy !== undefined && allowed.includes(policy) ? policy : fallback;
}

/** The custom profile field types for external accounts that every realm offers. */
const DEFAULT_EXTERNAL_ACCOUNTS = {
  twitter: { text: 'Twitter', url_pattern: 'https://twitter.com/%(username)s', name: 'Twitter username', hint: '' },
  github: { text: 'GitHub', url_pattern: 'https://github.com/%(username)s', name: 'GitHub username', hint: '' },
};

/** The fake email domain of the realm's bots: its host, or the host name when a port makes that no email domain. */
export function botDomain(url: string): string {
  const { host, hostname } = new URL(url);
  return host.includes(':') ? hostname : host;
}

/**
 * The URL of the realm's icon, logo or night logo: the uploaded image's, with its version (the
 * reference's local-storage form), or the default one.
 */
export function realmImageUrl(realm: RealmState, image: RealmImage, url: string): string {
  if (realmSetting(realm, `${image}_source`) === 'U') return `/user_avatars/${realm.id}/realm/${image}.png?version=${realm.realm.imageVersions?.[image] ?? 1}`;
  return image === 'icon' ? `${url}/static/images/logo/zulip-icon-128x128.png` : '/static/images/logo/zulip-org-logo.svg?version=0';
}

export interface RegisterRealmOptions {
  /** The realm's URL (Shard.realmUrl). */
  url: string;
  /** A spectator (anonymous web-public visitor) sees editing off and presence disabled. */
  spectator?: boolean;
}

/**
 * The `realm_*` keys of a /register response for `fetch_event_types` including `realm`, from the
 * realm's stored settings. Keys of other event types (realm_users, realm_emoji, realm_user_groups,
 * realm_user_settings_defaults, ...) and the server-level keys (max_*, server_*) are not here.
 */
export function registerRealmFields(realm: RealmState, opts: RegisterRealmOptions): Record<string, unknown> {
  const get = (name: string) => realmSetting(realm, name);
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(DEFAULT_SETTINGS)) out[`realm_${name}`] = get(name);
  for (const name of Object.keys(REALM_GROUP_SETTINGS)) out[`realm_${name}`] = groupSettingForApi(realm, realmGroupSetting(realm, name));
  const record = realm.realm;
  Object.assign(out, {
    realm_name: record.name,
    realm_description: record.description,
    realm_date_created: record.dateCreated,
    realm_allow_edit_history: get('message_edit_history_visibility_policy') !== 'none',
    realm_create_public_stream_policy: legacyPolicy(realm, 'can_create_public_channel_group', [1, 2, 3, 4], 1),
    realm_create_private_stream_policy: legacyPolicy(realm, 'can_create_private_channel_group', [1, 2, 3, 4], 1),
    realm_create_web_public_stream_policy: legacyPolicy(realm, 'can_create_web_public_channel_group', [2, 4, 6, 7], 4),
    realm_wildcard_mention_policy: legacyPolicy(realm, 'can_mention_many_users_group', [1, 2, 3, 5, 6, 7], 1, WILDCARD_POLICY_OF_GROUP),
    // Email and password is the one authentication backend this server has.
    realm_authentication_methods: { Email: { enabled: true, available: true } },
    realm_email_auth_enabled: true,
    realm_password_auth_enabled: true,
    realm_available_video_chat_providers: { disabled: { name: 'None', id: 0 }, jitsi_meet: { name: 'Jitsi Meet', id: 1 } },
    realm_icon_url: realmImageUrl(realm, 'icon', opts.url),
    realm_logo_url: realmImageUrl(realm, 'logo', opts.url),
    realm_night_logo_url: realmImageUrl(realm, 'night_logo', opts.url),
    realm_bot_domain: botDomain(opts.url),
    realm_url: opts.url,
    realm_uri: opts.url,
    realm_is_zephyr_mirror_realm: false,
    realm_upload_quota_mib: null,
    realm_default_external_accounts: DEFAULT_EXTERNAL_ACCOUNTS,
    realm_empty_topic_display_name: 'general chat',
  });
  if (opts.spectator) {
    out.realm_allow_message_editing = false;
    out.realm_presence_disabled = true;
  }
  return out;
}
