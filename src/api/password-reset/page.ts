import { escapeAll as h } from '../../markdown/preprocess.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import { htmlPage as page } from '../../api-kit/html-page.js';
import type { Reply } from '../../api-kit/operation.js';

/**
 * The pages of a password reset, in the frame of the invitation pages (html-page.ts). None says
 * whether an address has an account: the request answers the same page for every address.
 */
export const RESET_PATH = '/accounts/password/reset/';

const back = (realm: RealmState) => `<p class="muted"><a href="/">Back to ${h(realm.realm.name)}</a></p>`;

/** Asks for the address. */
export function requestPage(realm: RealmState, email = '', error?: string): Reply {
  const errorHtml = error ? `<p class="error" role="alert" id="error">${h(error)}</p>\n` : '';
  const body = `<h1>Reset your password</h1>
<p>Forgot your password for <b>${h(realm.realm.name)}</b>? Enter the email address of your account, and we will send it a link to choose a new one.</p>
${errorHtml}<form method="post" action="${RESET_PATH}">
<label for="email">Email address</label>
<input id="email" name="email" type="email" value="${h(email)}" maxlength="254" required autocomplete="email" autofocus>
<button id="submit" type="submit">Send reset link</button>
</form>
${back(realm)}`;
  return page(error ? 400 : 200, 'Reset your password', body);
}

/** After a request, for every address alike. */
export function sentPage(realm: RealmState): Reply {
  const body = `<h1 id="sent">Check your email</h1>
<p>If that address has an account in <b>${h(realm.realm.name)}</b>, a link to reset its password is on its way. It arrives within a few minutes; the link works once.</p>
<p class="muted">Nothing arrived? Check the spam folder, or ask an administrator of the organization: they can make a link for you.</p>
${back(realm)}`;
  return page(200, 'Check your email', body);
}

export function tooManyPage(realm: RealmState, seconds: number): Reply {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  const reply = page(429, 'Too many requests', `<h1 id="too-many">Too many requests</h1>
<p>Password resets for this address, or from your network, have been asked for too often. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.</p>
${back(realm)}`);
  return { ...reply, headers: { ...reply.headers, 'Retry-After': String(Math.ceil(seconds)) } };
}

/** The link's form: the new password, twice. */
export function choosePage(realm: RealmState, user: UserRecord, token: string, minLength: number, error?: string): Reply {
  const errorHtml = error ? `<p class="error" role="alert" id="error">${h(error)}</p>\n` : '';
  const body = `<h1>Choose a new password</h1>
<p>For <b id="account-email">${h(user.email)}</b> in ${h(realm.realm.name)}.</p>
${errorHtml}<form method="post" action="${RESET_PATH}${h(token)}/">
<label for="new_password">New password</label>
<input id="new_password" name="new_password" type="password" required minlength="${minLength}" maxlength="100" autocomplete="new-password" autofocus>
<label for="new_password_confirm">New password, again</label>
<input id="new_password_confirm" name="new_password_confirm" type="password" required minlength="${minLength}" maxlength="100" autocomplete="new-password">
<button id="submit" type="submit">Change password</button>
</form>`;
  return page(error ? 400 : 200, 'Choose a new password', body);
}

export function invalidLinkPage(realm: RealmState): Reply {
  return page(404, 'This link does not work', `<h1 id="invalid">This link does not work</h1>
<p>The password reset link is invalid: it has been used already, or it has expired, or it was not copied whole.</p>
<p><a href="${RESET_PATH}">Ask for a new link</a></p>
${back(realm)}`);
}

export function donePage(realm: RealmState, user: UserRecord): Reply {
  return page(200, 'Password changed', `<h1 id="done">Your password has been changed</h1>
<p>Log in to <code>${h(realm.url)}</code> with <code>${h(user.email)}</code> and your new password, in any Zulip client.</p>`);
}
