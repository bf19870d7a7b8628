import { constantTimeEqual } from '../../lib/auth.js';
import { ApiError } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import { findSession, parseSessionCookie } from '../../store/sessions.js';
import type { StoreView } from '../../store/shard-store.js';
import type { BrowserRequest, SessionRef } from '../../api-kit/operation.js';

/**
 * Cookie authentication, for the web app's /json/ routes and the upload links it opens, as the
 * reference's rest_dispatch does it: a valid session authenticates, and then (only then) a
 * write must pass the CSRF check; a missing or dead session is a request without credentials.
 */

/** The reference's answer to /json/ without a session: no Basic challenge, which would make a browser prompt. */
export const sessionRequired = () =>
  new ApiError('Not logged in: API authentication or user session required', { code: 'UNAUTHORIZED', status: 401, headers: { 'WWW-Authenticate': 'Session realm="zulip"' } });

/** The reference's CsrfFailureError (zerver/middleware.py), with Django's reasons. */
export const csrfFailed = (reason: string) => new ApiError(`CSRF error: ${reason}`, { code: 'CSRF_FAILED', status: 403, data: { reason } });

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The session a request's cookie names and its user, or null when it names none that lives. */
export function sessionUser(view: StoreView, realm: RealmState, browser: BrowserRequest | undefined): { user: UserRecord; session: SessionRef } | null {
  const parsed = browser?.cookie ? parseSessionCookie(browser.cookie) : null;
  if (!parsed) return null;
  const rec = findSession(view, realm.id, parsed.userId, parsed.secret, nowSeconds());
  const user = rec ? realm.users.get(parsed.userId) : undefined;
  if (!rec || !user) return null;
  return { user, session: { userId: user.id, secret: parsed.secret, csrf: rec.csrf } };
}

/**
 * Django's CsrfViewMiddleware, in its order, for a write authenticated by a cookie: the Origin
 * must be this site, and the X-CSRFToken header must carry the session's token. `formToken` is
 * the token a plain HTML form sends instead (the logout page's `csrfmiddlewaretoken`).
 */
export function checkCsrf(browser: BrowserRequest, session: SessionRef, formToken?: string): void {
  if (!browser.write) return;
  if (browser.crossOrigin !== undefined) throw csrfFailed(`Origin checking failed - ${browser.crossOrigin} does not match any trusted origins.`);
  const [token, source] = formToken ? [formToken, 'POST'] : [browser.csrfToken, "the 'X-Csrftoken' HTTP header"];
  if (!token) throw csrfFailed('CSRF token missing.');
  if (!constantTimeEqual(token, session.csrf)) throw csrfFailed(`CSRF token from ${source} incorrect.`);
}
