import { notifyConfig } from '../../lib/config.js';
import { log } from '../../lib/log.js';
import { escapeAll as h } from '../../markdown/preprocess.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { userSetting } from '../../model/user-settings.js';
import { loginHooks, type LoginRequest } from '../server/fetch-api-key.js';
import { emailHeaders, emailPage, recipient, unsubscribeUrl } from './email-frame.js';
import { formatLocalTime } from './email-html.js';
import { scheduleMail } from './mail.js';

/**
 * The new-login email (the reference's email_on_new_login, zerver/signals.py): sent when someone
 * logs in with their password (POST /fetch_api_key, and the web app's login), unless they turned
 * enable_login_emails off or the account was made within the last minute (signing up logs in).
 */
const JUST_CREATED_SECONDS = 60;

/** get_device_browser */
export function deviceBrowser(userAgent: string): string | null {
  const ua = userAgent.toLowerCase();
  if (ua.includes('zulip')) return 'Zulip';
  if (ua.includes('edge')) return 'Edge';
  if (ua.includes('opera') || ua.includes('opr/')) return 'Opera';
  if ((ua.includes('chrome') || ua.includes('crios')) && !ua.includes('chromium')) return 'Chrome';
  if (ua.includes('firefox') && !ua.includes('seamonkey') && !ua.includes('chrome')) return 'Firefox';
  if (ua.includes('chromium')) return 'Chromium';
  if (ua.includes('safari') && !ua.includes('chrome') && !ua.includes('chromium')) return 'Safari';
  if (ua.includes('msie') || ua.includes('trident')) return 'Internet Explorer';
  return null;
}

/** get_device_os */
export function deviceOs(userAgent: string): string | null {
  const ua = userAgent.toLowerCase();
  if (ua.includes('windows')) return 'Windows';
  if (ua.includes('macintosh')) return 'macOS';
  if (ua.includes('linux') && !ua.includes('android')) return 'Linux';
  if (ua.includes('android')) return 'Android';
  if (ua.includes('ios') || ua.includes('like mac os x')) return 'iOS';
  if (ua.includes(' cros ')) return 'ChromeOS';
  return null;
}

export async function noticeLogin(shard: Shard, realm: RealmState, user: UserRecord, request: LoginRequest): Promise<void> {
  if (!notifyConfig(shard.config).loginEmails || userSetting(user, 'enable_login_emails') !== true || user.isBot) return;
  if (Date.now() / 1000 - user.dateJoined <= JUST_CREATED_SECONDS) return;
  const browser = deviceBrowser(request.userAgent) ?? 'An unknown browser';
  const os = deviceOs(request.userAgent) ?? 'an unknown operating system';
  const ip = request.remoteAddr || 'Unknown IP address';
  const time = formatLocalTime(new Date().toISOString(), user.timezone, userSetting(user, 'twenty_four_hour_time') === true);
  const subject = `New login from ${browser} on ${os}`;
  const batch = shard.batch();
  const unsubscribe = unsubscribeUrl(shard, batch, realm, user.id, 'login');
  const reset = `${realm.url}/accounts/password/reset/`;
  const settings = `${realm.url}/#settings/notifications`;
  const text = `We noticed a recent login for the following Zulip account.

Organization: ${realm.url}

Email: ${user.email}

Time: ${time}

Device: ${browser} on ${os}.

IP address: ${ip}


If this was you, great! There's nothing else you need to do.

If you do not recognize this login, or think your account may have been compromised, please reset your password at ${reset} or contact your organization's administrators immediately.


Thanks,
Zulip Security

--
Manage email preferences: ${settings}
Unsubscribe from login notifications: ${unsubscribe}
`;
  const content = `<p>We noticed a recent login for the following Zulip account.</p>
<ul>
<li>Organization: <a href="${h(realm.url)}">${h(realm.url)}</a></li>
<li>Email: <a href="mailto:${h(user.email)}">${h(user.email)}</a></li>
<li>Time: ${h(time)}</li>
<li>Device: ${h(browser)} on ${h(os)}.</li>
<li>IP address: ${h(ip)}</li>
</ul>
<p>If this was you, great! There's nothing else you need to do.</p>
<p>If you do not recognize this login, or think your account may have been compromised, please <a href="${h(reset)}">reset your password</a> or contact your organization's administrators immediately.</p>
<p>Thanks,<br>Zulip Security</p>`;
  const footer = `<p class="email-preferences"><a href="${h(settings)}">Manage email preferences</a> | <a href="${h(unsubscribe)}">Unsubscribe from login notifications</a></p>`;
  scheduleMail(shard, batch, realm, { to: recipient(user), subject, text, html: emailPage(subject, content, footer), fromName: `${realm.realm.name} account security`, headers: emailHeaders(realm, unsubscribe) });
  try {
    await batch.commit();
  } catch (err) {
    // The login itself stands: only its email is lost.
    log.error({ err, user: user.id }, 'the new-login email could not be recorded');
  }
}

loginHooks.push(noticeLogin);
