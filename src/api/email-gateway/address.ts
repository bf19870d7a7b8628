import { randomBytes } from 'node:crypto';
import type { RealmState } from '../../model/realm-state.js';
import { BOT_TYPE, ROLE, type UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { doCreateUser } from '../users/actions.js';

/**
 * Channel email addresses (the reference's ChannelEmailAddress and email_mirror_helpers.py).
 *
 *   channelEmails  ['t', token]                                   -> ChannelEmail
 *                  ['c', realmId, streamId, creatorId, senderId]  -> token
 *
 * A token is made once per channel, creator and sender, and names all three: mail to
 * `<channel-slug>.<token>[.<option>...]@<gateway domain>` is posted to the channel by the sender.
 */
export interface ChannelEmail {
  token: string;
  realmId: number;
  streamId: number;
  creatorId: number;
  senderId: number;
}

export const EMAIL_GATEWAY_BOT_EMAIL = 'emailgateway@zulip.com';

/** The realm's Email Gateway bot, a system bot like the Notification Bot (messages/notices.ts). */
export async function emailGatewayBot(shard: Shard, realm: RealmState): Promise<UserRecord> {
  const existing = realm.userByEmail(EMAIL_GATEWAY_BOT_EMAIL);
  if (existing) return existing;
  return doCreateUser(shard, realm, { email: EMAIL_GATEWAY_BOT_EMAIL, fullName: 'Email Gateway', role: ROLE.member, isBot: true, botType: BOT_TYPE.generic, isSystemBot: true });
}

export function channelEmailByToken(shard: Shard, token: string): ChannelEmail | undefined {
  return shard.read<ChannelEmail>(shard.store.channelEmails, ['t', token]);
}

/** get_channel_email_token: the token of (channel, creator, sender), made on first use. */
export function channelEmailToken(shard: Shard, batch: WriteBatch, realm: RealmState, streamId: number, creatorId: number, senderId: number): string {
  const key = ['c', realm.id, streamId, creatorId, senderId];
  const existing = shard.read<string>(shard.store.channelEmails, key);
  if (existing) return existing;
  const token = randomBytes(16).toString('hex');
  batch.put(shard.store.channelEmails, key, token);
  batch.put(shard.store.channelEmails, ['t', token], { token, realmId: realm.id, streamId, creatorId, senderId } satisfies ChannelEmail);
  return token;
}

/** The gateway's domain: configured, or the external host's name. */
export function gatewayDomain(shard: { config: Shard['config'] }): string {
  return shard.config.emailGateway.domain ?? shard.config.externalHost.replace(/:\d+$/, '');
}

/**
 * encode_email_address: runs of non-word characters become one hyphen; the name goes in only if
 * it is all ASCII letters, digits, hyphens and underscores (Django's slugify would change it
 * otherwise), else `channel`.
 */
export function encodeEmailAddress(domain: string, channelName: string, token: string, showSender: boolean): string {
  const name = channelName.replace(/[^\p{L}\p{N}_]+/gu, '-');
  const slug = name.normalize('NFKD').replace(/[^\x00-\x7f]/g, '').toLowerCase().replace(/[^a-z0-9_-]/g, '').replace(/-+/g, '-').replace(/^[-_]+|[-_]+$/g, '');
  const encoded = slug.length === name.length ? slug : '';
  let local = encoded ? `${encoded}.${token}` : `channel.${token}`;
  if (showSender) local += '.show-sender';
  return `${local}@${domain}`;
}

export interface AddressOptions {
  show_sender?: boolean;
  include_footer?: boolean;
  include_quotes?: boolean;
  prefer_text?: boolean;
}

const OPTIONS: Record<string, (o: AddressOptions) => void> = {
  'show-sender': (o) => (o.show_sender = true),
  'include-footer': (o) => (o.include_footer = true),
  'include-quotes': (o) => (o.include_quotes = true),
  'prefer-text': (o) => (o.prefer_text = true),
  'prefer-html': (o) => (o.prefer_text = false),
};

/** decode_email_address: the token and options of an address at `domain`, or null. */
export function decodeEmailAddress(address: string, domain: string): { token: string; options: AddressOptions } | null {
  const at = address.lastIndexOf('@');
  if (at < 0 || address.slice(at + 1).toLowerCase() !== domain.toLowerCase()) return null;
  const parts = address.slice(0, at).replace(/\./g, '+').split('+');
  const options: AddressOptions = {};
  for (const part of parts) OPTIONS[part]?.(options);
  const rest = parts.filter((p) => !(p in OPTIONS));
  const token = rest.length === 1 ? rest[0] : rest[1];
  return token ? { token, options } : null;
}
