import { htmlPage as page } from '../../api-kit/html-page.js';
import type { Reply } from '../../api-kit/operation.js';
import { escapeAll as h } from '../../markdown/preprocess.js';
import type { InviteRecord } from '../../model/invite.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, type LinkProblem, type SignupError } from './join.js';
import { formatExpiry } from './mail-text.js';

/**
 * The sign-up page behind an invitation link, in the frame of html-page.ts.
 */

function inviterName(realm: RealmState, invite: InviteRecord | undefined): string | null {
  const inviter = invite ? realm.users.get(invite.invitedBy) : undefined;
  return inviter ? inviter.fullName : null;
}

/** The page a link that cannot be used shows: what is wrong, and what to do. */
export function problemPage(realm: RealmState, problem: LinkProblem, invite?: InviteRecord): Reply {
  const org = h(realm.realm.name);
  const inviter = inviterName(realm, invite);
  const ask = inviter ? `Ask ${h(inviter)}, or an administrator of ${org}, for a new invitation.` : `Ask an administrator of ${org} for a new invitation.`;
  const pages: Record<LinkProblem, [string, string]> = {
    deactivated: ['This organization has been deactivated', `${org} no longer accepts new members.`],
    malformed: ['This invitation link is malformed', 'The link is incomplete or mistyped. Check that you copied all of it.'],
    unknown: ['We couldn’t find this invitation', `This link does not belong to any invitation of ${org}. Check that you copied all of it. ${ask}`],
    expired: ['This invitation has expired', `${h(formatExpiry(invite?.expiresAt ?? null).replace('expires', 'expired'))} ${ask}`],
    revoked: ['This invitation has been revoked', `It no longer works. ${ask}`],
    used: [
      'This invitation has already been used',
      `An account was made with it already. If that was you, log in to <code>${h(realm.url)}</code> with your email address and password.`,
    ],
  };
  const [title, text] = pages[problem];
  return page(404, title, `<h1 id="problem" data-problem="${problem}">${h(title)}</h1>\n<p>${text}</p>`);
}

export interface FormValues {
  email?: string;
  fullName?: string;
}

/** The sign-up form, with what was typed and the problem with it, if any. */
export function formPage(realm: RealmState, invite: InviteRecord, values: FormValues = {}, error?: SignupError): Reply {
  const org = h(realm.realm.name);
  const inviter = inviterName(realm, invite);
  const intro = inviter ? `${h(inviter)} invited you to join <b>${org}</b>` : `You are invited to join <b>${org}</b>`;
  const email =
    invite.kind === 'email'
      ? `<input id="email" name="email" type="email" value="${h(invite.email!)}" readonly>`
      : `<input id="email" name="email" type="email" value="${h(values.email ?? '')}" required autocomplete="email" autofocus>`;
  const errorHtml = error ? `<p class="error" role="alert" id="error" data-field="${error.field ?? ''}">${h(error.message)}</p>` : '';
  const body = `<h1>Join ${org}</h1>
<p>${intro}, a Zulip-compatible chat at <code>${h(realm.url)}</code>.</p>
${errorHtml}
<form method="post" action="/join/${h(invite.key)}/">
<label for="email">Email address</label>
${email}
<label for="full_name">Full name</label>
<input id="full_name" name="full_name" value="${h(values.fullName ?? '')}" required maxlength="100" autocomplete="name">
<label for="password">Password</label>
<input id="password" name="password" type="password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="${PASSWORD_MAX_LENGTH}" autocomplete="new-password">
<button id="submit" type="submit">Sign up</button>
</form>
<p class="muted">${h(formatExpiry(invite.expiresAt).replace('link expires', 'invitation expires').replace('link does not', 'invitation does not'))}</p>`;
  return page(error ? 400 : 200, `Join ${realm.realm.name}`, body);
}

/**
 * After sign-up: how to connect a client. The server URL, email and password are what the
 * mobile and desktop apps and zulip-terminal ask for; scripts and bots take a zuliprc file,
 * which carries the API key the account was given.
 */
export function welcomePage(realm: RealmState, user: UserRecord): Reply {
  const org = h(realm.realm.name);
  const url = h(realm.url);
  const zuliprc = `[api]\nemail=${user.email}\nkey=${user.apiKey}\nsite=${realm.url}\n`;
  const body = `<h1 id="welcome">Welcome to ${org}, ${h(user.fullName)}!</h1>
<p>Your account is ready. Connect any Zulip client with these details:</p>
<dl id="connect">
<dt>Server URL</dt><dd><code id="server-url">${url}</code></dd>
<dt>Email</dt><dd><code id="account-email">${h(user.email)}</code></dd>
<dt>Password</dt><dd>the password you just chose</dd>
</dl>
<h2>Apps</h2>
<ul>
<li><b>Mobile and desktop apps</b>: add an organization, enter the server URL <code>${url}</code>, then log in with your email and password.</li>
<li><b>zulip-terminal</b>: run <code>zulip-term</code>, and give it the server URL, your email and your password.</li>
</ul>
<h2>Scripts and bots</h2>
<p>The Python bindings, zulip-js and other API clients read a <code>zuliprc</code> file. Save this one as <code>~/.zuliprc</code> and make it private, since it holds your API key: <code id="chmod">chmod 600 ~/.zuliprc</code> (zulip-terminal refuses a zuliprc that others can read).</p>
<pre id="zuliprc">${h(zuliprc)}</pre>`;
  return page(200, `Welcome to ${realm.realm.name}`, body);
}
