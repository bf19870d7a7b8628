import type { StoreView } from '../store/shard-store.js';
import type { RealmState } from './realm-state.js';
import { userHasRealmPermission } from './realm-settings.js';
import { ROLE, type UserRecord } from './types.js';

/**
 * Restricted user access (the realm setting can_access_all_users_group), after the reference's
 * zerver/lib/users.py. The setting admits only role:everyone or role:members, so only guests are
 * ever restricted. A restricted guest can access:
 *
 * - themselves and every bot;
 * - the users subscribed to a channel they are subscribed to;
 * - the users they share a direct-message conversation (one-to-one or group) with.
 *
 * Everyone else is an "Unknown user" to them. One deliberate difference: the reference stops
 * counting a channel's deactivated subscribers, so a colleague who is deactivated turns into an
 * "Unknown user" with no event saying so; here they stay accessible (their subscriptions are
 * kept), which shows the guest nothing they did not already know and keeps events convergent.
 *
 * Computed on demand, for guests only: guests are few, and the only stored input not held in
 * memory, a guest's direct-message partners, is cached per user below.
 */

export function isRestricted(realm: RealmState, viewer: UserRecord): boolean {
  return viewer.role === ROLE.guest && !userHasRealmPermission(realm, viewer, 'can_access_all_users_group');
}

/** Whether any guest of the realm may be restricted: most realms never pay for the checks. */
export function realmRestrictsGuests(realm: RealmState): boolean {
  const setting = realm.realm.settings.can_access_all_users_group;
  return setting !== undefined && setting !== realm.systemGroupId('role:everyone');
}

/**
 * userId -> the other participants of the user's direct-message conversations. Loaded from the
 * byUserDm index on first use; a send adds to it before its commit (noteDirectMessage), so a
 * later load never misses a message in flight. Deleting a conversation's messages does not take
 * access away again (the reference would), which errs on the side of what the guest has seen.
 */
const dmPartnerCache = new WeakMap<RealmState, Map<number, Set<number>>>();

export function dmPartners(shard: StoreView, realm: RealmState, userId: number): Set<number> {
  let byUser = dmPartnerCache.get(realm);
  if (!byUser) dmPartnerCache.set(realm, (byUser = new Map()));
  let partners = byUser.get(userId);
  if (!partners) {
    partners = new Set();
    const seen = new Set<string>();
    for (const { value } of shard.store.byUserDm.getRange({ start: [realm.id, userId, 0], end: [realm.id, userId, Number.MAX_SAFE_INTEGER] })) {
      const conversation = value as string;
      if (seen.has(conversation)) continue;
      seen.add(conversation);
      for (const id of conversation.split(',')) partners.add(Number(id));
    }
    partners.delete(userId);
    byUser.set(userId, partners);
  }
  return partners;
}

/** A direct message among `participants` is being sent: guests among them gain its other participants. */
export function noteDirectMessage(shard: StoreView, realm: RealmState, participants: UserRecord[]): void {
  for (const user of participants) {
    if (user.role !== ROLE.guest) continue;
    const partners = dmPartners(shard, realm, user.id);
    for (const other of participants) if (other.id !== user.id) partners.add(other.id);
  }
}

/** Whether `viewer` may see who `target` is. */
export function canAccessUser(shard: StoreView, realm: RealmState, viewer: UserRecord, target: UserRecord): boolean {
  if (viewer.id === target.id || target.isBot || !isRestricted(realm, viewer)) return true;
  for (const streamId of realm.subscriptionsOf(viewer.id).keys()) if (realm.subscription(target.id, streamId)) return true;
  return dmPartners(shard, realm, viewer.id).has(target.id);
}

/**
 * The human users a restricted viewer can access (bots are accessible to all and left out), or
 * null when the viewer can access everyone.
 */
export function accessibleUserIds(shard: StoreView, realm: RealmState, viewer: UserRecord): Set<number> | null {
  if (!isRestricted(realm, viewer)) return null;
  const out = new Set<number>([viewer.id]);
  for (const streamId of realm.subscriptionsOf(viewer.id).keys()) for (const id of realm.subscriberIds(streamId)) out.add(id);
  for (const id of dmPartners(shard, realm, viewer.id)) out.add(id);
  return out;
}

/** A predicate for lists of users: who `viewer` can access. */
export function accessFilter(shard: StoreView, realm: RealmState, viewer: UserRecord): (user: UserRecord) => boolean {
  const ids = accessibleUserIds(shard, realm, viewer);
  return ids === null ? () => true : (user) => user.isBot || ids.has(user.id);
}

/**
 * Active users who can access `target`: the audience of realm_user update events about them
 * (the reference's get_user_ids_who_can_access_user).
 */
export function usersWhoCanAccess(shard: StoreView, realm: RealmState, target: UserRecord): number[] {
  const restricts = realmRestrictsGuests(realm);
  const out: number[] = [];
  for (const user of realm.activeUsers()) {
    if (restricts && user.role === ROLE.guest && !canAccessUser(shard, realm, user, target)) continue;
    out.push(user.id);
  }
  return out;
}
