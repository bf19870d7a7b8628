import { escapeAll as h } from '../../markdown/preprocess.js';
import { htmlPage } from '../../api-kit/html-page.js';
import { operation, type Reply } from '../../api-kit/operation.js';
import { userSetting } from '../../model/user-settings.js';
import { doUpdateSettings } from '../settings/actions.js';
import { unsubscribeOwner } from './store.js';

/**
 * `/accounts/unsubscribe/<kind>/<key>`: the one-click unsubscribe link of every email (the
 * reference's email_unsubscribe view), for people who are not logged in. Opening it (GET), or
 * a mail client's RFC 8058 one-click POST, turns the kind's setting off, with the same events a
 * change in the settings would send; the page says what changed and where to undo it.
 */
const KINDS: Record<string, { name: string; setting: string }> = {
  missed_messages: { name: 'missed messages', setting: 'enable_offline_email_notifications' },
  digest: { name: 'digest', setting: 'enable_digest_emails' },
  login: { name: 'login', setting: 'enable_login_emails' },
  marketing: { name: 'marketing', setting: 'enable_marketing_emails' },
};

const unknownLink = (): { __reply: Reply } => ({
  __reply: htmlPage(
    404,
    'Error unsubscribing email',
    `<h1>Unknown email unsubscribe request</h1>
<p>Hi there! It looks like you tried to unsubscribe from something, but we don't recognize the URL.</p>
<p>Please double-check that you have the full URL and try again.</p>`,
  ),
});

const unsubscribe = operation<{ email_type: string; confirmation_key: string }>({
  auth: 'none',
  params: { properties: { email_type: { type: 'string' }, confirmation_key: { type: 'string' } }, required: ['email_type', 'confirmation_key'] },
  handler: async ({ shard, realm, params }) => {
    const kind = KINDS[params.email_type];
    const owner = kind && unsubscribeOwner(shard, params.confirmation_key);
    const user = owner && owner.realmId === realm.id ? realm.users.get(owner.userId) : undefined;
    if (!kind || !user?.isActive) return unknownLink();
    if (userSetting(user, kind.setting) !== false) await doUpdateSettings(shard, realm, user, { fullName: null, settings: new Map([[kind.setting, false]]), newPassword: null, newEmail: null }, null);
    const body = `<h1>Email settings updated</h1>
<p>You've successfully unsubscribed from Zulip ${h(kind.name)} emails for <a href="${h(realm.url)}">${h(realm.realm.name)}</a>.</p>
<p>You can undo this change or review your preferences in your <a href="${h(realm.url)}/#settings/notifications">notification settings</a>.</p>`;
    return { __reply: htmlPage(200, 'Email settings updated', body) };
  },
});

export const operations = {
  'notify.unsubscribe': unsubscribe,
  'notify.unsubscribePost': unsubscribe,
};
