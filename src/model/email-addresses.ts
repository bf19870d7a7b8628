import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { RealmState } from './realm-state.js';
import { realmSetting } from './realm-settings.js';

/**
 * Addresses an invitation, a sign-up, a new account or an address change may use, as the
 * reference's email_validation.py decides: a well-formed address, not of a disposable-mail
 * domain (disallow_disposable_email_addresses), and, in a realm restricted to its domains
 * (api/realm-domains/), of one of them without a `+`. Below the API, since users, invitations
 * and address changes all ask.
 */

// The address form the reference's EmailField accepts (Django's EmailValidator): a dot-atom
// local part, and a domain with a dot-separated top-level label, or `localhost`.
const LOCAL_PART = /^[-!#$%&'*+/=?^_`{}|~0-9a-z]+(\.[-!#$%&'*+/=?^_`{}|~0-9a-z]+)*$/i;
const DOMAIN = /^((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+)(?:[a-z0-9-]{2,63}(?<!-))$/i;

/** Whether the reference would accept `email` as an address for a new account. */
export function isValidEmail(email: string): boolean {
  if (email.length > 254) return false;
  const at = email.lastIndexOf('@');
  if (at <= 0) return false;
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  return LOCAL_PART.test(local) && (domain.toLowerCase() === 'localhost' || DOMAIN.test(domain));
}

/**
 * The reference's email_allowed_for_realm, for a realm restricted to its domains: the address's
 * domain is one of them, or a subdomain of one that allows subdomains.
 */
export function domainAllowed(realm: RealmState, emailDomain: string): boolean {
  const domains = realm.realm.domains ?? [];
  if (domains.some((d) => d.domain === emailDomain)) return true;
  const parts = emailDomain.split('.');
  for (let i = 1; i < parts.length; i++) {
    const parent = parts.slice(i).join('.');
    if (domains.some((d) => d.allowSubdomains && d.domain === parent)) return true;
  }
  return false;
}

/** The reference's get_invitee_emails_set: split on commas and newlines, `Name <addr>` allowed. */
export function parseInviteeEmails(raw: string): string[] {
  const out = new Set<string>();
  for (const part of raw.split(/[,\n]/)) {
    const named = /<(.*)>/.exec(part);
    const email = (named ? named[1] : part).trim();
    if (email !== '') out.add(email);
  }
  return [...out];
}

/**
 * The disposable-mail domains (the disposable-email-domains list, about 120,000 of them), read
 * when an address is checked and then dropped: invitations are rare, and the set costs megabytes
 * that an idle server should not hold.
 */
function disposableDomains(): Set<string> {
  const path = createRequire(import.meta.url).resolve('disposable-email-domains');
  return new Set(JSON.parse(readFileSync(path, 'utf8')) as string[]);
}

function domainOf(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

/**
 * Why each address may not be used in this realm ("Invalid address.", ...), for those that may
 * not; the reference's validate_email_is_valid with the realm's validator.
 */
export function addressProblems(realm: RealmState, emails: string[]): Map<string, string> {
  const problems = new Map<string, string>();
  const refusals = realmRefusals(realm);
  for (const email of emails) {
    if (!isValidEmail(email)) {
      problems.set(email, 'Invalid address.');
      continue;
    }
    const refusal = refusals(email);
    if (refusal === 'plus') problems.set(email, 'Email addresses containing + are not allowed.');
    else if (refusal === 'domain') problems.set(email, 'Outside your domain.');
    else if (refusal === 'disposable') problems.set(email, 'Please use your real email address.');
  }
  return problems;
}

export type Refusal = 'plus' | 'domain' | 'disposable';

/**
 * The reference's email_allowed_for_realm for a well-formed address: why the realm refuses it,
 * or null. Returned as a function so that checking many addresses reads the disposable-mail list
 * once.
 */
export function realmRefusals(realm: RealmState): (email: string) => Refusal | null {
  const restricted = realmSetting(realm, 'emails_restricted_to_domains') === true;
  const noDisposable = !restricted && realmSetting(realm, 'disallow_disposable_email_addresses') === true;
  let disposable: Set<string> | null = null;
  return (email) => {
    if (restricted && email.slice(0, email.lastIndexOf('@')).includes('+')) return 'plus';
    if (restricted && !domainAllowed(realm, domainOf(email))) return 'domain';
    if (noDisposable && (disposable ??= disposableDomains()).has(domainOf(email))) return 'disposable';
    return null;
  };
}

/**
 * Addresses that already belong to someone here: [message, deactivated], as the reference's
 * get_existing_user_errors words them.
 */
export function existingUserProblem(realm: RealmState, email: string): [string, boolean] | null {
  const user = realm.userByEmail(email);
  if (!user) return null;
  if (user.isSystemBot) return ['Reserved for system bots.', false];
  if (!user.isActive) return ['Account has been deactivated.', true];
  return ['Already has an account.', false];
}
