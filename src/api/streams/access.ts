import { userHasPermission } from '../../model/groups.js';
import type { RealmState } from '../../model/realm-state.js';
import { ROLE, type StreamRecord, type UserRecord } from '../../model/types.js';

/**
 * Who may see and use a channel, after the reference's two levels of access:
 *
 * - metadata access: knowing the channel exists (name, description, settings, subscribers);
 * - content access: reading its messages and subscribing oneself.
 *
 * Web-public channels and one's own subscriptions give both. Guests get nothing more. Members get
 * both for public channels. For private channels, can_subscribe_group and can_add_subscribers_group
 * give content access, and administrators (and can_administer_channel_group) metadata access only.
 * The three channel settings that grant access never admit guests (they exclude role:everyone).
 */
export const isAdmin = (user: UserRecord): boolean => user.role <= ROLE.administrator;
export const isGuest = (user: UserRecord): boolean => user.role === ROLE.guest;

export function isSubscribed(realm: RealmState, userId: number, streamId: number): boolean {
  return realm.subscription(userId, streamId) !== undefined;
}

/** Whether the user is in the group a channel permission setting names. */
export function inChannelGroup(realm: RealmState, user: UserRecord, stream: StreamRecord, setting: string): boolean {
  const value = stream.groups[setting];
  return value !== undefined && userHasPermission(realm, user, value);
}

export const METADATA_SETTINGS = ['can_administer_channel_group', 'can_add_subscribers_group', 'can_subscribe_group'];

function metadataViaGroups(realm: RealmState, user: UserRecord, stream: StreamRecord): boolean {
  if (isGuest(user)) return false;
  return METADATA_SETTINGS.some((s) => inChannelGroup(realm, user, stream, s));
}

export function hasContentAccess(realm: RealmState, user: UserRecord, stream: StreamRecord): boolean {
  if (stream.isWebPublic || isSubscribed(realm, user.id, stream.id)) return true;
  if (isGuest(user)) return false;
  if (!stream.inviteOnly) return true;
  return inChannelGroup(realm, user, stream, 'can_subscribe_group') || inChannelGroup(realm, user, stream, 'can_add_subscribers_group');
}

export function hasMetadataAccess(realm: RealmState, user: UserRecord, stream: StreamRecord): boolean {
  if (hasContentAccess(realm, user, stream)) return true;
  if (isGuest(user)) return false;
  return isAdmin(user) || metadataViaGroups(realm, user, stream);
}

/** Administrators administer every channel; others need can_administer_channel_group. */
export function canAdministerChannel(realm: RealmState, user: UserRecord, stream: StreamRecord): boolean {
  if (isAdmin(user)) return true;
  return !isGuest(user) && inChannelGroup(realm, user, stream, 'can_administer_channel_group');
}

/**
 * Active users who can see that the channel exists and who its subscribers are: the audience of
 * stream create/delete events and of peer_add/peer_remove (the reference's
 * can_access_stream_metadata_user_ids).
 */
export function metadataUserIds(realm: RealmState, stream: StreamRecord): number[] {
  const out: number[] = [];
  for (const user of realm.activeUsers()) if (hasMetadataAccess(realm, user, stream)) out.push(user.id);
  return out;
}

/** Subscribers with active accounts, ascending: what clients see as a channel's subscribers. */
export function activeSubscriberIds(realm: RealmState, streamId: number): number[] {
  const out: number[] = [];
  for (const id of realm.subscriberIds(streamId)) if (realm.users.get(id)?.isActive) out.push(id);
  return out.sort((a, b) => a - b);
}
