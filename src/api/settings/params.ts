import { EMOJISET_CHOICES } from '../../model/user-settings.js';

/**
 * The personal preference settings PATCH /settings takes (the reference's update-settings at
 * feature level 372), as JSON schemas for the operation's parameters. Kept apart from the
 * operation so that PATCH /realm/user_settings_defaults can take the same definitions.
 *
 * Values the schema cannot judge (a language code, a sound name, a time zone) are checked by
 * the action, with the reference's messages.
 */
const BOOLEAN_SETTINGS = [
  'twenty_four_hour_time', 'starred_message_counts', 'receives_typing_notifications', 'web_suggest_update_timezone',
  'fluid_layout_width', 'high_contrast_mode', 'enable_drafts_synchronization', 'translate_emoticons',
  'display_emoji_reaction_users', 'web_escape_navigates_to_home_view', 'left_side_userlist', 'hide_ai_features',
  'enable_stream_desktop_notifications', 'enable_stream_email_notifications', 'enable_stream_push_notifications',
  'enable_stream_audible_notifications', 'enable_desktop_notifications', 'enable_sounds', 'enable_offline_email_notifications',
  'enable_offline_push_notifications', 'enable_online_push_notifications', 'enable_followed_topic_desktop_notifications',
  'enable_followed_topic_email_notifications', 'enable_followed_topic_push_notifications',
  'enable_followed_topic_audible_notifications', 'enable_digest_emails', 'enable_marketing_emails', 'enable_login_emails',
  'message_content_in_email_notifications', 'pm_content_in_desktop_notifications', 'wildcard_mentions_notify',
  'enable_followed_topic_wildcard_mentions_notify', 'automatically_follow_topics_where_mentioned', 'presence_enabled',
  'enter_sends', 'send_private_typing_notifications', 'send_stream_typing_notifications', 'send_read_receipts',
  'allow_private_data_export', 'web_navigate_to_sent_message',
];

/** Integer settings and the values they take (see "Preference settings" in the spec). */
const CHOICE_SETTINGS: Record<string, number[]> = {
  web_mark_read_on_scroll_policy: [1, 2, 3],
  // The spec names all four views; the 10.2 description lists only 1 and 2 (3 and 4 came later).
  web_channel_default_view: [1, 2, 3, 4],
  color_scheme: [1, 2, 3],
  demote_inactive_streams: [1, 2, 3],
  user_list_style: [1, 2, 3],
  web_stream_unreads_count_display_policy: [1, 2, 3],
  desktop_icon_count_display: [1, 2, 3, 4],
  realm_name_in_email_notifications_policy: [1, 2, 3],
  automatically_follow_topics_policy: [1, 2, 3, 4],
  automatically_unmute_topics_in_muted_streams_policy: [1, 2, 3, 4],
  email_address_visibility: [1, 2, 3, 4, 5],
};

// The reference stores these in PositiveSmallIntegerFields and checks no range: a value outside
// one is a database error there, a clear 400 here.
const SMALL_POSITIVE = { type: 'integer', minimum: 1, maximum: 32767 };

/** Every preference setting PATCH /settings changes, by name. */
export const preferenceProperties: Record<string, Record<string, unknown>> = {
  web_font_size_px: SMALL_POSITIVE,
  web_line_height_percent: SMALL_POSITIVE,
  // Its range (a week at most) is checked with the reference's own message.
  email_notifications_batching_period_seconds: { type: 'integer' },
  default_language: { type: 'string' },
  web_home_view: { type: 'string', enum: ['recent_topics', 'inbox', 'all_messages'] },
  emojiset: { type: 'string', enum: EMOJISET_CHOICES.map((c) => c.key) },
  web_animate_image_previews: { type: 'string', enum: ['always', 'on_hover', 'never'] },
  notification_sound: { type: 'string' },
  timezone: { type: 'string' },
};
for (const name of BOOLEAN_SETTINGS) preferenceProperties[name] = { type: 'boolean' };
for (const [name, values] of Object.entries(CHOICE_SETTINGS)) preferenceProperties[name] = { type: 'integer', enum: values };

/** The preference settings kept in `UserRecord.settings` (timezone has a field of its own). */
export const STORED_SETTINGS: readonly string[] = Object.keys(preferenceProperties).filter((name) => name !== 'timezone');
