import { ApiError, badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { GroupSettingRule } from '../../model/realm-settings.js';
import type { GroupSetting } from '../../model/types.js';

/**
 * Group-setting values in requests: `{"new": <value>, "old": <value>}`, where a value is a group
 * id or an anonymous group `{"direct_members": [...], "direct_subgroups": [...]}`. The rules are
 * the reference's (zerver/lib/user_groups.py): `old`, when given, must equal the current value;
 * an anonymous group of exactly one subgroup and no members is that subgroup's id; a named
 * group must exist, be active and be allowed by the setting's rule.
 */
export interface GroupSettingChange {
  new: GroupSetting;
  old: GroupSetting | null;
}

export const expectationMismatch = () =>
  new ApiError("'old' value does not match the expected value.", { code: 'EXPECTATION_MISMATCH' });

export const systemGroupRequired = (name: string) => badRequest(`'${name}' must be a system user group.`);

const isIdList = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => Number.isInteger(x));

/** Parses one group-setting value: a group id or an anonymous group (POST /user_groups/create). */
export function parseGroupSettingValue(name: string, value: unknown): GroupSetting {
  if (Number.isInteger(value)) return value as number;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const { direct_members: members, direct_subgroups: subgroups } = value as Record<string, unknown>;
    if (isIdList(members) && isIdList(subgroups)) {
      if (members.length === 0 && subgroups.length === 1) return subgroups[0];
      const sorted = (ids: number[]) => [...new Set(ids)].sort((a, b) => a - b);
      return { direct_members: sorted(members), direct_subgroups: sorted(subgroups) };
    }
  }
  throw badRequest(`Invalid ${name}`);
}

/** Parses the JSON object of one group setting parameter. */
export function parseGroupSettingChange(name: string, raw: Record<string, unknown>): GroupSettingChange {
  if (!Object.hasOwn(raw, 'new')) throw badRequest(`${name}["new"] field is missing`);
  return {
    new: parseGroupSettingValue(name, raw.new),
    old: raw.old === undefined || raw.old === null ? null : parseGroupSettingValue(name, raw.old),
  };
}

export function sameGroupSetting(a: GroupSetting, b: GroupSetting): boolean {
  if (typeof a === 'number' || typeof b === 'number') return a === b;
  const sameSet = (x: number[], y: number[]) => new Set(x).size === new Set(y).size && x.every((id) => y.includes(id));
  return sameSet(a.direct_members, b.direct_members) && sameSet(a.direct_subgroups, b.direct_subgroups);
}

/**
 * Whether the change does anything: false when the new value is the current one. Throws when
 * `old` is given and is not the current value, which stops a client acting on a stale view.
 */
export function groupSettingChanges(current: GroupSetting, change: GroupSettingChange): boolean {
  if (change.old !== null && !sameGroupSetting(change.old, current)) throw expectationMismatch();
  return !sameGroupSetting(current, change.new);
}

function activeGroup(realm: RealmState, id: number, missing: string) {
  const group = realm.groups.get(id);
  if (!group) throw badRequest(missing);
  if (group.deactivated) throw badRequest('User group is deactivated.');
  return group;
}

/** Checks that a value is one the setting may take in this realm. */
export function checkGroupSettingValue(realm: RealmState, name: string, value: GroupSetting, rule: GroupSettingRule): void {
  if (typeof value === 'number') {
    const group = activeGroup(realm, value, 'Invalid user group');
    if (rule.requireSystemGroup && !group.isSystemGroup) throw systemGroupRequired(name);
    if (!group.isSystemGroup) return;
    const refuse = () => badRequest(`'${name}' setting cannot be set to '${group.name}' group.`);
    if (group.name === 'role:internet') throw refuse();
    if (group.name === 'role:nobody' && !rule.allowNobody) throw refuse();
    if (group.name === 'role:everyone' && !rule.allowEveryone) throw refuse();
    if (rule.allowedSystemGroups.length > 0 && !rule.allowedSystemGroups.includes(group.name)) throw refuse();
    return;
  }
  if (rule.requireSystemGroup) throw systemGroupRequired(name);
  for (const id of value.direct_members) {
    if (realm.users.get(id)?.isActive !== true) throw badRequest(`Invalid user ID: ${id}`);
  }
  for (const id of value.direct_subgroups) activeGroup(realm, id, `Invalid user group ID: ${id}`);
}
