import type { ServerEvent } from '../types.js';

/**
 * User groups as /register's realm_user_groups gives them, kept by `user_group` events, and the
 * question every permission asks of them: is this person in that group-setting value? A value
 * is a group's id, or an anonymous group of direct members and subgroups; a group holds its
 * subgroups' members too, to any depth (the reference's is_user_in_group). The server checks
 * every permission again: these answers only decide what the screen offers.
 */
export type GroupSettingValue = number | { direct_members: number[]; direct_subgroups: number[] };

export const GROUP_PERMISSIONS = ['can_add_members_group', 'can_join_group', 'can_leave_group', 'can_manage_group', 'can_mention_group', 'can_remove_members_group'] as const;
export type GroupPermission = (typeof GROUP_PERMISSIONS)[number];

export interface UserGroup extends Partial<Record<GroupPermission, GroupSettingValue>> {
  id: number;
  name: string;
  description: string;
  members: number[];
  direct_subgroup_ids: number[];
  is_system_group: boolean;
  deactivated?: boolean;
  creator_id?: number | null;
}

/** The system groups by name, as the reference's settings name them (settings_config.ts). */
export const SYSTEM_GROUP_NAMES: Record<string, string> = {
  'role:internet': 'Everyone on the internet',
  'role:everyone': 'Everyone including guests',
  'role:members': 'Everyone except guests',
  'role:fullmembers': 'Full members',
  'role:moderators': 'Moderators',
  'role:administrators': 'Administrators',
  'role:owners': 'Owners',
  'role:nobody': 'Nobody',
};

export class Groups {
  readonly byId = new Map<number, UserGroup>();

  constructor(seed: UserGroup[] = []) {
    for (const g of seed) this.byId.set(g.id, { ...g, members: [...(g.members ?? [])], direct_subgroup_ids: [...(g.direct_subgroup_ids ?? [])] });
  }

  get(id: number): UserGroup | undefined {
    return this.byId.get(id);
  }

  byName(name: string): UserGroup | undefined {
    for (const g of this.byId.values()) if (g.name === name) return g;
    return undefined;
  }

  /** A group's name as people read it: the system groups' own words. */
  label(id: number): string {
    const g = this.byId.get(id);
    if (!g) return `group ${id}`;
    return g.is_system_group ? (SYSTEM_GROUP_NAMES[g.name] ?? g.name) : g.name;
  }

  /** The groups people made, deactivated ones left out unless asked for. */
  named(includeDeactivated = false): UserGroup[] {
    return [...this.byId.values()].filter((g) => !g.is_system_group && (includeDeactivated || !g.deactivated));
  }

  /** Whether a user is in a group, through its subgroups too. */
  has(groupId: number, userId: number, seen = new Set<number>()): boolean {
    if (seen.has(groupId)) return false;
    seen.add(groupId);
    const g = this.byId.get(groupId);
    if (!g) return false;
    if (g.members.includes(userId)) return true;
    return g.direct_subgroup_ids.some((sub) => this.has(sub, userId, seen));
  }

  /** Whether a user is in a group-setting value. */
  allows(value: GroupSettingValue | undefined, userId: number): boolean {
    if (value === undefined) return false;
    if (typeof value === 'number') return this.has(value, userId);
    const seen = new Set<number>();
    return value.direct_members.includes(userId) || value.direct_subgroups.some((sub) => this.has(sub, userId, seen));
  }

  /** user_group events. */
  apply(ev: ServerEvent): void {
    const g = this.byId.get(ev.group_id);
    switch (ev.op) {
      case 'add':
        this.byId.set(ev.group.id, { ...ev.group, members: [...(ev.group.members ?? [])], direct_subgroup_ids: [...(ev.group.direct_subgroup_ids ?? [])] });
        break;
      case 'update':
        if (g) this.byId.set(g.id, { ...g, ...ev.data });
        break;
      case 'remove':
        this.byId.delete(ev.group_id);
        break;
      case 'add_members':
        if (g) this.byId.set(g.id, { ...g, members: [...new Set([...g.members, ...ev.user_ids])] });
        break;
      case 'remove_members':
        if (g) this.byId.set(g.id, { ...g, members: g.members.filter((id) => !ev.user_ids.includes(id)) });
        break;
      case 'add_subgroups':
        if (g) this.byId.set(g.id, { ...g, direct_subgroup_ids: [...new Set([...g.direct_subgroup_ids, ...ev.direct_subgroup_ids])] });
        break;
      case 'remove_subgroups':
        if (g) this.byId.set(g.id, { ...g, direct_subgroup_ids: g.direct_subgroup_ids.filter((id) => !ev.direct_subgroup_ids.includes(id)) });
        break;
      default:
        break;
    }
  }
}
