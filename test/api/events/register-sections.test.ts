import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

/**
 * POST /register: which sections come for which event types, and the values of the sections
 * that hold settings and server facts. Every answer is checked against the reference's
 * /register schema by the test client.
 */
t.test('POST /register: sections and their selection', async (t) => {
  const ts = await startTestServer(t, { heartbeatSeconds: 1 });
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const register = async (params: Record<string, unknown> = {}) => {
    const res = await ts.as(ann)('POST', '/register', { params });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body as Record<string, any>;
  };
  const keys = (body: Record<string, unknown>) => Object.keys(body).sort();
  const always = ['last_event_id', 'msg', 'queue_id', 'result', 'zulip_feature_level', 'zulip_merge_base', 'zulip_version'];

  t.test('POST /register: without event types every section is sent', async (t) => {
    const body = await register();
    const expected = [
      'alert_words', 'custom_profile_fields', 'custom_profile_field_types', 'max_message_id', 'drafts', 'scheduled_messages', 'muted_topics',
      'muted_users', 'presences', 'presence_last_update_id', 'server_timestamp', 'realm_name', 'realm_user_settings_defaults', 'realm_emoji',
      'realm_linkifiers', 'realm_filters', 'realm_playgrounds', 'realm_user_groups', 'realm_users', 'realm_non_active_users', 'cross_realm_bots',
      'realm_bots', 'recent_private_conversations', 'subscriptions', 'unsubscribed', 'never_subscribed', 'unread_msgs', 'starred_messages',
      'streams', 'realm_default_streams', 'user_settings', 'user_status', 'user_topics', 'server_emoji_data_url', 'enter_sends',
      'enable_sounds', 'server_typing_started_wait_period_milliseconds', 'server_presence_ping_interval_seconds',
    ];
    for (const key of expected) t.ok(key in body, `${key} is sent`);
  });

  t.test('POST /register: fetch_event_types picks the sections', async (t) => {
    t.same(keys(await register({ fetch_event_types: ['message'] })), [...always, 'max_message_id'].sort(), 'message: max_message_id only');
    t.same(keys(await register({ fetch_event_types: ['alert_words', 'muted_users'] })), [...always, 'alert_words', 'muted_users'].sort(), 'two small sections');
    t.same(keys(await register({ fetch_event_types: [] })), always, 'an empty list: the versions only');
    t.same(keys(await register({ fetch_event_types: ['no_such_type'] })), always, 'unknown types are ignored');
    const presence = await register({ fetch_event_types: ['presence'] });
    t.same(keys(presence), [...always, 'presence_last_update_id', 'presences', 'server_timestamp'].sort(), 'presence: three keys');
  });

  t.test('POST /register: event_types selects when fetch_event_types is absent, and not when present', async (t) => {
    t.same(keys(await register({ event_types: ['realm_emoji'] })), [...always, 'realm_emoji'].sort(), 'event_types selects');
    const both = await register({ event_types: ['realm_emoji'], fetch_event_types: ['drafts'] });
    t.same(keys(both), [...always, 'drafts'].sort(), 'fetch_event_types wins for the snapshot');
  });

  t.test('POST /register: unread_msgs needs both message and update_message_flags', async (t) => {
    t.notOk('unread_msgs' in (await register({ fetch_event_types: ['update_message_flags'] })), 'not with the flags alone');
    t.notOk('unread_msgs' in (await register({ fetch_event_types: ['message'] })), 'not with messages alone');
    t.ok('unread_msgs' in (await register({ fetch_event_types: ['message', 'update_message_flags'] })), 'with both');
  });

  t.test('POST /register: muted_topics is left out for clients that ask for user_topic', async (t) => {
    t.same((await register({ fetch_event_types: ['muted_topics'] })).muted_topics, [], 'alone: sent, empty');
    const both = await register({ fetch_event_types: ['muted_topics', 'user_topic'] });
    t.notOk('muted_topics' in both, 'with user_topic: left out');
    t.same(both.user_topics, [], 'user_topics instead, empty');
  });

  t.test('POST /register: the legacy flat settings go only to clients without user_settings_object', async (t) => {
    const types = ['update_display_settings', 'update_global_notifications', 'user_settings'];
    const legacy = await register({ fetch_event_types: types });
    t.equal(legacy.enter_sends, true, 'enter_sends flat (a new organization\'s default)');
    t.equal(legacy.emojiset, 'google', 'emojiset flat');
    t.equal(legacy.notification_sound, 'zulip', 'notification_sound flat');
    t.ok(Array.isArray(legacy.available_notification_sounds), 'the sound list flat');
    t.ok(Array.isArray(legacy.emojiset_choices), 'the emoji sets flat');
    t.type(legacy.user_settings, 'object', 'and the object too, asked for');
    const modern = await register({ fetch_event_types: types, client_capabilities: { user_settings_object: true } });
    t.notOk('enter_sends' in modern, 'no flat keys with the capability');
    t.notOk('notification_sound' in modern, 'no flat notification keys with the capability');
    t.equal(modern.user_settings.enter_sends, true, 'the object holds them');
  });

  t.test('POST /register: user_settings and realm_user_settings_defaults carry the reference defaults', async (t) => {
    const body = await register({ fetch_event_types: ['user_settings', 'realm_user_settings_defaults'] });
    const s = body.user_settings;
    t.match(s, {
      twenty_four_hour_time: false, web_home_view: 'inbox', color_scheme: 1, emojiset: 'google', default_language: 'en', enter_sends: true,
      presence_enabled: true, send_private_typing_notifications: true, receives_typing_notifications: true, email_address_visibility: 1,
      web_font_size_px: 16, web_line_height_percent: 140, timezone: '',
    }, 'the defaults of a new user');
    t.same(s.emojiset_choices.map((c: { key: string }) => c.key), ['google', 'twitter', 'text', 'google-blob'], 'emoji sets in the reference order');
    t.ok(s.available_notification_sounds.includes('zulip'), 'the default sound is offered');
    const d = body.realm_user_settings_defaults;
    t.notOk('timezone' in d, 'realm defaults have no time zone');
    t.equal(d.web_home_view, 'inbox', 'realm defaults match');
  });

  t.test('POST /register: the server and realm keys', async (t) => {
    const body = await register({ fetch_event_types: ['realm'] });
    t.equal(body.server_presence_ping_interval_seconds, 60, 'ping every minute');
    t.equal(body.server_presence_offline_threshold_seconds, 200, 'offline after 200 seconds');
    t.equal(body.server_typing_started_expiry_period_milliseconds, 45000, 'typing expiry');
    t.equal(body.server_typing_stopped_wait_period_milliseconds, 5000, 'typing stop wait');
    t.equal(body.server_typing_started_wait_period_milliseconds, 10000, 'typing start interval');
    t.equal(body.max_message_length, 10000, 'max_message_length');
    t.equal(body.max_topic_length, 60, 'max_topic_length');
    t.equal(body.max_stream_name_length, 60, 'max_stream_name_length');
    t.equal(body.max_channel_folder_name_length, undefined, 'no channel folder limits (level 410) in a realm without folders: this client may be of level 372');
    t.equal(body.realm_empty_topic_display_name, 'general chat', 'the empty topic display name');
    t.match(body.server_emoji_data_url, /^http:\/\/.*\/static\/generated\/emoji\/emoji_api\.json$/, 'server_emoji_data_url');
    t.equal(body.realm_name, 'Stoa', 'realm settings come along');
    t.same(Object.keys(body.server_supported_permission_settings).sort(), ['group', 'realm', 'stream'], 'permission metadata for the three kinds');
    t.equal(body.server_supported_permission_settings.stream.can_send_message_group.default_group_name, 'role:everyone', 'channel defaults');
    t.type(body.event_queue_longpoll_timeout_seconds, 'number', 'the long-poll timeout');
  });

  t.test('POST /register: the sections with nothing behind them are empty', async (t) => {
    const body = await register({
      fetch_event_types: ['alert_words', 'custom_profile_fields', 'drafts', 'scheduled_messages', 'muted_users', 'realm_emoji', 'realm_linkifiers', 'realm_filters', 'realm_playgrounds', 'user_status', 'user_topic'],
    });
    t.match(body, {
      alert_words: [], custom_profile_fields: [], drafts: [], scheduled_messages: [], muted_users: [], realm_emoji: {}, realm_linkifiers: [],
      realm_filters: [], realm_playgrounds: [], user_status: {}, user_topics: [],
    }, 'each in its empty shape');
    t.same(body.custom_profile_field_types.SHORT_TEXT, { id: 1, name: 'Text (short)' }, 'the field types are still listed');
    t.equal(Object.keys(body.custom_profile_field_types).length, 8, 'all eight of them');
  });

  t.test('POST /register: bad parameters', async (t) => {
    const notJson = await ts.as(ann)('POST', '/register', { params: { fetch_event_types: 'message' } });
    t.equal(notJson.status, 400, 'a list that is not JSON is refused');
    t.equal(notJson.body.code, 'INVALID_JSON', 'INVALID_JSON');
    const badSubscribers = await ts.as(ann)('POST', '/register', { params: { include_subscribers: 'sometimes' } });
    t.equal(badSubscribers.body.code, 'REQUEST_VARIABLE_INVALID', 'include_subscribers must be a boolean or "partial"');
    const badHistory = await ts.as(ann)('POST', '/register', { params: { presence_history_limit_days: 'long' } });
    t.same(badHistory.body, { result: 'error', msg: 'presence_history_limit_days is not an integer', code: 'REQUEST_VARIABLE_INVALID', var_name: 'presence_history_limit_days' }, 'presence_history_limit_days must be an integer');
    const anonymous = await ts.request('POST', '/register', { auth: null });
    t.equal(anonymous.status, 401, 'credentials are required');
  });
});
