/**
 * Every endpoint, in one table: method, path (as the OpenAPI reference writes it, under
 * /api/v1) and the shard operation that serves it. The operations live in src/api/<resource>/
 * and are collected in src/api/registry.ts; test/routes.test.ts checks the two agree.
 */
export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface Route {
  method: Method;
  path: string;
  op: string;
}

const r = (method: Method, path: string, op: string): Route => ({ method, path, op });

export const routes: readonly Route[] = [
  r('GET', '/server_settings', 'server.settings'),
  r('POST', '/fetch_api_key', 'server.fetchApiKey'),

  r('PATCH', '/realm', 'realm.update'),
  r('GET', '/realm/linkifiers', 'linkifiers.list'),
  r('PATCH', '/realm/linkifiers', 'linkifiers.reorder'),
  r('POST', '/realm/filters', 'linkifiers.add'),
  r('PATCH', '/realm/filters/{filter_id}', 'linkifiers.update'),
  r('DELETE', '/realm/filters/{filter_id}', 'linkifiers.remove'),
  r('POST', '/realm/playgrounds', 'playgrounds.add'),
  r('DELETE', '/realm/playgrounds/{playground_id}', 'playgrounds.remove'),

  r('PATCH', '/settings', 'settings.update'),
  // Deprecated aliases since feature level 80, still used by older clients.
  r('PATCH', '/settings/display', 'settings.update'),
  r('PATCH', '/settings/notifications', 'settings.update'),

  r('GET', '/users', 'users.list'),
  r('POST', '/users', 'users.create'),
  r('GET', '/users/me', 'users.me'),
  r('POST', '/users/me/api_key/regenerate', 'users.regenerateApiKey'),
  // One route serves both /users/{user_id} and /users/{email}: a path segment cannot tell them
  // apart before the handler looks at it.
  r('GET', '/users/{user_id_or_email}', 'users.get'),
  r('PATCH', '/users/{user_id_or_email}', 'users.update'),
  r('DELETE', '/users/{user_id}', 'users.deactivate'),
  r('POST', '/users/{user_id}/reactivate', 'users.reactivate'),

  r('POST', '/bots', 'bots.create'),
  r('GET', '/bots', 'bots.list'),
  r('PATCH', '/bots/{bot_id}', 'bots.update'),
  r('DELETE', '/bots/{bot_id}', 'bots.deactivate'),
  r('POST', '/bots/{bot_id}/api_key/regenerate', 'bots.regenerateApiKey'),
  r('GET', '/bot_storage', 'botStorage.get'),
  r('PUT', '/bot_storage', 'botStorage.put'),
  r('DELETE', '/bot_storage', 'botStorage.remove'),

  // Incoming webhooks: the integration's name is in the path, the bot's API key in the query.
  r('POST', '/external/{integration}', 'webhooks.incoming'),

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
  r('DELETE', '/invites/multiuse/{invite_id}', 'invites.revokeMultiuse'),
  r('DELETE', '/invites/{invite_id}', 'invites.revoke'),
  r('POST', '/invites/{invite_id}/resend', 'invites.resend'),

  r('POST', '/users/me/apns_device_token', 'devices.addApns'),
  r('DELETE', '/users/me/apns_device_token', 'devices.removeApns'),
  r('POST', '/users/me/android_gcm_reg_id', 'devices.addGcm'),
  r('DELETE', '/users/me/android_gcm_reg_id', 'devices.removeGcm'),
];

/**
 * Pages outside /api/v1, for people rather than clients: the front end answers them with the
 * HTML the operation renders (front/pages.ts).
 */
export const pageRoutes: readonly Route[] = [
  // An invitation link, as the reference writes it (trailing slash; one without is accepted).
  r('GET', '/join/{key}/', 'invites.joinPage'),
  r('POST', '/join/{key}/', 'invites.join'),
];
