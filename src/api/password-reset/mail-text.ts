import type { MailMessage } from '../../lib/mail.js';
import { escapeAll } from '../../markdown/preprocess.js';
import type { RealmState } from '../../model/realm-state.js';
import { formatExpiry } from '../invites/mail-text.js';

/**
 * The reset mail, after the reference's password_reset email: the link when the address has an
 * active account, and otherwise a mail that says so, to the address's owner only: the page the
 * requester sees is the same either way.
 */
export function resetEmail(realm: RealmState, to: string, outcome: { link: string; expiresAt: number } | 'deactivated' | 'none'): MailMessage {
  const lines = [`Somebody (possibly you) requested a new password for the Zulip account ${to} on ${realm.url}.`, ''];
  if (typeof outcome === 'object') {
    lines.push('Open this link to choose a new password (it works once):', '', `    ${outcome.link}`, '', formatExpiry(outcome.expiresAt));
  } else if (outcome === 'deactivated') {
    lines.push(`You previously had an account on ${realm.url}, but it has been deactivated. You can contact an organization administrator to reactivate your account.`);
  } else {
    lines.push('You do not have an account in that organization.');
  }
  lines.push('', 'If you do not recognize this activity, you can safely ignore this email.', '');
  const text = lines.join('\n');
  const html = text
    .split('\n\n')
    .map((para) => `<p>${escapeAll(para.trim())}</p>`)
    .join('\n')
    .replace(typeof outcome === 'object' ? escapeAll(outcome.link) : '\u0000', (link) => `<a href="${link}">${link}</a>`);
  return { to, subject: `Password reset request for ${realm.realm.name}`, text, html };
}
