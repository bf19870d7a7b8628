import { navigationView, reminder } from './openapi-later.js';

/**
 * Response schemas for endpoints the reference serves but its OpenAPI description leaves out
 * (the bot endpoints, bot storage, incoming webhooks), written from the reference's views
 * (zerver/views/users.py, storage.py, the webhook views' json_success). helpers/openapi.ts
 * checks every 2xx of these against them, as it checks documented ones against the reference's.
 */
const base = { result: { const: 'success' }, msg: { type: 'string' }, ignored_parameters_unsupported: { type: 'array', items: { type: 'string' } } };
const obj = (properties: Record<string, unknown>, required = Object.keys(properties)) => ({
  type: 'object',
  additionalProperties: false,
  properties: { ...base, ...properties },
  required: ['result', 'msg', ...required],
});
const nullableString = { type: ['string', 'null'] };
const strings = { type: 'object', additionalProperties: { type: 'string' } };
const channelFolder = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'description', 'rendered_description', 'order', 'date_created', 'creator_id', 'is_archived'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    description: { type: 'string' },
    rendered_description: { type: 'string' },
    order: { type: 'integer' },
    date_created: { type: 'integer' },
    creator_id: { type: ['integer', 'null'] },
    is_archived: { type: 'boolean' },
  },
};

export const UNDOCUMENTED: { method: string; path: string; schema: Record<string, unknown> }[] = [
  {
    method: 'POST',
    path: '/bots',
    schema: obj({
      user_id: { type: 'integer' },
      api_key: { type: 'string', pattern: '^[A-Za-z0-9]{32}$' },
      avatar_url: { type: 'string' },
      default_sending_stream: nullableString,
      default_events_register_stream: nullableString,
      default_all_public_streams: { type: 'boolean' },
    }),
  },
  {
    method: 'GET',
    path: '/bots',
    schema: obj({
      bots: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['username', 'full_name', 'api_key', 'avatar_url', 'default_sending_stream', 'default_events_register_stream', 'default_all_public_streams'],
          properties: {
            username: { type: 'string' },
            full_name: { type: 'string' },
            api_key: { type: 'string' },
            avatar_url: { type: 'string' },
            default_sending_stream: nullableString,
            default_events_register_stream: nullableString,
            default_all_public_streams: { type: 'boolean' },
          },
        },
      },
    }),
  },
  {
    method: 'PATCH',
    path: '/bots/{bot_id}',
    schema: obj(
      {
        full_name: { type: 'string' },
        avatar_url: { type: 'string' },
        service_interface: { type: 'integer' },
        service_payload_url: nullableString,
        config_data: { anyOf: [strings, { type: 'null' }] },
        default_sending_stream: nullableString,
        default_events_register_stream: nullableString,
        default_all_public_streams: { type: 'boolean' },
        bot_owner: { type: 'string' },
      },
      ['full_name', 'avatar_url', 'service_interface', 'service_payload_url', 'config_data', 'default_sending_stream', 'default_events_register_stream', 'default_all_public_streams'],
    ),
  },
  { method: 'DELETE', path: '/bots/{bot_id}', schema: obj({}) },
  { method: 'POST', path: '/bots/{bot_id}/api_key/regenerate', schema: obj({ api_key: { type: 'string', pattern: '^[A-Za-z0-9]{32}$' } }) },
  { method: 'POST', path: '/users/me/api_key/regenerate', schema: obj({ api_key: { type: 'string', pattern: '^[A-Za-z0-9]{32}$' } }) },
  { method: 'GET', path: '/bot_storage', schema: obj({ storage: strings }) },
  { method: 'PUT', path: '/bot_storage', schema: obj({}) },
  { method: 'DELETE', path: '/bot_storage', schema: obj({}) },
  // An unsupported event is a "success" with the error's code and data (the reference's 2xx
  // JsonableError); Slack-compatible webhooks answer Slack's `ok` too.
  {
    method: 'POST',
    path: '/external/{integration}',
    schema: obj({ code: { enum: ['UNSUPPORTED_WEBHOOK_EVENT_TYPE'] }, webhook_name: { type: 'string' }, event_type: { type: ['string', 'null'] }, ok: { const: true } }, []),
  },
  // Message reminders, feature levels 381 and 399: newer than the 10.2 description (the reminder's
  // shape is in helpers/openapi-later.ts, with the reminders events and /register key).
  { method: 'POST', path: '/reminders', schema: obj({ reminder_id: { type: 'integer' } }) },
  { method: 'GET', path: '/reminders', schema: obj({ reminders: { type: 'array', items: reminder } }) },
  { method: 'DELETE', path: '/reminders/{reminder_id}', schema: obj({}) },
  // In the reference's URL table since 2.1 (zerver/views/realm_export.py delete_realm_export),
  // never in its OpenAPI description.
  { method: 'DELETE', path: '/export/realm/{export_id}', schema: obj({}) },
  // Default channel groups (zerver/views/streams.py), in the URL table only.
  { method: 'POST', path: '/default_stream_groups/create', schema: obj({}) },
  { method: 'PATCH', path: '/default_stream_groups/{group_id}', schema: obj({}) },
  { method: 'DELETE', path: '/default_stream_groups/{group_id}', schema: obj({}) },
  { method: 'PATCH', path: '/default_stream_groups/{group_id}/streams', schema: obj({}) },
  // Realm domains (zerver/views/realm_domains.py), in the URL table only.
  { method: 'GET', path: '/realm/domains', schema: obj({ domains: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['domain', 'allow_subdomains'], properties: { domain: { type: 'string' }, allow_subdomains: { type: 'boolean' } } } } }) },
  { method: 'POST', path: '/realm/domains', schema: obj({ new_domain: { type: 'array', items: { type: ['integer', 'string'] }, minItems: 2, maxItems: 2 } }) },
  { method: 'PATCH', path: '/realm/domains/{domain}', schema: obj({}) },
  { method: 'DELETE', path: '/realm/domains/{domain}', schema: obj({}) },
  // The organization's icon and logos (zerver/views/realm_icon.py, realm_logo.py), in the URL table only.
  { method: 'POST', path: '/realm/icon', schema: obj({ icon_url: { type: 'string' } }) },
  { method: 'DELETE', path: '/realm/icon', schema: obj({ icon_url: { type: 'string' } }) },
  { method: 'POST', path: '/realm/logo', schema: obj({}) },
  { method: 'DELETE', path: '/realm/logo', schema: obj({}) },
  // Channel folders (feature levels 389, 414): after the 10.2 description, written from the
  // reference's current zerver/views/channel_folders.py and zerver/lib/channel_folders.py.
  { method: 'POST', path: '/channel_folders/create', schema: obj({ channel_folder_id: { type: 'integer' } }) },
  { method: 'GET', path: '/channel_folders', schema: obj({ channel_folders: { type: 'array', items: channelFolder } }) },
  { method: 'PATCH', path: '/channel_folders/{channel_folder_id}', schema: obj({}) },
  { method: 'PATCH', path: '/channel_folders', schema: obj({}) },
  // zerver/views/user_settings.py set_avatar_backend / delete_avatar_backend.
  { method: 'POST', path: '/users/me/avatar', schema: obj({ avatar_url: { type: 'string' } }) },
  { method: 'DELETE', path: '/users/me/avatar', schema: obj({ avatar_url: { type: 'string' } }) },
  // After the 10.2 description (feature level 372), used by the reference's own API test suite
  // (zerver/openapi/python_examples.py): shapes from the reference's API documentation.
  { method: 'POST', path: '/channels/create', schema: obj({ id: { type: 'integer' } }) },
  { method: 'PATCH', path: '/invites/multiuse/{invite_id}', schema: obj({}) },
  { method: 'POST', path: '/realm/test_welcome_bot_custom_message', schema: obj({ welcome_bot_custom_message_id: { type: 'integer' } }) },
  { method: 'GET', path: '/navigation_views', schema: obj({ navigation_views: { type: 'array', items: navigationView } }) },
  { method: 'POST', path: '/navigation_views', schema: obj({}) },
  { method: 'PATCH', path: '/navigation_views/{fragment*}', schema: obj({}) },
  { method: 'DELETE', path: '/navigation_views/{fragment*}', schema: obj({}) },
];
