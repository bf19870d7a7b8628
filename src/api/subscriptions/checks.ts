import { badRequest, invalidArgument } from '../../lib/errors.js';
import { userHasPermission } from '../../model/groups.js';
import type { RealmState } from '../../model/realm-state.js';
import type { GroupSetting, StreamRecord, UserRecord } from '../../model/types.js';
import { canAdministerChannel, hasContentAccess, hasMetadataAccess, inChannelGroup, isAdmin, isGuest } from '../streams/access.js';

/**
 * `principals`: all user ids or all emails, of active users of this realm (bots included). A user
 * of another realm is simply not found.
 */
export function resolvePrincipals(realm: RealmState, principals: unknown[]): UserRecord[] {
  const ids = principals.every((p) => Number.isInteger(p));
  if (!ids && !principals.every((p) => typeof p === 'string')) {
    throw invalidArgument('principals', 'principals is not a list of user IDs or a list of emails');
  }
  const users = new Map<number, UserRecord>();
  for (const p of principals) {
    const user = ids ? realm.users.get(p as number) : realm.userByEmail((p as string).trim());
    if (!user || user.isSystemBot) throw badRequest('No such user');
    if (!user.isActive) throw badRequest('User is deactivated');
    users.set(user.id, user);
  }
  return [...users.values()];
}

/**
 * Whether the user may subscribe others to a channel they can access: the realm's
 * can_add_subscribers_group, administrators, the channel's administrators, or its
 * can_add_subscribers_group. Guests never.
 */
export function canAddSubscribers(realm: RealmState, user: UserRecord, stream: StreamRecord): boolean {
  if (isGuest(user)) return false;
  const realmSetting = realm.realm.settings.can_add_subscribers_group as GroupSetting | undefined;
  if (realmSetting !== undefined && userHasPermission(realm, user, realmSetting)) return true;
  return canAdministerChannel(realm, user, stream) || inChannelGroup(realm, user, stream, 'can_add_subscribers_group');
}

/**
 * Sorts existing channels for a subscribe request (the reference's
 * filter_stream_authorization_for_adding_subscribers): without content access a channel is
 * unauthorized; subscribing others also needs the permission to add subscribers.
 */
export function classifyForSubscribing(realm: RealmState, user: UserRecord, streams: StreamRecord[], subscribingOthers: boolean) {
  const unauthorized = streams.filter((s) => !hasContentAccess(realm, user, s));
  const accessible = streams.filter((s) => !unauthorized.includes(s));
  const cannotAdd = subscribingOthers ? accessible.filter((s) => !canAddSubscribers(realm, user, s)) : [];
  const authorized = accessible.filter((s) => !cannotAdd.includes(s));
  return { authorized, unauthorized, cannotAdd };
}

/**
 * Whether the user may unsubscribe other users from all these channels (the reference's
 * bulk_can_remove_subscribers_from_streams): administrators always; otherwise channel
 * administrators of every one, or, with access to each, membership of each one's
 * can_remove_subscribers_group.
 */
export function canRemoveOthers(realm: RealmState, user: UserRecord, streams: StreamRecord[]): boolean {
  if (isAdmin(user)) return true;
  if (isGuest(user)) return false;
  if (streams.every((s) => inChannelGroup(realm, user, s, 'can_administer_channel_group'))) return true;
  if (!streams.every((s) => hasMetadataAccess(realm, user, s))) return false;
  return streams.every((s) => inChannelGroup(realm, user, s, 'can_remove_subscribers_group'));
}

/** Users a user acts for without special permission: themselves and their own bots. */
export function controlsUser(user: UserRecord, target: UserRecord): boolean {
  return target.id === user.id || (target.isBot && target.botOwnerId === user.id);
}

const HEX_COLOR = /^#[0-9a-f]{3,6}$/i;

export function checkColor(varName: string, color: string): string {
  if (!HEX_COLOR.test(color)) throw badRequest(`${varName} is not a hex color code`);
  return color;
}
