import { directMembers, GROUP_PERMISSION_SETTINGS } from '../../model/groups.js';
import type { RealmState } from '../../model/realm-state.js';
import { groupSettingForApi } from '../../model/realm-settings.js';
import type { GroupRecord } from '../../model/types.js';

/** A group's active direct members, ascending: deactivated users keep their stored membership. */
export function activeDirectMembers(realm: RealmState, group: GroupRecord): number[] {
  return directMembers(realm, group)
    .filter((id) => realm.users.get(id)?.isActive)
    .sort((a, b) => a - b);
}

/** A group's permission settings as the API shows them. */
export function groupSettingsView(realm: RealmState, group: GroupRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(GROUP_PERMISSION_SETTINGS)) {
    const value = group.settings[name];
    if (value !== undefined) out[name] = groupSettingForApi(realm, value);
  }
  return out;
}

/** The reference's UserGroup object (GET /user_groups, realm_user_groups, user_group add). */
export function groupView(realm: RealmState, group: GroupRecord): Record<string, unknown> {
  return {
    id: group.id,
    name: group.name,
    description: group.description,
    creator_id: group.creatorId,
    date_created: group.dateCreated,
    members: activeDirectMembers(realm, group),
    direct_subgroup_ids: [...group.subgroups].sort((a, b) => a - b),
    is_system_group: group.isSystemGroup,
    ...groupSettingsView(realm, group),
    deactivated: group.deactivated,
  };
}

/**
 * realm_user_groups (and GET /user_groups): every group of the realm, system groups included, in
 * id order. Deactivated groups only when asked for (include_deactivated_groups).
 */
export function realmUserGroups(realm: RealmState, includeDeactivated: boolean): Record<string, unknown>[] {
  return [...realm.groups.values()]
    .filter((g) => includeDeactivated || !g.deactivated)
    .sort((a, b) => a.id - b.id)
    .map((g) => groupView(realm, g));
}
