import { GROUP_PERMISSION_SETTINGS, roleGroupId } from '../../model/groups.js';
import type { RealmState } from '../../model/realm-state.js';
import { groupSettingForApi, REALM_GROUP_SETTINGS, realmGroupSetting } from '../../model/realm-settings.js';
import { usersWhoCanAccess } from '../../model/user-access.js';
import type { GroupSetting, UserRecord } from '../../model/types.js';
import type { ShardEvent } from '../../shard/events.js';
import type { Shard } from '../../shard/shard.js';
import { metadataUserIds } from '../streams/access.js';
import { CHANNEL_GROUP_SETTINGS, groupSettingView } from '../streams/views.js';
import { groupAudience, membersEvent, updateEvent } from './events.js';

type Emit = (event: ShardEvent, userIds: number[]) => void;

/**
 * A deactivated user leaves their groups as the reference has them leave (feature level 303):
 * the stored memberships stay, but every member list and anonymous setting value shows only
 * active users, and a reactivated user is back where they were.
 *
 * Clients drop a deactivated user from their groups and group settings themselves when told of
 * the deactivation (realm_user update is_active). Only the users who are not told, the guests who
 * cannot access the user, get remove_members and the settings' new values. On reactivation
 * everyone gets add_members and the settings' new values.
 */
export function groupEventsForActivation(shard: Shard, realm: RealmState, user: UserRecord, emit: Emit): void {
  let audience: number[];
  if (user.isActive) {
    audience = groupAudience(realm);
  } else {
    const told = new Set(usersWhoCanAccess(shard, realm, user));
    audience = groupAudience(realm).filter((id) => !told.has(id));
  }
  if (audience.length === 0) return;
  for (const group of [...realm.groups.values()].sort((a, b) => a.id - b.id)) {
    const member = group.isSystemGroup ? roleGroupId(realm, user.role) === group.id : group.members.includes(user.id);
    if (member) emit(membersEvent(user.isActive ? 'add_members' : 'remove_members', group, [user.id]), audience);
  }
  settingEvents(realm, user, audience, emit);
}

const hasMember = (value: GroupSetting | undefined, userId: number): value is { direct_members: number[]; direct_subgroups: number[] } =>
  value !== undefined && typeof value !== 'number' && value.direct_members.includes(userId);

/** The new values of the anonymous settings (realm, groups, channels) that list the user. */
function settingEvents(realm: RealmState, user: UserRecord, audience: number[], emit: Emit): void {
  for (const name of Object.keys(REALM_GROUP_SETTINGS)) {
    const value = realmGroupSetting(realm, name);
    if (hasMember(value, user.id)) emit({ type: 'realm', op: 'update_dict', property: 'default', data: { [name]: groupSettingForApi(realm, value) } }, audience);
  }
  for (const group of [...realm.groups.values()].sort((a, b) => a.id - b.id)) {
    for (const name of Object.keys(GROUP_PERMISSION_SETTINGS)) {
      const value = group.settings[name];
      if (hasMember(value, user.id)) emit(updateEvent(group, { [name]: groupSettingForApi(realm, value) }), audience);
    }
  }
  // The reference leaves channels out here; their clients would keep a stale value.
  const wanted = new Set(audience);
  for (const stream of realm.streams.values()) {
    const names = CHANNEL_GROUP_SETTINGS.filter((name) => hasMember(stream.groups[name], user.id));
    if (names.length === 0) continue;
    const viewers = metadataUserIds(realm, stream).filter((id) => wanted.has(id));
    for (const name of names) {
      emit({ type: 'stream', op: 'update', stream_id: stream.id, name: stream.name, property: name, value: groupSettingView(realm, stream.groups[name]) }, viewers);
    }
  }
}
