import type { RealmState } from '../../model/realm-state.js';
import type { GroupRecord, UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { notificationBot, silentMention } from '../messages/notices.js';
import { doSendMessage } from '../messages/send.js';

/**
 * The reference's notify_for_user_group_subscription_changes: a direct message from the
 * Notification Bot to each human the actor added to (or removed from) a group, never to the
 * actor themself. Each is its own send, after the membership change has committed.
 */
export async function notifyMembershipChange(shard: Shard, realm: RealmState, actor: UserRecord, group: GroupRecord, users: UserRecord[], added: boolean): Promise<void> {
  const told = users.filter((user) => user.id !== actor.id && !user.isBot && user.isActive);
  if (told.length === 0) return;
  const bot = await notificationBot(shard, realm);
  const verb = added ? 'added you to' : 'removed you from';
  const content = `${silentMention(actor)} ${verb} the group @_*${group.name}*.`;
  for (const user of told) {
    await doSendMessage(shard, realm, { sender: bot, content, client: 'Internal', readBySender: false, recipients: [user] });
  }
}
