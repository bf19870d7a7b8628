import { ApiError, badRequest, insufficientPermission } from '../../lib/errors.js';
import { userHasPermission } from '../../model/groups.js';
import type { RealmState } from '../../model/realm-state.js';
import { ROLE, type GroupSetting, type UserRecord } from '../../model/types.js';
import { isAdmin, isGuest } from './access.js';

export const MAX_NAME_LENGTH = 60;
export const MAX_DESCRIPTION_LENGTH = 1024;

/** Unicode non-characters (U+FDD0..U+FDEF and the last two code points of every plane). */
function isNonCharacter(cp: number): boolean {
  return (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) === 0xfffe;
}

const UNPRINTABLE = /[\p{Cc}\p{Cs}]/u;

/**
 * Validates a channel name and returns it stripped, as the reference does. Lengths and positions
 * count code points, as Python strings do.
 */
export function checkStreamName(raw: string): string {
  const name = raw.trim();
  if (name === '') throw badRequest("Channel name can't be empty.");
  const chars = [...name];
  if (chars.length > MAX_NAME_LENGTH) throw badRequest(`Channel name too long (limit: ${MAX_NAME_LENGTH} characters).`);
  const bad = unprintablePosition(name);
  if (bad !== null) throw badRequest(`Invalid character in channel name, at position ${bad}.`);
  return name;
}

/**
 * The reference's check_string_is_printable: the 1-based position (in code points) of the first
 * control character, surrogate or non-character, or null.
 */
export function unprintablePosition(text: string): number | null {
  const bad = [...text].findIndex((c) => UNPRINTABLE.test(c) || isNonCharacter(c.codePointAt(0)!));
  return bad >= 0 ? bad + 1 : null;
}

/** Which system groups each channel permission setting admits, and its default for a new channel. */
export const CHANNEL_SETTING_RULES: Record<string, { allowEveryone: boolean; default: string }> = {
  can_add_subscribers_group: { allowEveryone: false, default: 'role:nobody' },
  // 'channel_creator': an anonymous group holding the creator, or role:nobody without one.
  can_administer_channel_group: { allowEveryone: false, default: 'channel_creator' },
  can_remove_subscribers_group: { allowEveryone: true, default: 'role:administrators' },
  can_send_message_group: { allowEveryone: true, default: 'role:everyone' },
  can_subscribe_group: { allowEveryone: false, default: 'role:nobody' },
};

export function defaultChannelGroups(realm: RealmState, creator: UserRecord | null): Record<string, GroupSetting> {
  const out: Record<string, GroupSetting> = {};
  for (const [name, rule] of Object.entries(CHANNEL_SETTING_RULES)) {
    if (rule.default !== 'channel_creator') out[name] = realm.systemGroupId(rule.default);
    else out[name] = creator ? { direct_members: [creator.id], direct_subgroups: [] } : realm.systemGroupId('role:nobody');
  }
  return out;
}

function checkNamedGroup(realm: RealmState, setting: string, id: number): number {
  const group = realm.groups.get(id);
  if (!group) throw badRequest('Invalid user group');
  if (group.deactivated) throw badRequest('User group is deactivated.');
  if (group.name === 'role:internet' && group.isSystemGroup) throw badRequest(`'${setting}' setting cannot be set to 'role:internet' group.`);
  if (group.name === 'role:everyone' && group.isSystemGroup && !CHANNEL_SETTING_RULES[setting].allowEveryone) {
    throw badRequest(`'${setting}' setting cannot be set to 'role:everyone' group.`);
  }
  return id;
}

const isIntList = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => Number.isInteger(x));

/**
 * A group-setting value from a request: a group id, or {direct_members, direct_subgroups}. As the
 * reference does, an anonymous group of exactly one subgroup is that group, and an empty one is
 * role:nobody.
 */
export function parseGroupSetting(realm: RealmState, setting: string, value: unknown): GroupSetting {
  if (typeof value === 'number') return checkNamedGroup(realm, setting, value);
  const v = value as { direct_members?: unknown; direct_subgroups?: unknown };
  const keys = Object.keys(v);
  if (!isIntList(v.direct_members) || !isIntList(v.direct_subgroups) || keys.some((k) => k !== 'direct_members' && k !== 'direct_subgroups')) {
    throw new ApiError(`${setting} is not a valid group setting value`, { code: 'REQUEST_VARIABLE_INVALID', data: { var_name: setting } });
  }
  const members = [...new Set(v.direct_members)];
  const subgroups = [...new Set(v.direct_subgroups)];
  if (members.length === 0 && subgroups.length === 1) return checkNamedGroup(realm, setting, subgroups[0]);
  if (members.length === 0 && subgroups.length === 0) return realm.systemGroupId('role:nobody');
  for (const id of members) if (!realm.users.get(id)?.isActive) throw badRequest(`Invalid user ID: ${id}`);
  for (const id of subgroups) {
    const group = realm.groups.get(id);
    if (!group) throw badRequest(`Invalid user group ID: ${id}`);
    if (group.deactivated) throw badRequest('User group is deactivated.');
  }
  return { direct_members: members, direct_subgroups: subgroups };
}

const RETENTION_SPECIAL: Record<string, number | null> = { realm_default: null, unlimited: -1 };

/**
 * message_retention_days: "realm_default" (null), "unlimited" (-1) or a positive number of days.
 * Clients send it bare or JSON-encoded, so a quoted string is accepted too.
 */
export function parseRetention(value: unknown): number | null {
  let v = value;
  if (typeof v === 'string' && !(v in RETENTION_SPECIAL)) {
    try {
      v = JSON.parse(v);
    } catch {
      // Not JSON: judged as the bare text below.
    }
  }
  if (typeof v === 'string' && v in RETENTION_SPECIAL) return RETENTION_SPECIAL[v];
  if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
  throw new ApiError(`Bad value for 'message_retention_days': ${String(value)}`, {
    code: 'REQUEST_VARIABLE_INVALID',
    data: { var_name: 'message_retention_days', bad_value: value },
  });
}

/** A realm permission setting; guests never hold the channel-creation ones. */
export function realmPermits(realm: RealmState, user: UserRecord, setting: string): boolean {
  if (isGuest(user)) return false;
  const value = realm.realm.settings[setting] as GroupSetting | undefined;
  return value !== undefined && userHasPermission(realm, user, value);
}

export interface CreationRequest {
  inviteOnly: boolean;
  isWebPublic: boolean;
  isDefault: boolean;
  messageRetentionDays: number | null;
}

/** Whether the user may create a channel of this kind (the reference's check_channel_creation_permissions). */
export function checkCanCreateChannel(realm: RealmState, user: UserRecord, req: CreationRequest): void {
  if (req.inviteOnly && !realmPermits(realm, user, 'can_create_private_channel_group')) throw insufficientPermission();
  if (!req.inviteOnly && !realmPermits(realm, user, 'can_create_public_channel_group')) throw insufficientPermission();
  if (req.isDefault && !isAdmin(user)) throw insufficientPermission();
  if (req.inviteOnly && req.isDefault) throw badRequest('A default channel cannot be private.');
  if (req.isWebPublic) {
    if (req.inviteOnly) throw badRequest('Invalid parameters');
    if (realm.realm.settings.enable_spectator_access !== true) throw badRequest('Web-public channels are not enabled.');
    if (!realmPermits(realm, user, 'can_create_web_public_channel_group')) throw insufficientPermission();
  }
  if (req.messageRetentionDays !== null && user.role !== ROLE.owner) {
    throw new ApiError('Must be an organization owner', { code: 'UNAUTHORIZED_PRINCIPAL' });
  }
}
