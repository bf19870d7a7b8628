import type { RealmRecord, UserRecord } from './types.js';

/**
 * Personal settings: the reference's defaults for a new user (Zulip 10.2 UserBaseSettings), the
 * choices some of them take, and the legacy flat keys that clients without the
 * user_settings_object capability read instead. Here, below the API, because nearly every
 * feature reads a user's settings (notifications, typing, presence, exports, the importers),
 * and /register (api/events/register-settings.ts) shapes them for clients.
 *
 * A user's stored `settings` hold only what differs from these defaults. A realm's own defaults
 * for new users (`realm_user_settings_defaults`) are in api/user-defaults/.
 */
export const USER_SETTING_DEFAULTS: Record<string, unknown> = {
  twenty_four_hour_time: false,
  // 1 = mark as read on scroll always.
  web_mark_read_on_scroll_policy: 1,
  // 1 = go to the first topic.
  web_channel_default_view: 1,
  starred_message_counts: true,
  receives_typing_notifications: true,
  web_suggest_update_timezone: true,
  fluid_layout_width: false,
  high_contrast_mode: false,
  web_font_size_px: 16,
  web_line_height_percent: 140,
  // 1 = automatic.
  color_scheme: 1,
  translate_emoticons: false,
  display_emoji_reaction_users: true,
  default_language: 'en',
  web_home_view: 'inbox',
  web_escape_navigates_to_home_view: true,
  left_side_userlist: false,
  emojiset: 'google',
  // 1 = demote inactive channels automatically.
  demote_inactive_streams: 1,
  // 3 = with avatars.
  user_list_style: 3,
  web_animate_image_previews: 'on_hover',
  // 2 = unread counts for unmuted channels.
  web_stream_unreads_count_display_policy: 2,
  hide_ai_features: false,
  enable_stream_desktop_notifications: false,
  enable_stream_email_notifications: false,
  enable_stream_push_notifications: false,
  enable_stream_audible_notifications: false,
  notification_sound: 'zulip',
  enable_desktop_notifications: true,
  enable_sounds: true,
  enable_offline_email_notifications: true,
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  enable_followed_topic_desktop_notifications: true,
  enable_followed_topic_email_notifications: true,
  enable_followed_topic_push_notifications: true,
  enable_followed_topic_audible_notifications: true,
  enable_digest_emails: true,
  enable_marketing_emails: true,
  enable_login_emails: true,
  message_content_in_email_notifications: true,
  pm_content_in_desktop_notifications: true,
  wildcard_mentions_notify: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  // 1 = count all unread messages.
  desktop_icon_count_display: 1,
  // 1 = automatic.
  realm_name_in_email_notifications_policy: 1,
  // 3 = follow topics one starts; 2 = unmute topics one sends to.
  automatically_follow_topics_policy: 3,
  automatically_unmute_topics_in_muted_streams_policy: 2,
  automatically_follow_topics_where_mentioned: true,
  presence_enabled: true,
  enter_sends: false,
  enable_drafts_synchronization: true,
  email_notifications_batching_period_seconds: 120,
  send_private_typing_notifications: true,
  send_stream_typing_notifications: true,
  send_read_receipts: true,
  allow_private_data_export: false,
  // 1 = everyone may see the real address, as every view here assumes.
  email_address_visibility: 1,
  web_navigate_to_sent_message: true,
};

/** The names of the sound files the reference ships (static/audio/notification_sounds). */
export const NOTIFICATION_SOUNDS = [
  'ascend', 'beep_boop', 'bink', 'bright', 'brlip', 'chime', 'deep tom', 'ding', 'double tap', 'down', 'dry bongos', 'dutdut',
  'fast ascend', 'flute', 'friendly', 'kick roll', 'loud tintong', 'metallic snare', 'pan', 'practicechat', 'shaker', 'simple',
  'stairs', 'subtle', 'swish', 'tintong', 'up', 'wood block', 'zaping', 'zing', 'zulip',
];

export const EMOJISET_CHOICES = [
  { key: 'google', text: 'Google' },
  { key: 'twitter', text: 'Twitter' },
  { key: 'text', text: 'Plain text' },
  { key: 'google-blob', text: 'Google blobs' },
];

/** The settings /register sends flat (update_display_settings) to clients without user_settings_object. */
export const LEGACY_DISPLAY: readonly string[] = [
  'color_scheme', 'default_language', 'web_home_view', 'demote_inactive_streams', 'emojiset', 'enable_drafts_synchronization',
  'enter_sends', 'fluid_layout_width', 'high_contrast_mode', 'left_side_userlist', 'starred_message_counts', 'translate_emoticons',
  'twenty_four_hour_time',
];

/** The same for update_global_notifications. */
export const LEGACY_NOTIFICATIONS: readonly string[] = [
  'desktop_icon_count_display', 'email_notifications_batching_period_seconds', 'enable_desktop_notifications', 'enable_digest_emails',
  'enable_login_emails', 'enable_marketing_emails', 'enable_offline_email_notifications', 'enable_offline_push_notifications',
  'enable_online_push_notifications', 'enable_sounds', 'enable_stream_audible_notifications', 'enable_stream_desktop_notifications',
  'enable_stream_email_notifications', 'enable_stream_push_notifications', 'message_content_in_email_notifications',
  'notification_sound', 'pm_content_in_desktop_notifications', 'presence_enabled', 'realm_name_in_email_notifications_policy',
  'wildcard_mentions_notify',
];

/** A user's effective value of a personal setting. */
export function userSetting(user: UserRecord, name: string): unknown {
  return Object.hasOwn(user.settings, name) ? user.settings[name] : USER_SETTING_DEFAULTS[name];
}

// A realm's own defaults for new users (realm_user_settings_defaults, set through
// api/user-defaults/), as user creation and /register read them.

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

