import { randomBytes } from 'node:crypto';
import { ApiError } from '../../lib/errors.js';
import { log } from '../../lib/log.js';
import type { MessageRecord } from '../../model/message.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { getMessage } from '../../store/messages.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { notificationBot } from '../messages/notices.js';
import { checkCanPost, doSendMessage } from '../messages/send.js';
import { gatewayDomain } from './address.js';

/**
 * Reply addresses of missed-message emails (the reference's MissedMessageEmailAddress and
 * email_mirror.py process_missed_message): `mm<32 hex>@<gateway domain>`, one per email, naming
 * the person it was sent to and the first message it was about. A reply to it is posted by that
 * person into the message's conversation: its channel and topic, or the direct-message group.
 *
 *   channelEmails  ['m', token] -> MissedReplyAddress
 */
export interface MissedReplyAddress {
  realmId: number;
  userId: number;
  messageId: number;
  /** Seconds. */
  created: number;
  timesUsed: number;
}

const MM = /^(mm[0-9a-f]{32})@/i;

export function createReplyAddress(shard: Shard, batch: WriteBatch, realm: RealmState, userId: number, messageId: number): string {
  const token = `mm${randomBytes(16).toString('hex')}`;
  const record: MissedReplyAddress = { realmId: realm.id, userId, messageId, created: Math.floor(Date.now() / 1000), timesUsed: 0 };
  batch.put(shard.store.channelEmails, ['m', token], record);
  return `${token}@${gatewayDomain(shard)}`;
}

/** The token of a reply address at this server's gateway domain, or null (a channel address, or another domain). */
export function replyToken(shard: Shard, address: string): string | null {
  const m = MM.exec(address);
  if (!m || address.slice(address.lastIndexOf('@') + 1).toLowerCase() !== gatewayDomain(shard).toLowerCase()) return null;
  return m[1].toLowerCase();
}

export function replyAddress(shard: Shard, token: string): MissedReplyAddress | undefined {
  return shard.read<MissedReplyAddress>(shard.store.channelEmails, ['m', token]);
}

/**
 * Posts a reply to a missed-message email as the person it was sent to. An auto-reply is dropped;
 * a reply the person may no longer post (an archived channel, a lost permission) comes back to
 * them as a direct message from the Notification Bot, as the reference's send_mm_reply_to_stream.
 */
export async function deliverReply(shard: Shard, token: string, mail: { from: string }, autoSubmitted: string, body: string): Promise<'delivered' | 'unknown' | 'refused'> {
  const address = replyAddress(shard, token);
  const realm = address && shard.realm(address.realmId);
  if (!address || !realm) return 'unknown';
  if (autoSubmitted === 'auto-replied' || autoSubmitted === 'auto-generated') {
    log.info({ from: mail.from }, `dropping ${autoSubmitted} reply to a missed-message email`);
    return 'delivered';
  }
  const user = realm.users.get(address.userId);
  const original = getMessage(shard, realm, address.messageId);
  if (!user?.isActive || realm.realm.deactivated || !original) return 'refused';
  const batch = shard.batch();
  batch.put(shard.store.channelEmails, ['m', token], { ...address, timesUsed: address.timesUsed + 1 });
  await batch.commit();
  const spec = { sender: user, content: body, client: 'ZulipEmailMirror', readBySender: true };
  if (original.kind === 'stream') {
    const stream = realm.streams.get(original.streamId!);
    try {
      if (!stream) throw new ApiError('Invalid channel ID');
      checkCanPost(realm, user, stream);
      await doSendMessage(shard, realm, { ...spec, stream, topic: original.topic });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const bot = await notificationBot(shard, realm);
      const name = stream?.name ?? 'unknown';
      await doSendMessage(shard, realm, { sender: bot, content: `Error sending message to channel ${name} via message notification email reply:\n${err.message}`, client: 'Internal', readBySender: true, recipients: [user] });
    }
    return 'delivered';
  }
  await doSendMessage(shard, realm, { ...spec, recipients: replyRecipients(realm, original, user.id) });
  return 'delivered';
}

/** The other participants of the conversation (the person themself, for a note to self). */
function replyRecipients(realm: RealmState, msg: MessageRecord, userId: number): UserRecord[] {
  const others = msg.dm!.filter((id) => id !== userId).flatMap((id) => {
    const u = realm.users.get(id);
    return u?.isActive ? [u] : [];
  });
  return others.length > 0 ? others : [realm.users.get(userId)!];
}
