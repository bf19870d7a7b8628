import { ApiError, badRequest, insufficientPermission } from '../../lib/errors.js';
import { directGroupsOf } from '../../model/groups.js';
import type { RealmState } from '../../model/realm-state.js';
import { ROLE, type Role, type UserRecord } from '../../model/types.js';
import { flush, outbox, queueEvent } from '../../shard/outbox.js';
import type { Shard } from '../../shard/shard.js';
import { me, operation } from '../../api-kit/operation.js';
import { defaultStreamIds } from '../../model/default-streams.js';
import { hasMetadataAccess } from '../streams/access.js';
import { queueSightChange } from '../streams/changes.js';
import { canAdminUser, userByIdOrEmail } from './access.js';
import { activeHumanOwners, checkFullName, saveUser } from './actions.js';
import { AccessWatch } from './access-events.js';
import { usersWhoCanAccess } from '../../model/user-access.js';
import { applyProfileChanges, checkProfileData } from '../profile-fields/actions.js';

const ROLES: readonly number[] = [ROLE.owner, ROLE.administrator, ROLE.moderator, ROLE.member, ROLE.guest];

export const ownerRequired = () => new ApiError('Must be an organization owner', { code: 'UNAUTHORIZED_PRINCIPAL' });
const adminRequired = () => new ApiError('Must be an organization administrator', { code: 'UNAUTHORIZED_PRINCIPAL' });

/**
 * A role change, as the reference's do_change_user_role tells clients: realm_user update with
 * the role; user_group events for the role's system groups the user leaves and joins (members of
 * system groups are derived from roles, so nothing else is written); and, for each channel the
 * user gains or loses sight of (a guest sees only their own channels), stream create with its
 * subscribers or stream delete; and the default channels, which guests are not shown.
 */
export function changeRole(shard: Shard, realm: RealmState, out: ReturnType<typeof outbox>, user: UserRecord, role: Role): void {
  const before = user.role;
  const groupsBefore = new Set(directGroupsOf(realm, user));
  const streams = [...realm.streams.values()];
  const sawBefore = streams.map((s) => hasMetadataAccess(realm, user, s));
  const access = (before === ROLE.guest) !== (role === ROLE.guest) ? AccessWatch.forRoleChange(shard, realm, user) : null;
  // In place: a request already holding this record (its authenticated user) sees the change.
  user.role = role;
  saveUser(shard, out.batch, realm, user);
  const everyone = realm.activeUserIds();
  queueEvent(out, { type: 'realm_user', op: 'update', person: { user_id: user.id, role } }, usersWhoCanAccess(shard, realm, user));
  // A guest sees only the users they share something with: becoming one, or ceasing to be one
  // where the realm restricts guests, removes or adds the others.
  access?.send((event, ids) => queueEvent(out, event, ids));
  const groupsAfter = directGroupsOf(realm, user);
  for (const id of groupsBefore) {
    if (!groupsAfter.includes(id)) queueEvent(out, { type: 'user_group', op: 'remove_members', group_id: id, user_ids: [user.id] }, everyone);
  }
  for (const id of groupsAfter) {
    if (!groupsBefore.has(id)) queueEvent(out, { type: 'user_group', op: 'add_members', group_id: id, user_ids: [user.id] }, everyone);
  }
  if (!user.isActive) return;
  // Guests are not shown the default channels.
  if ((before === ROLE.guest) !== (role === ROLE.guest)) queueEvent(out, { type: 'default_streams', default_streams: defaultStreamIds(realm, user) }, [user.id]);
  streams.forEach((stream, i) => {
    const seesNow = hasMetadataAccess(realm, user, stream);
    if (seesNow !== sawBefore[i]) queueSightChange(realm, out, stream, seesNow ? [user.id] : [], seesNow ? [] : [user.id]);
  });
}

interface UpdateParams {
  user_id_or_email: string;
  full_name?: string;
  role?: number;
  profile_data?: { id: number; value: unknown }[];
}

/**
 * PATCH /users/{user_id} and PATCH /users/{email} (one route: a path segment cannot tell them
 * apart): an administrator changes another user's name or role. As in the
 * reference, deactivated users and bots can be edited, only owners grant or remove the owner
 * role, the only owner keeps it, and name_changes_disabled does not apply to administrators.
 * profile_data sets custom profile field values, an empty value removing one (profile-fields/).
 * Everything is checked before anything changes, unlike the reference, which changes the role
 * before it looks at the profile data.
 */
const update = operation<UpdateParams>({
  auth: 'user',
  params: {
    properties: {
      user_id_or_email: { type: 'string' },
      full_name: { type: 'string' },
      role: { type: 'integer' },
      profile_data: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id', 'value'] } },
    },
    required: ['user_id_or_email'],
  },
  handler: async (ctx) => {
    const actor = me(ctx);
    const { shard, realm, params: p } = ctx;
    const target = userByIdOrEmail(shard, realm, p.user_id_or_email);
    if (!canAdminUser(actor, target)) throw insufficientPermission();
    if (p.role !== undefined && !ROLES.includes(p.role)) throw badRequest('Invalid role');
    const role = p.role !== undefined && p.role !== target.role ? (p.role as Role) : null;
    if (role !== null) {
      if ((role === ROLE.owner || target.role === ROLE.owner) && actor.role !== ROLE.owner) throw ownerRequired();
      if (actor.role > ROLE.administrator) throw adminRequired();
      const owners = activeHumanOwners(realm);
      if (target.role === ROLE.owner && owners.length === 1 && owners[0].id === target.id) {
        throw badRequest('The owner permission cannot be removed from the only organization owner.');
      }
    }
    const fullName = p.full_name !== undefined && p.full_name.trim() !== '' && p.full_name !== target.fullName ? checkFullName(p.full_name) : null;
    const profile = p.profile_data ? checkProfileData(realm, actor, p.profile_data, true) : [];

    if (role === null && (fullName === null || fullName === target.fullName) && profile.length === 0) return {};
    const out = outbox(shard);
    if (role !== null) changeRole(shard, realm, out, target, role);
    applyProfileChanges(shard, realm, out.batch, target, profile, (event, ids) => queueEvent(out, event, ids));
    if (fullName !== null && fullName !== target.fullName) {
      target.fullName = fullName;
      saveUser(shard, out.batch, realm, target);
      queueEvent(out, { type: 'realm_user', op: 'update', person: { user_id: target.id, full_name: fullName } }, usersWhoCanAccess(shard, realm, target));
    }
    await flush(shard, realm, out);
    return {};
  },
});

export const updateOperations = {
  'users.update': update,
};
