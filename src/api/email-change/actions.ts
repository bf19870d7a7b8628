import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { badRequest, rateLimited } from '../../lib/errors.js';
import { mailerFor } from '../../lib/mail.js';
import type { RealmState } from '../../model/realm-state.js';
import { realmSetting } from '../../model/realm-settings.js';
import type { UserRecord } from '../../model/types.js';
import { usersWhoCanAccess } from '../../model/user-access.js';
import { jobsOf } from '../../shard/jobs.js';
import { flush, outbox, queueEvent, type Outbox } from '../../shard/outbox.js';
import type { Shard } from '../../shard/shard.js';
import { zuliprcPath } from '../../store/directory.js';
import { notifyAvatarUrlChange } from '../avatars/actions.js';
import { existingUserProblem, isValidEmail, realmRefusals } from '../../model/email-addresses.js';
import { attemptKey, limiterOf } from '../server/fetch-api-key.js';
import { RateLimiter } from '../../lib/rate-limit.js';
import { isAdmin } from '../streams/access.js';
import { saveUser } from '../users/actions.js';
import { confirmNewEmail } from './mail-text.js';
import { confirmLink, createEmailChange, lookupEmailChange, markUsed, type LinkProblem } from './tokens.js';

/**
 * Changing one's address, as the reference does it for every user: PATCH /settings {email}
 * checks the request (validate_email_change_request) and mails a link to the new address
 * (do_start_email_change_process); the link's page confirms it, and the change itself
 * (do_change_user_delivery_email) is the one `stoa user set-email` also makes.
 *
 * This server shows every address to everyone, so the address a user logs in with, the one
 * clients see and the one mail goes to are one field (`UserRecord.email`), and a change moves
 * all three, as the reference's does for a user whose address is public.
 */

/** The reference's email_change_by_user rule: 2 requests an hour, 5 a day, per user. */
const PER_USER: [number, number][] = [[3600, 2], [86400, 5]];
const limiters = new WeakMap<Shard, RateLimiter>();

/** The notice to the old address, a durable job written with the change (index.ts runs it). */
export const NOTICE_JOB = 'emailChange.notice';
export interface NoticeJob {
  oldEmail: string;
  newEmail: string;
}

/** The reference's validate_email_change_request, for a user known to be active. */
export function checkEmailChange(realm: RealmState, user: UserRecord, newEmail: string): void {
  if (realmSetting(realm, 'email_changes_disabled') === true && !isAdmin(user)) throw badRequest('Email address changes are disabled in this organization.');
  if (!isValidEmail(newEmail)) throw badRequest('Invalid address.');
  // validate_email_is_valid with the realm's validator: the rules invitations and POST /users apply.
  const refusal = realmRefusals(realm)(newEmail);
  if (refusal === 'domain') throw badRequest('Outside your domain.');
  if (refusal === 'disposable') throw badRequest('Please use your real email address.');
  if (refusal === 'plus') throw badRequest('Email addresses containing + are not allowed.');
  // The user's own address in other letter case counts as taken, as the reference counts it.
  const existing = existingUserProblem(realm, newEmail);
  if (existing) throw badRequest(existing[0]);
}

/** Counts a request against the user's allowance (when the server limits rates at all). */
export function takeEmailChangeAllowance(shard: Shard, realm: RealmState, user: UserRecord): void {
  if (!shard.config.rateLimits.enabled) return;
  let limiter = limiters.get(shard);
  if (!limiter) limiters.set(shard, (limiter = new RateLimiter(PER_USER)));
  const { retryAfter } = limiter.take(`${realm.id}:${user.id}`);
  if (retryAfter > 0) throw rateLimited(retryAfter);
}

/**
 * Writes the link (revoking the user's earlier ones), then mails it to the new address. The
 * answer waits for the mail, as an invitation's does: with no mail server, or one that refuses
 * it, the mail is kept in the outbox and the log says where.
 */
export async function doStartEmailChange(shard: Shard, realm: RealmState, user: UserRecord, newEmail: string): Promise<void> {
  const { token, record } = await createEmailChange(shard, realm, user, newEmail);
  const link = confirmLink(realm, token);
  // With no mail server, the outbox keeps the link; the log does not (as for password resets).
  await mailerFor(shard.config).send(confirmNewEmail(realm, { ...record, link }));
}

/**
 * The reference's do_change_user_delivery_email: the new address, and the realm_user updates
 * that tell clients (delivery_email, the avatar when it is a Gravatar, made from the address,
 * then new_email), to everyone who can see the user. The API key and browser sessions stay: they
 * are the account's, not the address's (the reference's session hash is made from the password).
 * Writes on `out` when given (a confirmation adds its own rows to the transaction).
 *
 * After the commit, the failed-login count kept under the old address goes, and a zuliprc the
 * server wrote for this account (an owner's, in the data directory) names the new address.
 */
export async function doChangeUserEmail(shard: Shard, realm: RealmState, user: UserRecord, newEmail: string, out: Outbox = outbox(shard)): Promise<{ zuliprc: string | null }> {
  const old = user.email;
  user.email = newEmail;
  realm.setUser(user, old);
  saveUser(shard, out.batch, realm, user);
  const viewers = usersWhoCanAccess(shard, realm, user);
  queueEvent(out, { type: 'realm_user', op: 'update', person: { user_id: user.id, delivery_email: newEmail } }, viewers);
  if (user.avatarSource === 'G') notifyAvatarUrlChange(shard, out, realm, user);
  queueEvent(out, { type: 'realm_user', op: 'update', person: { user_id: user.id, new_email: newEmail } }, viewers);
  await flush(shard, realm, out);
  limiterOf(shard).clear(attemptKey(realm.id, old));
  return { zuliprc: rewriteZuliprc(shard, realm, user) };
}

/**
 * The realm's owner zuliprc (`<dataDir>/zuliprc` or `<subdomain>.zuliprc`), if it holds this
 * account's key: its `email` line follows the change, its mode stays. Returns its path then.
 */
function rewriteZuliprc(shard: Shard, realm: RealmState, user: UserRecord): string | null {
  const path = zuliprcPath(shard.config.dataDir, realm.realm.subdomain);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  const key = /^key\s*=\s*(.*?)\s*$/m.exec(text)?.[1];
  if (key !== user.apiKey) return null;
  writeFileSync(path, text.replace(/^email\s*=.*$/m, `email=${user.email}`), { mode: statSync(path).mode & 0o777 });
  return path;
}

/** Why a confirmation was refused: a link that does not work, the account or realm deactivated, or a check that fails now. */
export type ConfirmRefusal = { link: LinkProblem } | { deactivated: 'user' | 'realm' } | { refused: string };

export type ConfirmResult = { ok: true; user: UserRecord; oldEmail: string; newEmail: string } | ({ ok: false } & ConfirmRefusal);

/**
 * The reference's confirm_email_change: the link's request is checked again as it stands now
 * (the realm's rules or the address's owner may have changed since), then, in one transaction,
 * the link is used up, the address changes, and the notice to the old address is scheduled. A
 * refused confirmation leaves the link as it was.
 */
export async function doConfirmEmailChange(shard: Shard, realm: RealmState, token: string): Promise<ConfirmResult> {
  const found = lookupEmailChange(shard, realm, token);
  if (!found.ok) return { ok: false, link: found.problem };
  const { record, user } = found;
  if (realm.realm.deactivated) return { ok: false, deactivated: 'realm' };
  if (!user.isActive) return { ok: false, deactivated: 'user' };
  try {
    checkEmailChange(realm, user, record.newEmail);
  } catch (err) {
    return { ok: false, refused: (err as Error).message };
  }
  const out = outbox(shard);
  markUsed(shard, out.batch, realm, token, record);
  const now = Date.now();
  jobsOf(shard).schedule<NoticeJob>(out.batch, { key: `${NOTICE_JOB}:${realm.id}:${user.id}:${now}`, kind: NOTICE_JOB, realmId: realm.id, due: now, data: { oldEmail: record.oldEmail, newEmail: record.newEmail } });
  await doChangeUserEmail(shard, realm, user, record.newEmail, out);
  return { ok: true, user, oldEmail: record.oldEmail, newEmail: record.newEmail };
}
