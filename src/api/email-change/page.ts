import { escapeAll as h } from '../../markdown/preprocess.js';
import type { RealmState } from '../../model/realm-state.js';
import { htmlPage as page } from '../../api-kit/html-page.js';
import type { Reply } from '../../api-kit/operation.js';
import type { EmailChangeRecord, LinkProblem } from './tokens.js';

/**
 * The pages of an address change's link, in the frame of the other pages (html-page.ts). Opening
 * the link shows a button rather than confirming (the reference's 10.x flow posts the key from
 * its page): mail scanners and link previews open links, and must not use them up.
 */
export const CONFIRM_PATH = '/accounts/confirm_new_email/';

const back = (realm: RealmState) => `<p class="muted"><a href="/">Back to ${h(realm.realm.name)}</a></p>`;

export function confirmPage(realm: RealmState, record: EmailChangeRecord, token: string): Reply {
  const body = `<h1>Confirm your new email address</h1>
<p>Change the email address of your account in <b>${h(realm.realm.name)}</b> from <b id="old-email">${h(record.oldEmail)}</b> to <b id="new-email">${h(record.newEmail)}</b>?</p>
<form method="post" action="${CONFIRM_PATH}">
<input type="hidden" name="key" value="${h(token)}">
<button id="confirm" type="submit">Confirm email change</button>
</form>
${back(realm)}`;
  return page(200, 'Confirming your email address', body);
}

export function donePage(realm: RealmState, oldEmail: string, newEmail: string): Reply {
  const body = `<h1 id="done">Email changed!</h1>
<p>This confirms that the email address for your account in ${h(realm.realm.name)} has changed from <b>${h(oldEmail)}</b> to <b id="new-email">${h(newEmail)}</b>.</p>
<p>Log in with <code>${h(newEmail)}</code> from now on. Your password and API key stay the same; a zuliprc or a client configured with the old address needs the new one.</p>
${back(realm)}`;
  return page(200, 'Email changed', body);
}

// The reference's confirmation/link_*.html.
const PROBLEMS: Record<LinkProblem, [string, string, string]> = {
  malformed: ['Confirmation link malformed', 'Whoops. The confirmation link is malformed.', 'Make sure you copied the link correctly in to your browser.'],
  missing: ['Confirmation link does not exist', "Whoops. We couldn't find your confirmation link in the system.", 'Make sure you copied the whole link.'],
  expired: ['Confirmation link expired or deactivated', 'Whoops. The confirmation link has expired or been deactivated.', 'It works once, for a day, and only the latest request\'s link works: ask for the change again in your settings.'],
};

export function linkProblemPage(realm: RealmState, problem: LinkProblem): Reply {
  const [title, lead, hint] = PROBLEMS[problem];
  return page(404, title, `<h1 id="link-${problem}">${h(lead)}</h1>\n<p>${h(hint)}</p>\n${back(realm)}`);
}

/** A check the change no longer passes (the organization's rules, or the address taken meanwhile). */
export function refusedPage(realm: RealmState, message: string): Reply {
  return page(400, 'Email not changed', `<h1>Email not changed</h1>\n<p class="error" role="alert" id="error">${h(message)}</p>\n${back(realm)}`);
}

/** The reference's user_deactivated page. */
export function deactivatedUserPage(realm: RealmState): Reply {
  return page(401, 'Account is deactivated', `<h1 id="deactivated">Account is deactivated</h1>\n<p>Your account in ${h(realm.realm.name)} has been deactivated. Please contact your organization administrator to reactivate it.</p>`);
}
