import { RateLimiter } from '../../lib/rate-limit.js';
import { log } from '../../lib/log.js';
import { mailerFor } from '../../lib/mail.js';
import type { RealmState } from '../../model/realm-state.js';
import type { Shard } from '../../shard/shard.js';
import { audited } from '../../api-kit/audit.js';
import { operation } from '../../api-kit/operation.js';
import { isValidEmail } from '../../model/email-addresses.js';
import { resetEmail } from './mail-text.js';
import { choosePage, donePage, invalidLinkPage, requestPage, sentPage, tooManyPage } from './page.js';
import { createResetToken, doResetPassword, lookupResetToken, resetLink } from './tokens.js';

/**
 * "Forgot your password?": /accounts/password/reset/ (the reference's path, which the web app's
 * login page links to) and the link it mails, /accounts/password/reset/<token>/. Pages outside
 * /api/v1, rendered here in the realm's shard (front/pages.ts).
 *
 * The request never reveals whether an address has an account: its answer is the same page,
 * sent before anything is looked up (the lookup, the link and the mail happen after, so the
 * answer's timing says nothing either), and the mail goes to the address itself, as the
 * reference's does: the link, or word that there is no (active) account. Requests are limited
 * per address as the reference's password_reset_form_by_email (2 an hour, 5 a day) and per
 * client address, whether or not the address has an account.
 */
const PER_EMAIL: [number, number][] = [[3600, 2], [86400, 5]];
// The reference allows 5 mails a day per client address; an office behind one NAT shares it,
// so a little more here.
const PER_CLIENT: [number, number][] = [[86400, 20]];

const limiters = new WeakMap<Shard, { email: RateLimiter; client: RateLimiter }>();

function limitersOf(shard: Shard) {
  let l = limiters.get(shard);
  if (!l) limiters.set(shard, (l = { email: new RateLimiter(PER_EMAIL), client: new RateLimiter(PER_CLIENT) }));
  return l;
}

/** Looks the address up, makes a link if it has an active account, and mails the outcome. */
async function mailReset(shard: Shard, realm: RealmState, email: string): Promise<void> {
  const user = realm.userByEmail(email);
  let outcome: Parameters<typeof resetEmail>[2] = 'none';
  if (user && !user.isBot && user.isActive) {
    const { token, expiresAt } = await createResetToken(shard, realm, user);
    outcome = { link: resetLink(realm, token), expiresAt };
  } else if (user && !user.isBot) outcome = 'deactivated';
  // The outbox keeps the link when no mail server is set; the log does not.
  await mailerFor(shard.config).send(resetEmail(realm, user?.email ?? email, outcome));
}

const form = operation({
  auth: 'none',
  handler: ({ realm }) => ({ __reply: requestPage(realm) }),
});

const request = operation<{ email?: string }>({
  auth: 'none',
  params: { properties: { email: { type: 'string' } } },
  handler: ({ shard, realm, params, remoteAddr }) => {
    const email = (params.email ?? '').trim();
    if (!isValidEmail(email)) return { __reply: requestPage(realm, email, 'Please enter a valid email address.') };
    if (shard.config.rateLimits.enabled) {
      const l = limitersOf(shard);
      const wait = Math.max(l.client.take(remoteAddr).retryAfter, l.email.take(`${realm.id}:${email.toLowerCase()}`).retryAfter);
      if (wait > 0) return { __reply: tooManyPage(realm, wait) };
    }
    if (!realm.realm.deactivated) {
      setImmediate(() => mailReset(shard, realm, email).catch((err) => log.error({ err, realm: realm.id }, 'password reset mail failed')));
    }
    return { __reply: sentPage(realm) };
  },
});

const tokenParams = { properties: { token: { type: 'string' }, new_password: { type: 'string' }, new_password_confirm: { type: 'string' } }, required: ['token'] };

const chooseForm = operation<{ token: string }>({
  auth: 'none',
  params: tokenParams,
  handler: ({ shard, realm, params }) => {
    const user = lookupResetToken(shard, realm, params.token);
    return { __reply: user ? choosePage(realm, user, params.token, shard.config.passwordMinLength) : invalidLinkPage(realm) };
  },
});

const choose = operation<{ token: string; new_password?: string; new_password_confirm?: string }>({
  auth: 'none',
  params: tokenParams,
  handler: async ({ shard, realm, params }) => {
    const user = lookupResetToken(shard, realm, params.token);
    if (!user) return { __reply: invalidLinkPage(realm) };
    const password = params.new_password ?? '';
    const min = shard.config.passwordMinLength;
    let problem: string | null = null;
    if (password.length < min) problem = `The password is too weak: use at least ${min} characters.`;
    else if (password.length > 100) problem = 'The password is too long: use at most 100 characters.';
    else if (password !== params.new_password_confirm) problem = 'The two passwords do not match.';
    if (problem) return { __reply: choosePage(realm, user, params.token, min, problem) };
    const changed = await doResetPassword(shard, realm, params.token, password);
    return { __reply: changed ? { ...donePage(realm, changed), audit: { target: changed.id } } : invalidLinkPage(realm) };
  },
});

audited('passwordReset.request', { event: 'password_reset.request', fields: (p) => ({ email: p.email }) });
audited('passwordReset.choose', { event: 'password_reset.done' });

export const operations = {
  'passwordReset.form': form,
  'passwordReset.request': request,
  'passwordReset.chooseForm': chooseForm,
  'passwordReset.choose': choose,
};
