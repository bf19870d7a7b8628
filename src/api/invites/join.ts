import { ApiError } from '../../lib/errors.js';
import { log } from '../../lib/log.js';
import { inviteState, KEY_FORMAT, type InviteRecord, type InviteState } from '../../model/invite.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { defaultChannels } from '../subscriptions/actions.js';
import { checkFullName, doCreateUser } from '../users/actions.js';
import { addUserToGroups } from '../user_groups/actions.js';
import { addressProblems, existingUserProblem } from '../../model/email-addresses.js';
import { announceArrival } from './onboarding.js';
import { emitInvitesChanged, inviteByKey, putInvite, realmInvites } from './records.js';

/**
 * Accepting an invitation: the checks behind the /join/<key>/ page and the account it makes.
 * Every outcome a person can meet has its own wording, so that an expired, revoked or used link
 * says which it is.
 */

export type LinkProblem = 'malformed' | 'unknown' | 'deactivated' | Exclude<InviteState, 'valid'>;

export type LinkLookup = { invite: InviteRecord; problem?: undefined } | { invite?: InviteRecord; problem: LinkProblem };

export function lookupLink(shard: Shard, realm: RealmState, key: string): LinkLookup {
  if (realm.realm.deactivated) return { problem: 'deactivated' };
  if (!KEY_FORMAT.test(key)) return { problem: 'malformed' };
  // Keys are looked up in this realm only: a link of another organization is unknown here.
  const invite = inviteByKey(shard, realm, key);
  if (!invite) return { problem: 'unknown' };
  const state = inviteState(invite, Math.floor(Date.now() / 1000));
  return state === 'valid' ? { invite } : { invite, problem: state };
}

/** A problem with what the person typed in, shown next to the form. */
export class SignupError extends Error {
  constructor(
    readonly field: 'email' | 'full_name' | 'password' | null,
    message: string,
  ) {
    super(message);
  }
}

/** The reference's PASSWORD_MIN_LENGTH (as POST /users), and its form's maximum. */
export const PASSWORD_MIN_LENGTH = 6;
export const PASSWORD_MAX_LENGTH = 100;

export interface SignupForm {
  email: string;
  fullName: string;
  password: string;
}

/** The form's values, checked as the reference's registration form checks them. */
export function checkSignup(realm: RealmState, invite: InviteRecord, form: SignupForm): SignupForm {
  const email = invite.kind === 'email' ? invite.email! : form.email.trim();
  if (email === '') throw new SignupError('email', 'Please enter your email address.');
  const problem = addressProblems(realm, [email]).get(email);
  // The registration form words two refusals its own way (the reference's forms.py).
  if (problem === 'Invalid address.') throw new SignupError('email', 'Please enter a valid email address.');
  if (problem === 'Outside your domain.') throw new SignupError('email', `Your email address, ${email}, is not in one of the domains that are allowed to register for accounts in this organization.`);
  if (problem) throw new SignupError('email', problem);
  const existing = existingUserProblem(realm, email);
  if (existing) {
    throw new SignupError('email', existing[1] ? `The account for ${email} has been deactivated.` : `${email} already has an account in this organization: log in with it instead.`);
  }
  let fullName: string;
  try {
    fullName = checkFullName(form.fullName);
  } catch (err) {
    if (err instanceof ApiError) throw new SignupError('full_name', err.message);
    throw err;
  }
  if (form.password.length < PASSWORD_MIN_LENGTH) throw new SignupError('password', `The password is too weak: use at least ${PASSWORD_MIN_LENGTH} characters.`);
  if (form.password.length > PASSWORD_MAX_LENGTH) throw new SignupError('password', `The password is too long: use at most ${PASSWORD_MAX_LENGTH} characters.`);
  return { email, fullName, password: form.password };
}

/**
 * Makes the account an invitation offers, in one transaction with the invitation's new state:
 * the invited role, the invitation's channels (and the default ones when it says so, as they
 * are now), its groups. An email invitation is used up, and the address's other pending
 * invitations in this realm are revoked, as the reference does. The welcome messages follow.
 */
export async function doAcceptInvite(shard: Shard, realm: RealmState, invite: InviteRecord, form: SignupForm): Promise<UserRecord> {
  const streams = new Map(invite.streamIds.flatMap((id) => {
    const s = realm.streams.get(id);
    return s && !s.isArchived ? [[id, s] as const] : [];
  }));
  if (invite.includeDefaults) for (const s of defaultChannels(realm)) streams.set(s.id, s);
  const inviter = realm.users.get(invite.invitedBy);
  let accepted = invite;
  const user = await doCreateUser(shard, realm, {
    email: form.email,
    fullName: form.fullName,
    password: form.password,
    role: invite.invitedAs,
    streams: [...streams.values()],
    inSameTransaction: (out, user) => {
      // Read again: hashing the password let other requests run since the page checked it. A
      // revocation that landed in those milliseconds does not stop this account (the link was
      // valid when it was submitted); it only stops the next.
      const current = inviteByKey(shard, realm, invite.key) ?? invite;
      accepted = { ...current, userIds: [...current.userIds, user.id], status: current.kind === 'email' ? 'used' : current.status };
      putInvite(shard, out.batch, accepted);
      const revoked = realmInvites(shard, realm).filter(
        (other) => other.id !== invite.id && other.kind === 'email' && other.status === 'active' && other.email!.toLowerCase() === form.email.toLowerCase(),
      );
      for (const other of revoked) putInvite(shard, out.batch, { ...other, status: 'revoked' });
      // Groups deactivated since the invitation are left out; system groups are never named.
      addUserToGroups(shard, realm, out, user, invite.groupIds.flatMap((id) => realm.groups.get(id) ?? []));
      emitInvitesChanged(out.batch, realm, [invite.invitedBy, ...revoked.map((r) => r.invitedBy)]);
    },
  });
  try {
    await announceArrival(shard, realm, { user, inviter, notifyInviter: accepted.notifyReferrerOnJoin, welcomeText: accepted.welcomeText });
  } catch (err) {
    // The account exists and works: a welcome message that could not be sent must not make the
    // page say otherwise.
    log.error({ err, realm: realm.id, user: user.id }, 'welcome messages for a new account failed');
  }
  return user;
}
