import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { notificationBot } from '../messages/notices.js';
import { doSendMessage } from '../messages/send.js';

/**
 * Direct messages from the Notification Bot to a bot's owner about a misconfigured integration
 * (the reference's send_rate_limited_pm_notification_to_bot_owner): at most one per bot and
 * minute, so that a misconfigured service does not flood its owner.
 */

const WAIT_MS = 60_000;
// Per shard (a module instance per shard thread); like the reference's last_reminder, a restart
// may let one more notice through.
const lastNotice = new Map<string, number>();

export async function notifyBotOwner(shard: Shard, realm: RealmState, bot: UserRecord, content: string): Promise<void> {
  const owner = bot.isBot && bot.botOwnerId !== null ? realm.users.get(bot.botOwnerId) : undefined;
  if (!owner?.isActive) return;
  const key = `${realm.id}:${bot.id}`;
  const now = Date.now();
  if (now - (lastNotice.get(key) ?? -Infinity) <= WAIT_MS) return;
  lastNotice.set(key, now);
  const sender = await notificationBot(shard, realm);
  await doSendMessage(shard, realm, { sender, recipients: [owner], content, client: 'Internal', readBySender: true });
}

/** Whom the notices tell to write to (the reference's FromAddress.SUPPORT). */
export function supportAddress(shard: Shard): string {
  const from = shard.config.email.from;
  const address = from?.match(/<([^>]+)>/)?.[1] ?? from;
  return address || 'the server administrator';
}

/** The reference's INVALID_JSON_MESSAGE, for a body that is not JSON. */
export function invalidJsonNotice(webhookName: string): string {
  return `Hi there! It looks like you tried to set up the Zulip ${webhookName} integration,
but didn't correctly configure the webhook to send data in the JSON format
that this integration expects!`;
}
