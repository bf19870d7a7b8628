import type { MailMessage } from '../../lib/mail.js';
import { escapeAll as h } from '../../markdown/preprocess.js';
import type { RealmState } from '../../model/realm-state.js';
import { formatExpiry } from '../invites/mail-text.js';

/**
 * The two mails of an address change, after the reference's confirm_new_email (to the new
 * address, with the link) and notify_change_in_email (to the old one, once it is done). The
 * reference asks readers to write to its support address; this server has none, so they are sent
 * to the organization's administrators.
 */

const host = (realm: RealmState) => new URL(realm.url).host;

export function confirmNewEmail(realm: RealmState, change: { oldEmail: string; newEmail: string; link: string; expiresAt: number }): MailMessage {
  const { oldEmail, newEmail, link } = change;
  const expiry = formatExpiry(change.expiresAt);
  const ignore = 'If you did not request this change, you can ignore this email: the address changes only when the link is used.';
  const text = [
    'Hi,',
    '',
    `We received a request to change the email address for the Zulip account on ${realm.url} from ${oldEmail} to ${newEmail}. To confirm this change, please click below:`,
    '',
    `    ${link}`,
    '',
    expiry,
    '',
    ignore,
    '',
  ].join('\n');
  const html = [
    '<p>Hi,</p>',
    `<p>We received a request to change the email address for the Zulip account on ${h(realm.url)} from ${h(oldEmail)} to ${h(newEmail)}. To confirm this change, please click below:</p>`,
    `<p><a href="${h(link)}">Confirm email change</a></p>`,
    `<p>${h(expiry)}</p>`,
    `<p>${h(ignore)}</p>`,
  ].join('\n');
  return { to: newEmail, subject: `Verify your new email address for ${host(realm)}`, text, html };
}

export function notifyChangeInEmail(realm: RealmState, change: { oldEmail: string; newEmail: string }): MailMessage {
  const contact = `If you did not request this change, please contact an administrator of ${realm.realm.name} immediately.`;
  const text = ['Hi,', '', `The email associated with your Zulip account on ${realm.url} was recently changed to ${change.newEmail}. ${contact}`, ''].join('\n');
  const html = ['<p>Hi,</p>', `<p>The email associated with your Zulip account on ${h(realm.url)} was recently changed to ${h(change.newEmail)}. ${h(contact)}</p>`].join('\n');
  return { to: change.oldEmail, subject: `Zulip email changed for ${realm.realm.name}`, text, html };
}
