import { ApiError, badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import { groupSettingForApi, REALM_GROUP_SETTINGS, realmGroupSetting, realmSetting } from '../../model/realm-settings.js';
import { ROLE, type GroupSetting, type UserRecord } from '../../model/types.js';
import type { ParamSchema } from '../../api-kit/operation.js';
import { checkGroupSettingValue, groupSettingChanges, parseGroupSettingChange } from '../user_groups/group-values.js';
import { LANGUAGE_CODES } from './languages.js';

/**
 * PATCH /realm: the parameters the reference's update_realm view takes at feature level 372,
 * and the check half of the update. Checking changes nothing; it returns the plan that
 * doUpdateRealm (update.ts) applies, so a request with any bad parameter changes nothing.
 */
const BOOLEAN_SETTINGS = [
  'allow_message_editing', 'avatar_changes_disabled', 'digest_emails_enabled', 'disallow_disposable_email_addresses',
  'email_changes_disabled', 'emails_restricted_to_domains', 'enable_guest_user_dm_warning', 'enable_guest_user_indicator',
  'enable_read_receipts', 'enable_spectator_access', 'inline_image_preview', 'inline_url_embed_preview', 'invite_required',
  'mandatory_topics', 'message_content_allowed_in_email_notifications', 'name_changes_disabled', 'require_unique_names',
  'send_welcome_emails', 'want_advertise_in_communities_directory',
];

/** Integer or the string "unlimited"; sent as JSON, so `600` or `"unlimited"`. */
const TIME_LIMIT_SETTINGS = [
  'message_content_delete_limit_seconds', 'message_content_edit_limit_seconds',
  'move_messages_between_streams_limit_seconds', 'move_messages_within_stream_limit_seconds',
];

const CHANNEL_SETTINGS = [
  'moderation_request_channel_id', 'new_stream_announcements_stream_id', 'signup_announcements_stream_id',
  'zulip_update_announcements_stream_id',
];

const ORG_TYPES = [0, 10, 20, 30, 35, 40, 50, 60, 70, 80, 90, 100, 1000];
const GIPHY_RATINGS = [0, 1, 2, 3, 4, 5];
// Zoom and BigBlueButton are offered only when the server is configured for them; it is not.
const VIDEO_CHAT_PROVIDERS = [0, 1];
const EDIT_HISTORY_POLICIES = ['all', 'moves', 'none'];
const MAX_NAME_LENGTH = 40;
const MAX_DESCRIPTION_LENGTH = 1000;
const MAX_SUBDOMAIN_LENGTH = 40;
const JITSI_URL_MAX_LENGTH = 200;
// PositiveIntegerField in the reference's database.
const MAX_SECONDS = 2 ** 31 - 1;

/** Settings only an owner may change, as the reference's update_realm checks them. */
const OWNER_ONLY = [
  'authentication_methods', 'message_retention_days', 'invite_required', 'create_multiuse_invite_group',
  'can_create_groups', 'can_invite_users_group', 'can_manage_all_groups', 'can_manage_billing_group',
  'emails_restricted_to_domains', 'disallow_disposable_email_addresses', 'waiting_period_threshold', 'string_id',
];

const properties: Record<string, Record<string, unknown>> = {
  name: { type: 'string', maxLength: MAX_NAME_LENGTH },
  description: { type: 'string', maxLength: MAX_DESCRIPTION_LENGTH },
  default_language: { type: 'string' },
  default_code_block_language: { type: 'string' },
  jitsi_server_url: { type: 'string' },
  message_edit_history_visibility_policy: { type: 'string' },
  string_id: { type: 'string', maxLength: MAX_SUBDOMAIN_LENGTH },
  digest_weekday: { type: 'integer', enum: [0, 1, 2, 3, 4, 5, 6] },
  org_type: { type: 'integer', enum: ORG_TYPES },
  giphy_rating: { type: 'integer' },
  video_chat_provider: { type: 'integer' },
  waiting_period_threshold: { type: 'integer', minimum: 0 },
  message_retention_days: { type: ['integer', 'string'] },
  authentication_methods: { type: 'object' },
};
for (const name of BOOLEAN_SETTINGS) properties[name] = { type: 'boolean' };
for (const name of TIME_LIMIT_SETTINGS) properties[name] = { type: ['integer', 'string'] };
for (const name of CHANNEL_SETTINGS) properties[name] = { type: 'integer' };
for (const name of Object.keys(REALM_GROUP_SETTINGS)) properties[name] = { type: 'object' };

export const updateRealmParams: ParamSchema = { properties };

export type RealmUpdateParams = Record<string, unknown>;

/** What an update changes: new values by setting name (name and description included). */
export interface RealmUpdatePlan {
  values: Map<string, unknown>;
  /** The success response's fields: each changed setting, strings reported as "updated". */
  response: Record<string, unknown>;
}

const ownerRequired = () => new ApiError('Must be an organization owner', { code: 'UNAUTHORIZED_PRINCIPAL' });
export const adminRequired = () => new ApiError('Must be an organization administrator', { code: 'UNAUTHORIZED_PRINCIPAL' });

const badValue = (name: string, value: unknown) =>
  new ApiError(`Bad value for '${name}': ${String(value)}`, { code: 'REQUEST_VARIABLE_INVALID', data: { var_name: name, bad_value: value } });

/** A JSON-typed text parameter: clients send `"unlimited"` with quotes, some send it bare. */
function jsonOrText(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** A positive number of seconds (or days), or a special word standing for `special`. */
function parseLimit(name: string, raw: unknown, special: number | null): number | null {
  const value = jsonOrText(raw);
  if (value === 'unlimited') return special;
  if (typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= MAX_SECONDS) return value;
  throw badValue(name, value);
}

function parseJitsiUrl(raw: unknown): string | null {
  const value = jsonOrText(raw);
  if (value === 'default') return null;
  const invalid = () => badRequest('jitsi_server_url is not an allowed_type');
  if (typeof value !== 'string' || value.length > JITSI_URL_MAX_LENGTH) throw invalid();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid();
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid();
  return value;
}

function checkAuthenticationMethods(methods: Record<string, unknown>): void {
  // Email and password is the one backend this server offers.
  const valid = ['Email'];
  for (const name of Object.keys(methods)) {
    if (!valid.includes(name)) {
      throw badRequest(`Invalid authentication method: ${name}. Valid methods are: [${valid.map((v) => `'${v}'`).join(', ')}]`);
    }
  }
  if (!Object.values(methods).includes(true)) throw badRequest('At least one authentication method must be enabled.');
}

class Plan implements RealmUpdatePlan {
  values = new Map<string, unknown>();
  response: Record<string, unknown> = {};

  constructor(private readonly realm: RealmState) {}

  /** Records a simple setting when it differs from the current value. */
  set(name: string, value: unknown, reported: unknown = typeof value === 'string' ? 'updated' : value): void {
    if (realmSetting(this.realm, name) === value) return;
    this.values.set(name, value);
    this.response[name] = reported;
  }

  setGroup(name: string, value: GroupSetting): void {
    this.values.set(name, value);
    this.response[name] = value;
  }
}

/** Validates a PATCH /realm request and returns what it would change. */
export function checkRealmUpdate(realm: RealmState, user: UserRecord, p: RealmUpdateParams): RealmUpdatePlan {
  if (user.role > ROLE.administrator) throw adminRequired();
  const isOwner = user.role === ROLE.owner;
  const given = (name: string) => p[name] !== undefined;

  const language = p.default_language as string | undefined;
  if (language !== undefined && !LANGUAGE_CODES.has(language)) throw badRequest(`Invalid language '${language}'`);
  if (given('authentication_methods')) {
    if (!isOwner) throw ownerRequired();
    checkAuthenticationMethods(p.authentication_methods as Record<string, unknown>);
  }
  if (given('video_chat_provider') && !VIDEO_CHAT_PROVIDERS.includes(p.video_chat_provider as number)) {
    throw badRequest(`Invalid video_chat_provider ${p.video_chat_provider}`);
  }
  if (given('giphy_rating') && !GIPHY_RATINGS.includes(p.giphy_rating as number)) throw badRequest(`Invalid giphy_rating ${p.giphy_rating}`);
  if (OWNER_ONLY.some(given) && !isOwner) throw ownerRequired();

  const plan = new Plan(realm);
  if (given('message_retention_days')) plan.set('message_retention_days', parseLimit('message_retention_days', p.message_retention_days, -1));
  for (const name of TIME_LIMIT_SETTINGS) if (given(name)) plan.set(name, parseLimit(name, p[name], null));
  if (given('jitsi_server_url')) plan.set('jitsi_server_url', parseJitsiUrl(p.jitsi_server_url));
  if (given('message_edit_history_visibility_policy')) {
    const policy = p.message_edit_history_visibility_policy as string;
    if (!EDIT_HISTORY_POLICIES.includes(policy)) throw badRequest('Invalid message_edit_history_visibility_policy');
    plan.set('message_edit_history_visibility_policy', policy, policy);
  }
  const simple = [...BOOLEAN_SETTINGS, 'name', 'description', 'default_language', 'default_code_block_language', 'digest_weekday', 'giphy_rating', 'video_chat_provider', 'waiting_period_threshold', 'org_type'];
  for (const name of simple) if (given(name)) plan.set(name, p[name]);

  for (const [name, rule] of Object.entries(REALM_GROUP_SETTINGS)) {
    if (!given(name)) continue;
    const change = parseGroupSettingChange(name, p[name] as Record<string, unknown>);
    if (!groupSettingChanges(groupSettingForApi(realm, realmGroupSetting(realm, name)), change)) continue;
    checkGroupSettingValue(realm, name, change.new, rule);
    plan.setGroup(name, change.new);
  }

  for (const name of CHANNEL_SETTINGS) {
    if (!given(name)) continue;
    const id = p[name] as number;
    if (id >= 0) {
      const stream = realm.streams.get(id);
      if (!stream || stream.isArchived) throw badRequest('Invalid channel ID');
    }
    // Any negative id disables the announcements; -1 is how the reference shows that.
    plan.set(name, id >= 0 ? id : -1, id);
  }

  // Only demo organizations may change their subdomain, and this server has none.
  if (given('string_id')) throw badRequest('Must be a demo organization.');
  return plan;
}
