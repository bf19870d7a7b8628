import { randomBytes } from 'node:crypto';
import type { Role } from './types.js';

/**
 * An invitation: an email invitation (one address, one account) or a reusable link (any number
 * of accounts until it expires or is revoked), as the reference's PreregistrationUser and
 * MultiuseInvite. Both kinds share one id counter per shard, so an id names one invitation; the
 * API still keeps them apart (DELETE /invites/{id} finds email invitations only).
 *
 * Records are never deleted: a used, revoked or expired invitation stays, so that its link can
 * say which of those it is.
 */
export interface InviteRecord {
  id: number;
  realmId: number;
  kind: 'email' | 'multiuse';
  /** The secret in the link `<realm url>/join/<key>/`. */
  key: string;
  /** Email invitations only. */
  email?: string;
  invitedBy: number;
  invitedAs: Role;
  /** Channels the new user joins, beyond the default ones when includeDefaults. */
  streamIds: number[];
  /** User groups the new user joins. */
  groupIds: number[];
  includeDefaults: boolean;
  /** Email invitations: tell the inviter (Notification Bot) when the account is made. */
  notifyReferrerOnJoin: boolean;
  /** null: the realm's welcome text at joining time; '': no custom Welcome Bot message. */
  welcomeText: string | null;
  /** Seconds. */
  invitedAt: number;
  /** Seconds; null: never expires. */
  expiresAt: number | null;
  /** 'used' only for email invitations: a reusable link is never used up. */
  status: 'active' | 'used' | 'revoked';
  /** Accounts made with it. */
  userIds: number[];
  /**
   * The id clients see, when it is not `id` (the row's key, from the shard's invitation counter):
   * reusable links are numbered on their own, as the reference's MultiuseInvite table numbers
   * them apart from email invitations (its API test suite edits "reusable link 1").
   */
  apiId?: number;
}

/** The id GET /invites shows and the /invites/... endpoints take, unique per realm and kind. */
export function inviteApiId(invite: InviteRecord): number {
  return invite.apiId ?? invite.id;
}

export type InviteState = 'valid' | 'expired' | 'revoked' | 'used';

/** What an invitation's link does now. */
export function inviteState(invite: InviteRecord, nowSeconds: number): InviteState {
  if (invite.status === 'revoked') return 'revoked';
  if (invite.status === 'used') return 'used';
  if (invite.expiresAt !== null && invite.expiresAt <= nowSeconds) return 'expired';
  return 'valid';
}

const KEY_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
export const KEY_LENGTH = 24;
export const KEY_FORMAT = /^[a-z2-7]{24}$/;

/** A link key as the reference makes them: 24 lower-case base-32 characters, 120 random bits. */
export function generateInviteKey(): string {
  const bytes = randomBytes(KEY_LENGTH);
  let key = '';
  // 256 is a multiple of 32, so the low five bits of a random byte are uniform.
  for (const byte of bytes) key += KEY_ALPHABET[byte & 31];
  return key;
}
