import type { MailMessage } from '../../lib/mail.js';
import { escapeAll } from '../../markdown/preprocess.js';
import type { InviteRecord } from '../../model/invite.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';

/** "Tuesday, 3 March 2026, 14:05 UTC": mail is read in many time zones, so UTC, said so. */
export function formatExpiry(expiresAt: number | null): string {
  if (expiresAt === null) return 'This link does not expire.';
  const when = new Date(expiresAt * 1000).toLocaleString('en-GB', { timeZone: 'UTC', dateStyle: 'full', timeStyle: 'short' });
  return `This link expires on ${when} UTC.`;
}

/**
 * The invitation mail, in text and HTML. Names are escaped in the HTML, so that a display name
 * cannot smuggle markup or a link of its own into the mail (the reference tests the same).
 */
export function invitationEmail(opts: { realm: RealmState; invite: InviteRecord; inviter: UserRecord | undefined; link: string }): MailMessage {
  const { realm, invite, inviter, link } = opts;
  const realmName = realm.realm.name;
  const who = inviter ? `${inviter.fullName} (${inviter.email})` : 'Someone';
  const expiry = formatExpiry(invite.expiresAt);
  const text = [
    'Hi there,',
    '',
    `${who} wants you to join them in ${realmName}, a Zulip-compatible chat at ${realm.url}.`,
    '',
    'To create your account, open this link:',
    '',
    `    ${link}`,
    '',
    expiry,
    '',
    `Once your account exists, connect any Zulip client (the mobile and desktop apps, zulip-terminal, a bot) with the server URL ${realm.url}, your email address and the password you chose.`,
    '',
  ].join('\n');
  const html = [
    '<p>Hi there,</p>',
    `<p>${escapeAll(who)} wants you to join them in <b>${escapeAll(realmName)}</b>, a Zulip-compatible chat at ${escapeAll(realm.url)}.</p>`,
    `<p><a href="${escapeAll(link)}">Create your account</a></p>`,
    `<p>${escapeAll(expiry)}</p>`,
    `<p>Once your account exists, connect any Zulip client with the server URL ${escapeAll(realm.url)}, your email address and the password you chose.</p>`,
  ].join('\n');
  return { to: invite.email!, subject: `${inviter?.fullName ?? 'Someone'} invited you to join ${realmName}`, text, html };
}
