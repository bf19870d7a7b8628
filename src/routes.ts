/**
 * Every endpoint, in one table: method, path (as the OpenAPI reference writes it, under
 * /api/v1) and the shard operation that serves it. The operations live in src/api/<resource>/
 * and are collected in src/host/registry.ts; test/routes.test.ts checks the two agree.
 */
export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface Route {
  method: Method;
  path: string;
  op: string;
  /** A larger request body than `requestLimits.bodyBytes` allows, for the few that need one. */
  bodyBytes?: number;
  /** A password login: failures for unknown usernames count against the address (front/guard.ts). */
  login?: true;
  /**
   * The body is a service's own payload (incoming webhooks), read whatever its content type, as
   * the reference reads a webhook's body: the front end keeps its raw text (front/body.ts).
   */
  payload?: true;
}

const r = (method: Method, path: string, op: string, bodyBytes?: number): Route => (bodyBytes ? { method, path, op, bodyBytes } : { method, path, op });

/**
 * Bot storage holds up to 10,000,000 characters per bot (the reference's limit), which one PUT
 * may fill: the body is that, JSON-quoted and form-encoded, so up to a few times as many bytes.
 */
const BOT_STORAGE_BODY_BYTES = 32 * 1024 * 1024;

export const routes: readonly Route[] = [
  r('GET', '/server_settings', 'server.settings'),
  { ...r('POST', '/fetch_api_key', 'server.fetchApiKey'), login: true },

  r('PATCH', '/realm', 'realm.update'),
  r('POST', '/realm/test_welcome_bot_custom_message', 'realm.testWelcomeBotCustomMessage'),
  r('GET', '/realm/linkifiers', 'linkifiers.list'),
  r('PATCH', '/realm/linkifiers', 'linkifiers.reorder'),
  r('POST', '/realm/filters', 'linkifiers.add'),
  r('PATCH', '/realm/filters/{filter_id}', 'linkifiers.update'),
  r('DELETE', '/realm/filters/{filter_id}', 'linkifiers.remove'),
  r('GET', '/realm/profile_fields', 'profileFields.list'),
  r('POST', '/realm/profile_fields', 'profileFields.create'),
  r('PATCH', '/realm/profile_fields', 'profileFields.reorder'),
  r('PATCH', '/realm/profile_fields/{field_id}', 'profileFields.update'),
  r('DELETE', '/realm/profile_fields/{field_id}', 'profileFields.remove'),
  r('PATCH', '/realm/user_settings_defaults', 'userDefaults.update'),
  r('GET', '/realm/emoji', 'emoji.list'),
  r('POST', '/realm/emoji/{emoji_name}', 'emoji.upload'),
  r('DELETE', '/realm/emoji/{emoji_name}', 'emoji.remove'),
  r('POST', '/realm/playgrounds', 'playgrounds.add'),
  r('DELETE', '/realm/playgrounds/{playground_id}', 'playgrounds.remove'),

  r('PATCH', '/settings', 'settings.update'),
  // Deprecated aliases since feature level 80, still used by older clients.
  r('PATCH', '/settings/display', 'settings.update'),
  r('PATCH', '/settings/notifications', 'settings.update'),

  r('GET', '/users', 'users.list'),
  r('POST', '/users', 'users.create'),
  r('GET', '/users/me', 'users.me'),
  r('DELETE', '/users/me', 'users.deactivateOwn'),
  r('POST', '/users/me/status', 'userStatus.updateOwn'),
  r('PATCH', '/users/me/profile_data', 'profileFields.setOwn'),
  r('DELETE', '/users/me/profile_data', 'profileFields.removeOwn'),
  r('POST', '/users/me/muted_users/{muted_user_id}', 'muting.mute'),
  r('DELETE', '/users/me/muted_users/{muted_user_id}', 'muting.unmute'),
  r('GET', '/users/me/alert_words', 'alertWords.list'),
  r('POST', '/users/me/alert_words', 'alertWords.add'),
  r('DELETE', '/users/me/alert_words', 'alertWords.remove'),
  r('POST', '/users/me/api_key/regenerate', 'users.regenerateApiKey'),
  r('POST', '/users/me/avatar', 'avatars.set'),
  r('DELETE', '/users/me/avatar', 'avatars.remove'),
  // One route serves both /users/{user_id} and /users/{email}: a path segment cannot tell them
  // apart before the handler looks at it.
  r('GET', '/users/{user_id_or_email}', 'users.get'),
  r('PATCH', '/users/{user_id_or_email}', 'users.update'),
  r('DELETE', '/users/{user_id}', 'users.deactivate'),
  r('POST', '/users/{user_id}/reactivate', 'users.reactivate'),
  r('GET', '/users/{user_id}/status', 'userStatus.get'),
  r('POST', '/users/{user_id}/status', 'userStatus.update'),

  r('POST', '/bots', 'bots.create'),
  r('GET', '/bots', 'bots.list'),
  r('PATCH', '/bots/{bot_id}', 'bots.update'),
  r('DELETE', '/bots/{bot_id}', 'bots.deactivate'),
  r('POST', '/bots/{bot_id}/api_key/regenerate', 'bots.regenerateApiKey'),
  r('GET', '/bot_storage', 'botStorage.get'),
  r('PUT', '/bot_storage', 'botStorage.put', BOT_STORAGE_BODY_BYTES),
  r('DELETE', '/bot_storage', 'botStorage.remove'),

  // Incoming webhooks: the integration's name is in the path, the bot's API key in the query.
  { ...r('POST', '/external/{integration}', 'webhooks.incoming'), payload: true },

  r('POST', '/channels/create', 'streams.createChannel'),
  r('GET', '/streams', 'streams.list'),
  r('GET', '/streams/{stream_id}', 'streams.get'),
  r('GET', '/streams/{stream_id}/email_address', 'streams.emailAddress'),
  r('PATCH', '/streams/{stream_id}', 'streams.update'),
  r('DELETE', '/streams/{stream_id}', 'streams.archive'),
  r('GET', '/streams/{stream_id}/members', 'streams.members'),
  r('POST', '/streams/{stream_id}/delete_topic', 'streams.deleteTopic'),
  r('GET', '/get_stream_id', 'streams.getId'),

  r('POST', '/default_streams', 'defaultStreams.add'),
  r('DELETE', '/default_streams', 'defaultStreams.remove'),
  r('POST', '/default_stream_groups/create', 'defaultStreams.createGroup'),
  r('PATCH', '/default_stream_groups/{group_id}', 'defaultStreams.updateGroup'),
  r('DELETE', '/default_stream_groups/{group_id}', 'defaultStreams.removeGroup'),
  r('PATCH', '/default_stream_groups/{group_id}/streams', 'defaultStreams.updateGroupStreams'),
  r('GET', '/realm/domains', 'realmDomains.list'),
  r('POST', '/realm/domains', 'realmDomains.add'),
  r('PATCH', '/realm/domains/{domain}', 'realmDomains.change'),
  r('DELETE', '/realm/domains/{domain}', 'realmDomains.remove'),
  r('POST', '/realm/icon', 'realmImages.setIcon'),
  r('DELETE', '/realm/icon', 'realmImages.removeIcon'),
  r('POST', '/realm/logo', 'realmImages.setLogo'),
  r('DELETE', '/realm/logo', 'realmImages.removeLogo'),

  // Channel folders: feature levels 389-418, after the 10.2 OpenAPI description.
  r('POST', '/channel_folders/create', 'channelFolders.create'),
  r('GET', '/channel_folders', 'channelFolders.list'),
  r('PATCH', '/channel_folders', 'channelFolders.reorder'),
  r('PATCH', '/channel_folders/{channel_folder_id}', 'channelFolders.update'),

  r('GET', '/users/me/subscriptions', 'subscriptions.list'),
  r('POST', '/users/me/subscriptions', 'subscriptions.add'),
  r('DELETE', '/users/me/subscriptions', 'subscriptions.remove'),
  r('PATCH', '/users/me/subscriptions', 'subscriptions.update'),
  r('GET', '/users/{user_id}/subscriptions/{stream_id}', 'subscriptions.status'),
  r('POST', '/users/me/subscriptions/properties', 'subscriptions.updateProperties'),
  r('PATCH', '/users/me/subscriptions/muted_topics', 'userTopics.muteLegacy'),
  r('POST', '/user_topics', 'userTopics.update'),

  r('POST', '/register', 'events.register'),
  r('GET', '/events', 'events.get'),
  r('DELETE', '/events', 'events.delete'),
  r('POST', '/typing', 'typing.set'),
  r('POST', '/messages/{message_id}/typing', 'typing.editMessage'),
  r('POST', '/users/me/presence', 'presence.update'),
  r('GET', '/realm/presence', 'presence.realm'),
  r('GET', '/users/{user_id_or_email}/presence', 'presence.user'),

  r('POST', '/messages', 'messages.send'),
  // Literal segments before parameters until the router prefers them itself.
  r('GET', '/messages/matches_narrow', 'messages.matchesNarrow'),
  r('GET', '/messages/{message_id}', 'messages.get'),
  r('GET', '/messages/{message_id}/read_receipts', 'messages.readReceipts'),
  r('GET', '/users/me/{stream_id}/topics', 'messages.topics'),
  r('PATCH', '/messages/{message_id}', 'messages.update'),
  r('DELETE', '/messages/{message_id}', 'messages.delete'),
  r('GET', '/messages/{message_id}/history', 'messages.history'),
  r('GET', '/messages', 'messages.list'),
  r('POST', '/messages/flags', 'messages.updateFlags'),
  r('POST', '/messages/flags/narrow', 'messages.updateFlagsForNarrow'),
  r('POST', '/mark_all_as_read', 'messages.markAllAsRead'),
  r('POST', '/mark_stream_as_read', 'messages.markStreamAsRead'),
  r('POST', '/mark_topic_as_read', 'messages.markTopicAsRead'),
  r('POST', '/messages/{message_id}/reactions', 'messages.addReaction'),
  r('DELETE', '/messages/{message_id}/reactions', 'messages.removeReaction'),
  r('POST', '/messages/render', 'messages.render'),
  r('POST', '/messages/{message_id}/report', 'messages.report'),
  r('POST', '/submessage', 'submessages.add'),
  r('POST', '/user_uploads', 'uploads.upload'),
  r('GET', '/user_uploads/{realm_id_str}/{filename*}', 'uploads.file'),
  r('GET', '/attachments', 'attachments.list'),
  r('DELETE', '/attachments/{attachment_id}', 'attachments.remove'),

  r('GET', '/invites', 'invites.list'),
  r('POST', '/invites', 'invites.create'),
  r('POST', '/invites/multiuse', 'invites.createMultiuse'),
  r('PATCH', '/invites/multiuse/{invite_id}', 'invites.editMultiuse'),
  r('DELETE', '/invites/multiuse/{invite_id}', 'invites.revokeMultiuse'),
  r('DELETE', '/invites/{invite_id}', 'invites.revoke'),
  r('POST', '/invites/{invite_id}/resend', 'invites.resend'),

  r('POST', '/user_groups/create', 'userGroups.create'),
  r('GET', '/user_groups', 'userGroups.list'),
  r('PATCH', '/user_groups/{user_group_id}', 'userGroups.update'),
  r('POST', '/user_groups/{user_group_id}/deactivate', 'userGroups.deactivate'),
  r('POST', '/user_groups/{user_group_id}/members', 'userGroups.members'),
  r('GET', '/user_groups/{user_group_id}/members', 'userGroups.listMembers'),
  r('GET', '/user_groups/{user_group_id}/members/{user_id}', 'userGroups.isMember'),
  r('POST', '/user_groups/{user_group_id}/subgroups', 'userGroups.subgroups'),
  r('GET', '/user_groups/{user_group_id}/subgroups', 'userGroups.listSubgroups'),

  r('POST', '/users/me/apns_device_token', 'devices.addApns'),
  r('DELETE', '/users/me/apns_device_token', 'devices.removeApns'),
  r('POST', '/users/me/android_gcm_reg_id', 'devices.addGcm'),
  r('DELETE', '/users/me/android_gcm_reg_id', 'devices.removeGcm'),

  r('GET', '/calls/bigbluebutton/create', 'calls.bigBlueButtonCreate'),
  r('POST', '/mobile_push/test_notification', 'devices.testNotification'),
  r('GET', '/export/realm', 'exports.list'),
  r('POST', '/export/realm', 'exports.create'),
  r('GET', '/export/realm/consents', 'exports.consents'),
  // Not in the 10.2 description; the reference's URL table has it since 2.1.
  r('DELETE', '/export/realm/{export_id}', 'exports.remove'),

  r('GET', '/drafts', 'drafts.list'),
  r('POST', '/drafts', 'drafts.create'),
  r('PATCH', '/drafts/{draft_id}', 'drafts.edit'),
  r('DELETE', '/drafts/{draft_id}', 'drafts.remove'),
  r('GET', '/navigation_views', 'navigationViews.list'),
  r('POST', '/navigation_views', 'navigationViews.add'),
  r('PATCH', '/navigation_views/{fragment*}', 'navigationViews.update'),
  r('DELETE', '/navigation_views/{fragment*}', 'navigationViews.remove'),
  r('GET', '/saved_snippets', 'savedSnippets.list'),
  r('POST', '/saved_snippets', 'savedSnippets.create'),
  r('PATCH', '/saved_snippets/{saved_snippet_id}', 'savedSnippets.edit'),
  r('DELETE', '/saved_snippets/{saved_snippet_id}', 'savedSnippets.remove'),
  r('GET', '/scheduled_messages', 'scheduledMessages.list'),
  r('POST', '/scheduled_messages', 'scheduledMessages.create'),
  r('PATCH', '/scheduled_messages/{scheduled_message_id}', 'scheduledMessages.edit'),
  r('DELETE', '/scheduled_messages/{scheduled_message_id}', 'scheduledMessages.remove'),
  // Feature levels 381 and 399: newer than the 10.2 description (test/helpers/undocumented.ts).
  r('GET', '/reminders', 'reminders.list'),
  r('POST', '/reminders', 'reminders.create'),
  r('DELETE', '/reminders/{reminder_id}', 'reminders.remove'),
];

/**
 * Pages outside /api/v1, for people rather than clients: the front end answers them with the
 * HTML the operation renders (front/pages.ts).
 */
export const pageRoutes: readonly Route[] = [
  // An invitation link, as the reference writes it (trailing slash; one without is accepted).
  r('GET', '/join/{key}/', 'invites.joinPage'),
  r('POST', '/join/{key}/', 'invites.join'),
  // Uploaded avatars, at the URLs avatar_url names (an image, not a page: front/pages.ts).
  r('GET', '/user_avatars/{realm_id_str}/{file_name}', 'avatars.image'),
  // The organization's uploaded icon and logos (api/realm-images/).
  r('GET', '/user_avatars/{realm_id_str}/realm/{file_name}', 'realmImages.file'),
  // A BigBlueButton call's join link (api/calls/): this server has no BigBlueButton to join.
  r('GET', '/calls/bigbluebutton/join', 'calls.bigBlueButtonJoin'),
  // The web app (front/web-assets.ts sends it once the session is checked), and its login,
  // logout and sign-up pages (api/sessions/), at the reference's paths.
  r('GET', '/', 'sessions.app'),
  r('GET', '/login/', 'sessions.loginPage'),
  { ...r('POST', '/login/', 'sessions.login'), login: true },
  r('GET', '/accounts/logout/', 'sessions.logoutPage'),
  r('POST', '/accounts/logout/', 'sessions.logout'),
  r('GET', '/accounts/home/', 'sessions.signupPage'),
  // "Forgot your password?" (api/password-reset/): the request form and the link it mails.
  r('GET', '/accounts/password/reset/', 'passwordReset.form'),
  r('POST', '/accounts/password/reset/', 'passwordReset.request'),
  r('GET', '/accounts/password/reset/{token}/', 'passwordReset.chooseForm'),
  r('POST', '/accounts/password/reset/{token}/', 'passwordReset.choose'),
  // An address change's link (api/email-change/): a page with a button, which posts the key.
  r('GET', '/accounts/confirm_new_email/{key}', 'emailChange.confirmForm'),
  r('POST', '/accounts/confirm_new_email/', 'emailChange.confirm'),
  // Data exports' archives, at their export_url (api/exports/).
  r('GET', '/user_avatars/exports/{realm_id_str}/{secret}/{file_name}', 'exports.file'),
  // The unsubscribe link of every email (api/notify/unsubscribe.ts); POST is a mail client's one-click unsubscribe.
  r('GET', '/accounts/unsubscribe/{email_type}/{confirmation_key}', 'notify.unsubscribe'),
  r('POST', '/accounts/unsubscribe/{email_type}/{confirmation_key}', 'notify.unsubscribePost'),
];
