/**
 * Realm settings and their reference defaults (Zulip 10.2). Names are the reference's, without
 * the `realm_` prefix that /register adds. Permission settings hold a group id; a new realm gets
 * them from the system group names below.
 */
const DAY = 86400;

export const DEFAULT_SETTINGS: Record<string, unknown> = {
  allow_message_editing: true,
  message_content_edit_limit_seconds: 600,
  move_messages_within_stream_limit_seconds: 7 * DAY,
  move_messages_between_streams_limit_seconds: 7 * DAY,
  mandatory_topics: false,
  enable_spectator_access: false,
  waiting_period_threshold: 0,
  message_content_delete_limit_seconds: null,
  default_language: 'en',
};

/** Permission group settings of a realm, with the system group each defaults to. */
export const DEFAULT_GROUP_SETTINGS: Record<string, string> = {
  can_resolve_topics_group: 'role:everyone',
  can_move_messages_between_channels_group: 'role:members',
  can_move_messages_between_topics_group: 'role:everyone',
  can_mention_many_users_group: 'role:administrators',
  can_create_public_channel_group: 'role:members',
  can_create_private_channel_group: 'role:members',
  can_create_web_public_channel_group: 'role:owners',
  can_add_subscribers_group: 'role:members',
  can_invite_users_group: 'role:members',
  can_delete_any_message_group: 'role:administrators',
  can_delete_own_message_group: 'role:everyone',
  direct_message_permission_group: 'role:everyone',
  direct_message_initiator_group: 'role:everyone',
};

export function defaultRealmSettings(groupId: (name: string) => number): Record<string, unknown> {
  const settings: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  for (const [name, group] of Object.entries(DEFAULT_GROUP_SETTINGS)) settings[name] = groupId(group);
  return settings;
}
