import { ApiError } from '../../lib/errors.js';
import { audited } from '../../api-kit/audit.js';
import { deleteSession, deleteUserSessions, newSessionSecrets, putSession, sessionCookieValue } from '../../store/sessions.js';
import { operation, type OpContext } from '../../api-kit/operation.js';
import { loggedIn, passwordLogin } from '../server/fetch-api-key.js';
import { checkCsrf, nowSeconds, sessionUser } from './auth.js';
import { loginCookies, logoutCookies, SESSION_AGE_SECONDS } from './cookies.js';
import { ensureSweep } from './sweep.js';
import { csrfFailurePage, deactivatedPage, LOGIN_MESSAGES, loginPage, logoutPage, redirect, safeNext, signupPage, type LoginForm } from './pages.js';

/**
 * The web app's login and logout (pages outside /api/v1, front/pages.ts): a browser session is
 * a row in the realm's shard (store/sessions.ts), so it survives restarts, expires after
 * SESSION_AGE_SECONDS, and ends when the person logs out, changes their password or is
 * deactivated. Every answer is a page or a redirect, errors included.
 */

const secure = (ctx: OpContext<unknown>) => ctx.shard.config.scheme === 'https';

const loginForm = operation<{ next?: string }>({
  auth: 'none',
  params: { properties: { next: { type: 'string' } } },
  handler: (ctx) => {
    if (ctx.realm.realm.deactivated) return { __reply: deactivatedPage() };
    // Already logged in: straight on, as the reference's login page does.
    if (sessionUser(ctx.shard, ctx.realm, ctx.browser)) return { __reply: redirect(safeNext(ctx.params.next)) };
    return { __reply: loginPage(ctx.realm, { next: ctx.params.next }) };
  },
});

/** The ApiError of a failed password login, as the login form says it. */
function loginError(err: ApiError, email: string): LoginForm['error'] | 'deactivatedRealm' {
  switch (err.code) {
    case 'RATE_LIMIT_HIT': {
      const seconds = Math.ceil(Number(err.data['retry-after']) || 1);
      return { kind: 'rateLimited', message: LOGIN_MESSAGES.rateLimited(seconds) };
    }
    case 'USER_DEACTIVATED':
      return { kind: 'deactivatedUser', message: LOGIN_MESSAGES.deactivatedUser(email) };
    case 'REALM_DEACTIVATED':
      return 'deactivatedRealm';
    default:
      // A wrong password, an unknown address, a malformed one: the same words, so the page
      // does not tell which addresses have accounts.
      return { kind: 'invalid', message: LOGIN_MESSAGES.invalid };
  }
}

const login = operation<{ username?: string; password?: string; next?: string }>({
  auth: 'none',
  params: { properties: { username: { type: 'string' }, password: { type: 'string' }, next: { type: 'string' } } },
  handler: async (ctx) => {
    const { shard, realm, params: p } = ctx;
    if (realm.realm.deactivated) return { __reply: deactivatedPage() };
    // Login CSRF: another site's form must not log the browser into an account of its choosing.
    if (ctx.browser?.crossOrigin !== undefined) return { __reply: csrfFailurePage(`Origin checking failed - ${ctx.browser.crossOrigin} does not match any trusted origins.`) };
    const email = (p.username ?? '').trim();
    let user;
    try {
      user = await passwordLogin(shard, realm, email, p.password ?? '', ctx.outcome);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const error = loginError(err, email);
      if (error === 'deactivatedRealm') return { __reply: deactivatedPage() };
      const headers: Record<string, string> = error?.kind === 'rateLimited' ? { 'retry-after': String(err.headers['Retry-After'] ?? 1) } : {};
      return { __reply: loginPage(realm, { email, next: p.next, error }, headers) };
    }
    const { secret, csrf } = newSessionSecrets();
    const now = nowSeconds();
    const batch = shard.batch();
    putSession(shard, batch, realm.id, secret, { userId: user.id, csrf, created: now, expires: now + SESSION_AGE_SECONDS });
    // This user's expired sessions go now; everyone's, with the realm's daily sweep (sweep.ts).
    deleteUserSessions(shard, batch, realm.id, user.id, { expiredBefore: now });
    ensureSweep(shard, batch, realm.id);
    await batch.commit();
    // The reference's user_logged_in signal: the new-login email (api/notify/login.ts).
    await loggedIn(shard, realm, user, { userAgent: ctx.userAgent, remoteAddr: ctx.remoteAddr });
    return { __reply: redirect(safeNext(p.next), loginCookies(secure(ctx), sessionCookieValue(user.id, secret), csrf)) };
  },
});

/**
 * `/`: the web app, for a browser whose session lives (the front end then sends the app's page,
 * which it holds: front/web-assets.ts); the login page otherwise, without loading the app. A
 * dead cookie is cleared on the way, so the browser stops sending it.
 */
const app = operation({
  auth: 'none',
  handler: (ctx) => {
    if (ctx.realm.realm.deactivated) return { __reply: deactivatedPage() };
    const found = sessionUser(ctx.shard, ctx.realm, ctx.browser);
    if (!found) return { __reply: redirect('/login/', ctx.browser?.cookie ? logoutCookies(secure(ctx)) : undefined) };
    return { __reply: { status: 200, body: '', webApp: true, userId: found.user.id } };
  },
});

const logoutForm = operation({
  auth: 'none',
  handler: (ctx) => {
    const found = sessionUser(ctx.shard, ctx.realm, ctx.browser);
    if (!found) return { __reply: redirect('/login/') };
    return { __reply: logoutPage(ctx.realm, found.user.email, found.session.csrf) };
  },
});

const logout = operation<{ csrfmiddlewaretoken?: string }>({
  auth: 'none',
  params: { properties: { csrfmiddlewaretoken: { type: 'string' } } },
  handler: async (ctx) => {
    const found = sessionUser(ctx.shard, ctx.realm, ctx.browser);
    if (found) {
      try {
        checkCsrf(ctx.browser!, found.session, ctx.params.csrfmiddlewaretoken);
      } catch (err) {
        if (err instanceof ApiError && err.code === 'CSRF_FAILED') return { __reply: csrfFailurePage(String(err.data.reason)) };
        throw err;
      }
      const batch = ctx.shard.batch();
      deleteSession(ctx.shard, batch, ctx.realm.id, found.user.id, found.session.secret);
      await batch.commit();
    }
    return { __reply: redirect('/login/', logoutCookies(secure(ctx))) };
  },
});

const signup = operation({
  auth: 'none',
  handler: (ctx) => ({ __reply: ctx.realm.realm.deactivated ? deactivatedPage() : signupPage(ctx.realm) }),
});

// Logins through the login page are audited as API key logins are (api-kit/audit.ts).
audited('sessions.login', { event: 'login', failures: true, fields: (p) => ({ username: p.username, via: 'web' }) });
audited('sessions.logout', { event: 'logout' });

export const operations = {
  'sessions.app': app,
  'sessions.loginPage': loginForm,
  'sessions.login': login,
  'sessions.logoutPage': logoutForm,
  'sessions.logout': logout,
  'sessions.signupPage': signup,
};
