import { htmlPage as page } from '../../api-kit/html-page.js';
import type { Reply } from '../../api-kit/operation.js';
import { escapeAll as h } from '../../markdown/preprocess.js';
import type { RealmState } from '../../model/realm-state.js';
import { LOGIN_MESSAGES } from './messages.js';

/**
 * The login, logout and sign-up pages, in the frame of html-page.ts (no script: the web app
 * itself starts only once a session exists). Messages are the reference's (zerver/forms.py
 * OurAuthenticationForm, templates/zerver/deactivated.html).
 */

export { LOGIN_MESSAGES };

export interface LoginForm {
  email?: string;
  next?: string;
  error?: { kind: 'invalid' | 'deactivatedUser' | 'rateLimited'; message: string };
}

/**
 * The frame's `no-referrer` makes a browser send `Origin: null` with the form, which the origin
 * check (api/sessions/auth.ts) must refuse; the login and logout forms post to this site only.
 */
function withOrigin(reply: Reply, headers: Record<string, string> = {}): Reply {
  return { ...reply, headers: { ...reply.headers, 'referrer-policy': 'same-origin', ...headers } };
}

export function redirect(location: string, cookies?: string[]): Reply {
  return { status: 302, body: '', headers: { location, 'cache-control': 'no-store' }, ...(cookies ? { cookies } : {}) };
}

/** Where a login may send the browser next: a path on this site, never another site. */
export function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/(?![/\\])/.test(next) && !/[\s\\]/.test(next) ? next : '/';
}

const STATUS = { invalid: 401, deactivatedUser: 403, rateLimited: 429 } as const;

export function loginPage(realm: RealmState, form: LoginForm = {}, headers: Record<string, string> = {}): Reply {
  const org = h(realm.realm.name);
  const error = form.error ? `<p class="error" role="alert" id="error" data-kind="${form.error.kind}">${h(form.error.message)}</p>` : '';
  const next = safeNext(form.next);
  const body = `<h1>Log in to ${org}</h1>
<p class="muted"><code>${h(realm.url)}</code></p>
${error}
<form method="post" action="/login/">
${next !== '/' ? `<input type="hidden" name="next" value="${h(next)}">` : ''}
<label for="username">Email address</label>
<input id="username" name="username" type="email" value="${h(form.email ?? '')}" required autocomplete="username"${form.email ? '' : ' autofocus'}>
<label for="password">Password</label>
<input id="password" name="password" type="password" required autocomplete="current-password"${form.email ? ' autofocus' : ''}>
<button id="login" type="submit">Log in</button>
</form>
<p><a href="/accounts/password/reset/">Forgot your password?</a></p>
<p class="muted">New to ${org}? <a href="/accounts/home/">How to join</a></p>`;
  return withOrigin(page(form.error ? STATUS[form.error.kind] : 200, `Log in to ${realm.realm.name}`, body), headers);
}

/** The page of a deactivated organization, in place of the login form. */
export function deactivatedPage(): Reply {
  return page(403, 'Deactivated organization', `<h1 id="deactivated">Deactivated organization</h1>\n<p>This organization has been deactivated.</p>`);
}

/** GET /accounts/logout/: a form, since a logout is a write and needs its CSRF token. */
export function logoutPage(realm: RealmState, email: string, csrf: string): Reply {
  const body = `<h1>Log out of ${h(realm.realm.name)}?</h1>
<p>You are logged in as <b>${h(email)}</b>.</p>
<form method="post" action="/accounts/logout/">
<input type="hidden" name="csrfmiddlewaretoken" value="${h(csrf)}">
<button id="logout" type="submit">Log out</button>
</form>
<p><a href="/">Back to ${h(realm.realm.name)}</a></p>`;
  return withOrigin(page(200, 'Log out', body));
}

/** The reference's 4xx page for a CSRF failure, for forms posted without their token. */
export function csrfFailurePage(reason: string): Reply {
  return page(403, 'Forbidden', `<h1 id="csrf-failure">This request could not be verified</h1>\n<p>${h(reason)}</p>\n<p>Reload the page you came from and try again.</p>`);
}

/** /accounts/home/: how to join. Accounts are made through invitations (the /join/ pages). */
export function signupPage(realm: RealmState): Reply {
  const org = h(realm.realm.name);
  const body = `<h1>Join ${org}</h1>
<p>${org} is open by invitation. Ask an administrator of ${org} for an invitation: its link opens a page where you choose your name and password.</p>
<p>Already have an account? <a href="/login/">Log in</a>.</p>`;
  return page(200, `Join ${realm.realm.name}`, body);
}
