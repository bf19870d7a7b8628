import { ApiError, badRequest } from '../../lib/errors.js';
import { log } from '../../lib/log.js';
import { mailerFor } from '../../lib/mail.js';
import { notificationBot } from '../messages/notices.js';
import { direct } from './onboarding.js';
import { generateInviteKey, inviteApiId, type InviteRecord } from '../../model/invite.js';
import type { RealmState } from '../../model/realm-state.js';
import { realmSetting } from '../../model/realm-settings.js';
import type { GroupRecord, Role, StreamRecord, UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { isAdmin } from '../streams/access.js';
import { addressProblems, existingUserProblem } from '../../model/email-addresses.js';
import { invitationEmail } from './mail-text.js';
import { emitInvitesChanged, inviteByKey, putInvite, putInviteKey, realmInvites } from './records.js';
import { inviteLink } from './views.js';

/** What an invitation grants, checked by the caller (checks.ts). */
export interface InviteSpec {
  invitedAs: Role;
  /** Minutes; null: never expires. */
  expiresInMinutes: number | null;
  streams: StreamRecord[];
  groups: GroupRecord[];
  includeDefaults: boolean;
  notifyReferrerOnJoin: boolean;
  welcomeText: string | null;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A fresh invitation record; the caller writes it. */
function newInvite(shard: Shard, realm: RealmState, inviter: UserRecord, spec: InviteSpec, kind: InviteRecord['kind'], id: number, email?: string): InviteRecord {
  let key = generateInviteKey();
  // 120 random bits do not collide in practice; the check costs one read.
  while (inviteByKey(shard, realm, key)) key = generateInviteKey();
  const invitedAt = nowSeconds();
  const invite: InviteRecord = {
    id,
    realmId: realm.id,
    kind,
    key,
    invitedBy: inviter.id,
    invitedAs: spec.invitedAs,
    streamIds: spec.streams.map((s) => s.id),
    groupIds: spec.groups.map((g) => g.id),
    includeDefaults: spec.includeDefaults,
    notifyReferrerOnJoin: kind === 'email' && spec.notifyReferrerOnJoin,
    welcomeText: spec.welcomeText,
    invitedAt,
    expiresAt: spec.expiresInMinutes === null ? null : invitedAt + spec.expiresInMinutes * 60,
    status: 'active',
    userIds: [],
  };
  if (email !== undefined) invite.email = email;
  return invite;
}

/** POST /invites/multiuse: a reusable link. Returns its URL. */
export async function doCreateMultiuseInvite(shard: Shard, realm: RealmState, inviter: UserRecord, spec: InviteSpec): Promise<string> {
  const batch = shard.batch();
  const invite = newInvite(shard, realm, inviter, spec, 'multiuse', shard.allocate(batch, 'invite'));
  // Links have their own numbering (InviteRecord.apiId), clear of the ids older links kept.
  const taken = new Set(realmInvites(shard, realm).filter((i) => i.kind === 'multiuse').map(inviteApiId));
  do invite.apiId = shard.allocate(batch, 'multiuseInvite');
  while (taken.has(invite.apiId));
  putInvite(shard, batch, invite);
  putInviteKey(shard, batch, invite);
  emitInvitesChanged(batch, realm, [inviter.id]);
  await batch.commit();
  return inviteLink(realm, invite);
}

/** The reference's INVITES_MIN_USER_AGE_DAYS: in a realm anyone may join, new accounts may not invite. */
const MIN_INVITER_AGE_SECONDS = 3 * 86400;

/** The reference's InvitationError: which addresses were skipped, and why. */
function invitationFailed(msg: string, errors: [string, string, boolean][], sent: boolean): ApiError {
  return new ApiError(msg, {
    code: 'INVITATION_FAILED',
    data: { errors, sent_invitations: sent, license_limit_reached: false, daily_limit_reached: false },
  });
}

/**
 * POST /invites: one email invitation per address, committed together, then mailed. Addresses
 * that do not validate stop everything; addresses that already have accounts are skipped, and
 * said so in an INVITATION_FAILED answer after the others were invited, as the reference does.
 */
export async function doInviteByEmail(shard: Shard, realm: RealmState, inviter: UserRecord, emails: string[], spec: InviteSpec): Promise<void> {
  if (realmSetting(realm, 'invite_required') !== true && !isAdmin(inviter) && inviter.dateJoined > nowSeconds() - MIN_INVITER_AGE_SECONDS) {
    throw invitationFailed('Your account is too new to send invites for this organization. Ask an organization admin, or a more experienced user.', [], false);
  }
  const problems = addressProblems(realm, emails);
  const errors: [string, string, boolean][] = [...problems].map(([email, msg]) => [email, msg, false]);
  const skipped: [string, string, boolean][] = [];
  for (const email of emails) {
    if (problems.has(email)) continue;
    const existing = existingUserProblem(realm, email);
    if (existing) skipped.push([email, ...existing]);
  }
  if (errors.length > 0) throw invitationFailed("Some emails did not validate, so we didn't send any invitations.", [...errors, ...skipped], false);
  if (skipped.length === emails.length) throw invitationFailed("We weren't able to invite anyone.", skipped, false);

  const batch = shard.batch();
  const invites: InviteRecord[] = [];
  for (const email of emails) {
    if (skipped.some(([e]) => e === email)) continue;
    const invite = newInvite(shard, realm, inviter, spec, 'email', shard.allocate(batch, 'invite'), email);
    putInvite(shard, batch, invite);
    putInviteKey(shard, batch, invite);
    invites.push(invite);
  }
  emitInvitesChanged(batch, realm, [inviter.id]);
  await batch.commit();
  for (const invite of invites) await sendInvitationEmail(shard, realm, invite);
  if (skipped.length > 0) {
    throw invitationFailed(
      "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
      skipped,
      true,
    );
  }
}

/**
 * Mails an email invitation its link (SMTP, or the outbox: lib/mail.ts). When the mail server
 * refuses it or cannot be reached, the invitation stays (the link works; it is kept in the
 * outbox), and its sender hears of it from Notification Bot, with the link to hand over and the
 * way to resend; the reason, which may name the server's internals, goes only to the log.
 */
export async function sendInvitationEmail(shard: Shard, realm: RealmState, invite: InviteRecord): Promise<void> {
  const inviter = realm.users.get(invite.invitedBy);
  const link = inviteLink(realm, invite);
  const message = invitationEmail({ realm, invite, inviter, link });
  const result = await mailerFor(shard.config).send(message, `Invitation link: ${link}`);
  if (!result.error || !inviter?.isActive) return;
  try {
    await direct(
      shard,
      realm,
      await notificationBot(shard, realm),
      inviter,
      `Your invitation to ${invite.email} could not be sent: the mail server did not accept it (the server's log says why). ` +
        `The invitation is kept: resend it from the list of invitations once mail works, or give ${invite.email} this link yourself: ${link}`,
    );
  } catch (err) {
    log.error({ err, realm: realm.id, invite: invite.id }, 'telling an inviter that their invitation could not be mailed failed');
  }
}

/** POST /invites/{id}/resend: the same link, mailed again. */
export async function doResendInvite(shard: Shard, realm: RealmState, invite: InviteRecord): Promise<void> {
  await sendInvitationEmail(shard, realm, invite);
}

/** DELETE /invites/{id} and /invites/multiuse/{id}: the link stops working. */
export async function doRevokeInvite(shard: Shard, realm: RealmState, invite: InviteRecord): Promise<void> {
  if (invite.status === 'revoked') throw badRequest('Invitation has already been revoked');
  const batch = shard.batch();
  putInvite(shard, batch, { ...invite, status: 'revoked' });
  emitInvitesChanged(batch, realm, [invite.invitedBy]);
  await batch.commit();
}
