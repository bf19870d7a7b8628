import { generatePassword, hashPassword, verifyPassword } from '../../lib/auth.js';
import { authenticationFailed, badRequest, rateLimited, realmDeactivated, userDeactivated } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { operation, type OpContext } from '../../api-kit/operation.js';
import { AttemptLimiter } from '../../lib/rate-limit.js';

// One limiter per shard: the shard's thread is the only one that sees its realms' logins.
const limiters = new WeakMap<Shard, AttemptLimiter>();

/** The shard's password-attempt limiter, shared by every check of a password (login, password change). */
export function limiterOf(shard: Shard): AttemptLimiter {
  let limiter = limiters.get(shard);
  if (!limiter) {
    const { failures, windowSeconds } = shard.config.fetchApiKeyRateLimit;
    limiter = new AttemptLimiter(failures, windowSeconds * 1000);
    limiters.set(shard, limiter);
  }
  return limiter;
}

/** Attempts are counted per realm and username, whichever endpoint the password is tried on. */
export const attemptKey = (realmId: number, username: string) => `${realmId}:${username.toLowerCase()}`;

// Checked against when the username is unknown, so a miss costs what a wrong password costs.
let dummyHash: Promise<string> | null = null;

// The reference validates the username as an email first (Django's message). Loose on purpose:
// accounts created from the config or the CLI may use any address the config schema allows.
const USERNAME = /^[^@\s]+@[^@\s]+$/;

/**
 * A password login, for POST /fetch_api_key and the web app's login page. Attempts are limited
 * per (realm, username), before the password is looked at, so the limit holds even for the
 * right password. A deactivated account answers USER_DEACTIVATED, as the reference does. A
 * failure for a name nobody has is told to the front end (`outcome`), which counts it against
 * the client's address (front/guard.ts).
 */
export async function passwordLogin(shard: Shard, realm: RealmState, rawUsername: string, password: string, outcome: OpContext<unknown>['outcome']): Promise<UserRecord> {
  const username = rawUsername.trim();
  if (!USERNAME.test(username)) throw badRequest('Enter a valid email address.');
  const limiter = limiterOf(shard);
  const key = attemptKey(realm.id, username);
  const wait = limiter.retryAfter(key);
  if (wait > 0) throw rateLimited(wait);
  limiter.record(key);

  const user = realm.userByEmail(username);
  if (user) {
    if (realm.realm.deactivated) throw realmDeactivated();
    if (!user.isActive) throw userDeactivated();
  }
  dummyHash ??= hashPassword(generatePassword());
  const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyHash));
  if (!user || !ok) {
    if (!user) outcome.unknownLogin = true;
    throw authenticationFailed();
  }
  // Read after the await: the account may have been deactivated while the hash ran.
  if (!user.isActive) throw userDeactivated();
  limiter.clear(key);
  return user;
}

/** Where a login came from, for what a login sets off. */
export interface LoginRequest {
  userAgent: string;
  remoteAddr: string;
}
export type LoginHook = (shard: Shard, realm: RealmState, user: UserRecord, request: LoginRequest) => Promise<void>;

/**
 * What a successful login sets off (the reference's user_logged_in signal): the new-login
 * email registers here as its module loads (api/notify/login.ts), so that the login paths
 * (here and api/sessions/) know nothing of notifications.
 */
export const loginHooks: LoginHook[] = [];

export async function loggedIn(shard: Shard, realm: RealmState, user: UserRecord, request: LoginRequest): Promise<void> {
  for (const hook of loginHooks) await hook(shard, realm, user, request);
}

/** POST /fetch_api_key: password login, answered with the account's API key. */
export const fetchApiKey = operation<{ username: string; password: string }>({
  auth: 'none',
  params: {
    properties: { username: { type: 'string' }, password: { type: 'string' } },
    required: ['username', 'password'],
  },
  handler: async ({ shard, realm, params, userAgent, remoteAddr, outcome }) => {
    const user = await passwordLogin(shard, realm, params.username, params.password, outcome);
    await loggedIn(shard, realm, user, { userAgent, remoteAddr });
    return { api_key: user.apiKey, email: user.email, user_id: user.id };
  },
});
