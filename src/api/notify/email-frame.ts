import { notifyConfig } from '../../lib/config.js';
import { escapeAll as h } from '../../markdown/preprocess.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { avatarUrl } from '../users/views.js';
import { unsubscribeKey } from './store.js';

/** What every email to a person shares: its frame, sender name, headers and unsubscribe link. */

/** The kinds of email one can unsubscribe from, as the reference names them in its links. */
export type EmailKind = 'missed_messages' | 'digest' | 'login';

/** "<server> notifications": the reference's From name (INSTALLATION_NAME, by default the host). */
export function installationName(shard: Shard): string {
  return notifyConfig(shard.config).installationName ?? shard.config.externalHost.replace(/:\d+$/, '');
}

export function unsubscribeUrl(shard: Shard, batch: WriteBatch, realm: RealmState, userId: number, kind: EmailKind): string {
  return `${realm.url}/accounts/unsubscribe/${kind}/${unsubscribeKey(shard, batch, realm, userId)}`;
}

/**
 * The reference's build_email headers: List-Id names the organization, auto-replies are asked
 * to stay away, and List-Unsubscribe (with RFC 8058 one-click) gives mail clients the link.
 */
export function emailHeaders(realm: RealmState, unsubscribe: string | null): Record<string, string> {
  const host = new URL(realm.url).host;
  const name = realm.realm.name.replace(/[^\x20-\x7e]|["\\<>]/g, '').trim();
  const headers: Record<string, string> = {
    'X-Auto-Response-Suppress': 'All',
    'List-Id': name ? `${name} <${host}>` : `<${host}>`,
  };
  if (unsubscribe) {
    headers['List-Unsubscribe'] = `<${unsubscribe}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  return headers;
}

/** The To header: the person's name and address. */
export function recipient(user: UserRecord): string {
  return `"${user.fullName.replace(/["\\\r\n]/g, '')}" <${user.email}>`;
}

/** An avatar's absolute URL, for an email client (uploaded avatars are served without a session). */
export function absoluteAvatarUrl(realm: RealmState, user: UserRecord): string {
  const url = avatarUrl(user, false)!;
  return url.startsWith('/') ? `${realm.url}${url}` : url;
}

const STYLE = `
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;font-size:14px;line-height:1.45;color:#1d1f24;background:#fff;margin:0;padding:16px}
.missed_message,.hot_convo_recipient_block{border-left:3px solid #d9dbe0;padding:4px 0 4px 12px;margin:0 0 14px}
.sender{font-weight:600;margin:0 0 4px}.sender img{vertical-align:middle;border-radius:4px;margin-right:6px}
.hot_convo_recipient_header{font-weight:600;margin-bottom:4px}
blockquote{border-left:3px solid #ccc;margin:0 0 8px;padding-left:8px;color:#555}
pre,code{font-family:Menlo,Consolas,monospace;background:#f4f5f7;border-radius:3px}
.email-preferences,.digest_paragraph.muted{color:#5b606b;font-size:12px;margin-top:18px}
a{color:#2f6fb6}`;

/** An email's HTML part: plain HTML with a little inline CSS, no script, no remote stylesheet. */
export function emailPage(title: string, content: string, footer: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<title>${h(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${content}
${footer}
</body>
</html>
`;
}
