import { EMOJI_API_PATH } from '../../markdown/emoji.js';
import type { RealmState } from '../../model/realm-state.js';
import { realmPermissionSettingsForApi, realmSetting, registerRealmFields } from '../../model/realm-settings.js';
import { notifyConfig } from '../../lib/config.js';
import type { Shard } from '../../shard/shard.js';
import { MAX_FILE_UPLOAD_SIZE_MIB } from '../../store/uploads.js';
import { MAX_MESSAGE_LENGTH, MAX_TOPIC_LENGTH } from '../messages/send.js';
import { OFFLINE_THRESHOLD_SECS, PRESENCE_PING_INTERVAL_SECS } from '../presence/presence.js';
import { CHANNEL_SETTING_RULES, MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH } from '../streams/checks.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../model/message.js';

/**
 * The `realm` section of /register: the realm's settings (model/realm-settings.ts) and the
 * server-level keys the reference sends with them, since clients rarely want one without the
 * other.
 */

/** When this shard thread started: the reference's server_generation, which changes on restart. */
export const SERVER_GENERATION = Math.floor(Date.now() / 1000);

/** The reference's typing protocol timings (server_typing_* in /register). */
const TYPING_STARTED_EXPIRY_MS = 45_000;
const TYPING_STOPPED_WAIT_MS = 5_000;
const TYPING_STARTED_WAIT_MS = 10_000;

/** The reference's password policy defaults (the minimum length is config.passwordMinLength). */
const PASSWORD_MAX_LENGTH = 100;
const PASSWORD_MIN_GUESSES = 10_000;

/** The reference's default Jitsi server, for realms that name none. */
const SERVER_JITSI_URL = 'https://meet.jit.si';

const GIPHY_RATING_OPTIONS = {
  disabled: { name: 'GIPHY integration disabled', id: 0 },
  y: { name: 'Allow GIFs rated Y (Very young audience)', id: 1 },
  g: { name: 'Allow GIFs rated G (General audience)', id: 2 },
  pg: { name: 'Allow GIFs rated PG (Parental guidance)', id: 3 },
  pg13: { name: 'Allow GIFs rated PG-13 (Parental guidance - under 13)', id: 4 },
  r: { name: 'Allow GIFs rated R (Restricted)', id: 5 },
};

/** The channel and group permission settings' metadata, as the reference's 10.2 defines it. */
function permissionSetting(allowNobody: boolean, allowEveryone: boolean, defaultGroup: string, forSystemGroups: string | null = null) {
  return {
    require_system_group: false,
    allow_internet_group: false,
    allow_nobody_group: allowNobody,
    allow_everyone_group: allowEveryone,
    default_group_name: defaultGroup,
    default_for_system_groups: forSystemGroups,
    allowed_system_groups: [],
  };
}

function channelPermissionSettings(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, rule] of Object.entries(CHANNEL_SETTING_RULES)) {
    // 10.2 names the creator default "stream_creator_or_nobody".
    out[name] = permissionSetting(true, rule.allowEveryone, rule.default === 'channel_creator' ? 'stream_creator_or_nobody' : rule.default);
  }
  return out;
}

const GROUP_PERMISSION_SETTINGS = {
  can_add_members_group: permissionSetting(true, false, 'group_creator', 'role:nobody'),
  can_join_group: permissionSetting(true, false, 'role:nobody', 'role:nobody'),
  can_leave_group: permissionSetting(true, true, 'role:everyone', 'role:nobody'),
  can_manage_group: permissionSetting(true, false, 'group_creator', 'role:nobody'),
  can_mention_group: permissionSetting(true, true, 'role:everyone', 'role:nobody'),
  can_remove_members_group: permissionSetting(true, false, 'role:nobody', 'role:nobody'),
};

export function realmSection(shard: Shard, realm: RealmState, opts: { longpollTimeoutSecs: number }): Record<string, unknown> {
  const url = shard.realmUrl(realm.realm);
  const jitsi = realmSetting(realm, 'jitsi_server_url') as string | null;
  return {
    ...registerRealmFields(realm, { url }),
    realm_empty_topic_display_name: EMPTY_TOPIC_DISPLAY_NAME,
    // Whether the server sends digests at all (api/notify/digest.ts): the setting is shown only then.
    settings_send_digest_emails: notifyConfig(shard.config).digestEmails,
    max_message_length: MAX_MESSAGE_LENGTH,
    max_topic_length: MAX_TOPIC_LENGTH,
    max_stream_name_length: MAX_NAME_LENGTH,
    max_stream_description_length: MAX_DESCRIPTION_LENGTH,
    max_file_upload_size_mib: MAX_FILE_UPLOAD_SIZE_MIB,
    max_avatar_file_size_mib: 5,
    max_icon_file_size_mib: 5,
    max_logo_file_size_mib: 5,
    server_typing_started_expiry_period_milliseconds: TYPING_STARTED_EXPIRY_MS,
    server_typing_stopped_wait_period_milliseconds: TYPING_STOPPED_WAIT_MS,
    server_typing_started_wait_period_milliseconds: TYPING_STARTED_WAIT_MS,
    server_presence_ping_interval_seconds: PRESENCE_PING_INTERVAL_SECS,
    server_presence_offline_threshold_seconds: OFFLINE_THRESHOLD_SECS,
    event_queue_longpoll_timeout_seconds: opts.longpollTimeoutSecs,
    server_emoji_data_url: `${url}${EMOJI_API_PATH}`,
    server_generation: SERVER_GENERATION,
    server_needs_upgrade: false,
    server_inline_image_preview: true,
    server_inline_url_embed_preview: false,
    server_avatar_changes_disabled: false,
    server_name_changes_disabled: false,
    server_web_public_streams_enabled: true,
    server_can_summarize_topics: false,
    server_thumbnail_formats: [],
    server_jitsi_server_url: SERVER_JITSI_URL,
    jitsi_server_url: jitsi ?? SERVER_JITSI_URL,
    server_min_deactivated_realm_deletion_days: 14,
    server_max_deactivated_realm_deletion_days: null,
    development_environment: false,
    password_min_length: shard.config.passwordMinLength,
    password_max_length: PASSWORD_MAX_LENGTH,
    password_min_guesses: PASSWORD_MIN_GUESSES,
    giphy_rating_options: GIPHY_RATING_OPTIONS,
    zulip_plan_is_not_limited: true,
    upgrade_text_for_wide_organization_logo: 'Available on Zulip Cloud Standard. Upgrade to access.',
    server_supported_permission_settings: {
      realm: realmPermissionSettingsForApi(),
      stream: channelPermissionSettings(),
      group: GROUP_PERMISSION_SETTINGS,
    },
  };
}
