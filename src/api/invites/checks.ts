import { badRequest, insufficientPermission, invalidArgument, invalidJson } from '../../lib/errors.js';
import { inviteApiId, type InviteRecord } from '../../model/invite.js';
import type { RealmState } from '../../model/realm-state.js';
import { userHasRealmPermission } from '../../model/realm-settings.js';
import { ROLE, type Role, type StreamRecord, type UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { hasContentAccess, isAdmin } from '../streams/access.js';
import { canAddSubscribers } from '../subscriptions/checks.js';
import { ownerRequired } from '../users/update.js';
import { inviteById, realmInvites } from './records.js';

/**
 * The checks of the invitation endpoints, in the reference's order (zerver/views/invite.py):
 * who may invite at all, the role, then the channels, the groups and the welcome text.
 */

/** The reference's require_member_or_admin: no guests, no bots. */
export function checkMemberOrAdmin(user: UserRecord): void {
  if (user.role === ROLE.guest) throw badRequest('Not allowed for guest users');
  if (user.isBot) throw badRequest('This endpoint does not accept bot requests.');
}

/** Email invitations need can_invite_users_group; reusable links create_multiuse_invite_group. */
export function checkCanInvite(realm: RealmState, user: UserRecord, kind: InviteRecord['kind']): void {
  checkMemberOrAdmin(user);
  const setting = kind === 'email' ? 'can_invite_users_group' : 'create_multiuse_invite_group';
  if (!userHasRealmPermission(realm, user, setting)) throw insufficientPermission();
}

const adminRequired = () => badRequest('Must be an organization administrator');

/**
 * Inviting as owner takes an owner; as administrator or moderator, an administrator. So nobody
 * invites at a role less restricted than their own (a moderator invites members and guests).
 */
export function checkInviteRole(user: UserRecord, invitedAs: Role): void {
  if (invitedAs === ROLE.owner && user.role !== ROLE.owner) throw ownerRequired();
  if (invitedAs <= ROLE.moderator && !isAdmin(user)) throw adminRequired();
}

/**
 * Managing someone else's invitation (revoke, resend) takes an administrator, and an owner for an
 * invitation to be an owner.
 */
export function checkCanManage(user: UserRecord, invite: InviteRecord): void {
  if (invite.invitedBy === user.id) return;
  if (invite.invitedAs === ROLE.owner && user.role !== ROLE.owner) throw ownerRequired();
  if (!isAdmin(user)) throw adminRequired();
}

export const noSuchInvitation = () => badRequest('No such invitation');

/** An invitation of this realm and kind that the user may manage. */
export function accessInvite(shard: Shard, realm: RealmState, user: UserRecord, id: number, kind: InviteRecord['kind']): InviteRecord {
  checkMemberOrAdmin(user);
  const invite = kind === 'multiuse' ? realmInvites(shard, realm).find((i) => i.kind === 'multiuse' && inviteApiId(i) === id) : inviteById(shard, realm, id);
  // A revoked email invitation is gone, as the reference deletes it; a revoked link stays known.
  if (!invite || invite.kind !== kind || (kind === 'email' && invite.status === 'revoked')) throw noSuchInvitation();
  checkCanManage(user, invite);
  if (invite.status === 'revoked') throw badRequest('Invitation has already been revoked');
  return invite;
}

/**
 * The channels an invitation subscribes to: each one must exist and be accessible to the inviter
 * (else, as the reference words it, no invites are sent), and the inviter must be allowed to add
 * subscribers to it, unless it is a default channel.
 */
export function checkInviteStreams(realm: RealmState, user: UserRecord, streamIds: number[]): StreamRecord[] {
  const streams: StreamRecord[] = [];
  for (const id of new Set(streamIds)) {
    const stream = realm.streams.get(id);
    if (!stream || stream.isArchived || !hasContentAccess(realm, user, stream)) {
      throw badRequest(`Invalid channel ID ${id}. No invites were sent.`);
    }
    streams.push(stream);
  }
  if (streams.some((s) => !realm.defaultStreamIds.has(s.id) && !canAddSubscribers(realm, user, s))) {
    throw badRequest('You do not have permission to subscribe other users to channels.');
  }
  return streams;
}

/** Only administrators choose an invitation's Welcome Bot text; others get the realm's. */
export function checkWelcomeText(user: UserRecord, text: string | null): void {
  if (text !== null && !isAdmin(user)) throw adminRequired();
}

/** The largest validity we accept: beyond it the expiry would not be a usable timestamp. */
const MAX_MINUTES = 2 ** 40;

/**
 * `invite_expires_in_minutes`: a JSON integer, or null for an invitation that never expires;
 * absent, the server's default. Like the reference, any integer is taken (a negative one makes an
 * invitation that has expired already).
 */
export function parseExpiry(raw: unknown, defaultMinutes: number): number | null {
  if (raw === undefined) return defaultMinutes;
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw invalidJson('invite_expires_in_minutes');
    }
  }
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value) > MAX_MINUTES) {
    throw invalidArgument('invite_expires_in_minutes', 'invite_expires_in_minutes is not an integer');
  }
  return value;
}
