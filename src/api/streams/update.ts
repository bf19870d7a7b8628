import { ApiError, badRequest, insufficientPermission, invalidArgument } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import { ROLE, type GroupSetting, type StreamRecord, type UserRecord } from '../../model/types.js';
import { flush, outbox } from '../../shard/outbox.js';
import { me, operation } from '../../api-kit/operation.js';
import { canAdministerChannel, hasContentAccess, isAdmin } from './access.js';
import {
  archiveStream,
  changeStreamDescription,
  changeStreamFolder,
  changeStreamGroupSetting,
  changeStreamPermission,
  changeStreamRetention,
  renameStream,
  setDefaultStream,
  type PermissionChange,
} from './changes.js';
import { checkStreamName, MAX_DESCRIPTION_LENGTH, parseGroupSetting, parseRetention, realmPermits } from './checks.js';
import { CHANNEL_GROUP_SETTINGS, groupSettingView, renderDescription } from './views.js';
import { parseFolderId } from '../channel-folders/actions.js';

/**
 * The channel a user may administer (the reference's
 * access_stream_for_delete_or_update_requiring_metadata_access). Whether one may administer a
 * channel is only revealed to those who can read it; to others it does not exist.
 */
export function accessForAdministration(realm: RealmState, user: UserRecord, streamId: number): StreamRecord {
  const stream = realm.streams.get(streamId);
  if (!stream) throw badRequest('Invalid channel ID');
  if (canAdministerChannel(realm, user, stream)) return stream;
  if (hasContentAccess(realm, user, stream)) throw badRequest('You do not have permission to administer this channel.');
  throw badRequest('Invalid channel ID');
}

/** Changing these needs content access to a private channel, even for administrators. */
const NEEDS_CONTENT_ACCESS = new Set(['can_add_subscribers_group', 'can_subscribe_group']);

const contentAccessRequired = () => badRequest('Channel content access is required.');

/** A group-setting value as the API shows it, for comparing two of them. */
function normalized(realm: RealmState, value: GroupSetting): string {
  return JSON.stringify(groupSettingView(realm, value));
}

/**
 * `old` as the API would show it, unchecked: anything that is not the current value is simply a
 * mismatch. As for new values, one subgroup alone is that group and nothing is role:nobody.
 */
function expectedValue(realm: RealmState, old: unknown): string {
  if (typeof old === 'number') return JSON.stringify(old);
  const v = old as { direct_members?: unknown; direct_subgroups?: unknown };
  const members = Array.isArray(v?.direct_members) ? [...new Set(v.direct_members as number[])] : [];
  const subgroups = Array.isArray(v?.direct_subgroups) ? [...new Set(v.direct_subgroups as number[])] : [];
  if (members.length === 0 && subgroups.length === 1) return JSON.stringify(subgroups[0]);
  if (members.length === 0 && subgroups.length === 0) return JSON.stringify(realm.systemGroupId('role:nobody'));
  return normalized(realm, { direct_members: members, direct_subgroups: subgroups });
}

/**
 * A {new, old} group-setting update (GroupSettingValueUpdate): the new value, checked, or null when
 * it is the current one. `old`, when given, must be the current value. Changing the settings that
 * admit users to a private channel needs content access to it.
 */
function parseSettingUpdate(realm: RealmState, user: UserRecord, stream: StreamRecord, setting: string, raw: unknown): GroupSetting | null {
  const update = raw as { new?: unknown; old?: unknown };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || !('new' in update) || Object.keys(update).some((k) => k !== 'new' && k !== 'old')) {
    throw invalidArgument(setting, `${setting} is not a valid group setting update`);
  }
  const current = normalized(realm, stream.groups[setting]);
  if (update.old !== undefined && expectedValue(realm, update.old) !== current) {
    throw badRequest("'old' value does not match the expected value.");
  }
  if (expectedValue(realm, update.new) === current) return null;
  // As the reference, content access is checked before the new value is.
  if (NEEDS_CONTENT_ACCESS.has(setting) && !hasContentAccess(realm, user, stream)) throw contentAccessRequired();
  return parseGroupSetting(realm, setting, update.new);
}

interface UpdateParams {
  stream_id: number;
  description?: string;
  new_name?: string;
  is_private?: boolean;
  is_web_public?: boolean;
  history_public_to_subscribers?: boolean;
  is_default_stream?: boolean;
  message_retention_days?: string | number;
  folder_id?: number | string | null;
  [setting: string]: unknown;
}

/** The privacy the request asks for, checked as the reference does; null if it names none. */
function checkPermissionChange(realm: RealmState, user: UserRecord, stream: StreamRecord, p: UpdateParams): PermissionChange | null {
  const inviteOnly = p.is_private ?? stream.inviteOnly;
  const isWebPublic = p.is_web_public ?? stream.isWebPublic;
  const isDefault = p.is_default_stream ?? stream.isDefault;
  // A channel made private or public without saying otherwise gets that kind's default history.
  const history = p.history_public_to_subscribers ?? (p.is_private !== undefined ? !p.is_private : stream.historyPublicToSubscribers);
  if (isWebPublic && (!history || inviteOnly)) throw badRequest('Invalid parameters');
  if (!inviteOnly && !history) throw badRequest('Invalid parameters');
  if (inviteOnly && isDefault) throw badRequest('A default channel cannot be private.');
  if (p.is_private !== undefined) {
    if (!hasContentAccess(realm, user, stream)) throw contentAccessRequired();
    const setting = p.is_private ? 'can_create_private_channel_group' : 'can_create_public_channel_group';
    if (!realmPermits(realm, user, setting)) throw insufficientPermission();
  }
  if (p.is_web_public) {
    if (realm.realm.settings.enable_spectator_access !== true) throw badRequest('Web-public channels are not enabled.');
    if (!realmPermits(realm, user, 'can_create_web_public_channel_group')) throw insufficientPermission();
  }
  if (p.is_private === undefined && p.is_web_public === undefined && p.history_public_to_subscribers === undefined) return null;
  const change = { inviteOnly, historyPublicToSubscribers: history, isWebPublic };
  const same = change.inviteOnly === stream.inviteOnly && history === stream.historyPublicToSubscribers && isWebPublic === stream.isWebPublic;
  return same ? null : change;
}

/** The new name, checked and stripped. */
function checkNewName(realm: RealmState, stream: StreamRecord, raw: string): string {
  const name = raw.trim();
  if (name === stream.name) throw badRequest('Channel already has that name.');
  const checked = checkStreamName(name);
  // Changing only the case of a name keeps it; any other name must be free.
  if (checked.toLowerCase() !== stream.name.toLowerCase() && realm.streamByName(checked)) throw badRequest('Channel name already in use.');
  return checked;
}

const groupSettingParam = { type: 'object' };

/**
 * PATCH /streams/{stream_id}. Every check runs before anything changes (the reference applies
 * each part as it goes), then the changes are made in the reference's order, each with its own
 * events, and committed together. stream_post_policy and is_announcement_only were removed at
 * feature level 333 and are reported as ignored parameters.
 */
const update = operation<UpdateParams>({
  auth: 'user',
  params: {
    properties: {
      stream_id: { type: 'integer' },
      description: { type: 'string' },
      new_name: { type: 'string' },
      is_private: { type: 'boolean' },
      is_web_public: { type: 'boolean' },
      history_public_to_subscribers: { type: 'boolean' },
      is_default_stream: { type: 'boolean' },
      message_retention_days: { type: ['string', 'integer'] },
      folder_id: { anyOf: [{ type: 'integer' }, { type: 'null' }, { type: 'string' }] },
      ...Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((s) => [s, groupSettingParam])),
    },
    required: ['stream_id'],
  },
  handler: async (ctx) => {
    const user = me(ctx);
    const { shard, realm, params: p } = ctx;
    let stream = accessForAdministration(realm, user, p.stream_id);

    const permission = checkPermissionChange(realm, user, stream, p);
    if (p.is_default_stream !== undefined && !isAdmin(user)) {
      throw new ApiError('Must be an organization administrator', { code: 'UNAUTHORIZED_PRINCIPAL' });
    }
    let retention: number | null | undefined;
    if (p.message_retention_days !== undefined) {
      if (user.role !== ROLE.owner) throw new ApiError('Must be an organization owner', { code: 'UNAUTHORIZED_PRINCIPAL' });
      retention = parseRetention(p.message_retention_days);
    }
    let description: string | undefined;
    if (p.description !== undefined) {
      // The reference keeps descriptions on one line.
      description = p.description.replace(/\n/g, ' ');
      if ([...description].length > MAX_DESCRIPTION_LENGTH) {
        throw invalidArgument('description', `description is too long (limit: ${MAX_DESCRIPTION_LENGTH} characters)`);
      }
    }
    const newName = p.new_name === undefined ? undefined : checkNewName(realm, stream, p.new_name);
    const folderId = p.folder_id === undefined ? undefined : parseFolderId(realm, p.folder_id);
    const groups: [string, GroupSetting][] = [];
    for (const setting of CHANNEL_GROUP_SETTINGS) {
      if (p[setting] === undefined) continue;
      const value = parseSettingUpdate(realm, user, stream, setting, p[setting]);
      if (value !== null) groups.push([setting, value]);
    }

    const out = outbox(shard);
    if (permission) stream = changeStreamPermission(shard, realm, out, stream, permission);
    if (p.is_default_stream !== undefined) stream = setDefaultStream(shard, realm, out, stream, p.is_default_stream);
    if (retention !== undefined && retention !== stream.messageRetentionDays) stream = changeStreamRetention(shard, realm, out, stream, retention);
    if (description !== undefined) {
      stream = changeStreamDescription(shard, realm, out, stream, description, renderDescription(realm, user, description));
    }
    if (newName !== undefined) stream = renameStream(shard, realm, out, stream, newName);
    if (folderId !== undefined) stream = changeStreamFolder(shard, realm, out, stream, folderId);
    for (const [setting, value] of groups) stream = changeStreamGroupSetting(shard, realm, out, stream, setting, value);
    await flush(shard, realm, out);
    return {};
  },
});

/** DELETE /streams/{stream_id}: archives the channel (see changes.ts archiveStream). */
const archive = operation<{ stream_id: number }>({
  auth: 'user',
  params: { properties: { stream_id: { type: 'integer' } }, required: ['stream_id'] },
  handler: async (ctx) => {
    const user = me(ctx);
    const { shard, realm } = ctx;
    const stream = accessForAdministration(realm, user, ctx.params.stream_id);
    if (stream.isArchived) throw badRequest('Channel is already deactivated');
    const out = outbox(shard);
    archiveStream(shard, realm, out, stream);
    await flush(shard, realm, out);
    return {};
  },
});

export const operations = {
  'streams.update': update,
  'streams.archive': archive,
};
