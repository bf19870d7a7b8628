import { log } from '../../lib/log.js';
import { FLAG } from '../../model/message.js';
import { emailTrigger, mentionedGroups, notifyData, pushTrigger } from '../../model/notifications.js';
import { flagBits, storedBits } from '../../model/read-state.js';
import { queueGcHooks } from '../events/manager.js';
import { userSetting } from '../../model/user-settings.js';
import { getMessage } from '../../store/messages.js';
import { WELCOME_BOT_EMAIL } from '../invites/onboarding.js';
import { recordNotice } from './notices.js';
import { pushRegistration } from '../../model/push-registration.js';
import { notifyConfig } from '../../lib/config.js';

/**
 * The reference's missedmessage_hook: a person whose client vanished without closing its event
 * queue (a laptop shut, a network gone) was "there" when messages came, so they were not told.
 * When their last queue goes (expired after queueLifespanSeconds without a poll, or deleted),
 * the messages it still held undelivered are looked at again as for someone away, and those
 * that concern them, still unread and not yet notified, are.
 */
queueGcHooks.push((shard, queue, lastForUser) => {
  if (!lastForUser || !queue.wants('message')) return;
  const emailOn = notifyConfig(shard.config).missedMessageEmails;
  const pushOn = pushRegistration(shard) !== null;
  if (!emailOn && !pushOn) return;
  const realm = shard.realm(queue.opts.realmId);
  const userId = queue.opts.userId;
  if (!realm) return;
  const ids = new Set<number>();
  for (const event of queue.events()) {
    const id = event.type === 'message' ? (event.message as { id?: number } | undefined)?.id : undefined;
    if (typeof id === 'number') ids.add(id);
  }
  if (ids.size === 0) return;
  const batch = shard.batch();
  for (const id of ids) {
    const msg = getMessage(shard, realm, id);
    if (!msg || flagBits(shard, realm, userId, msg) & FLAG.read) continue;
    // The Welcome Bot's messages are sent with disable_external_notifications, which the queue does not keep.
    const welcome = realm.users.get(msg.senderId)?.email === WELCOME_BOT_EMAIL;
    const d = notifyData(realm, userSetting, userId, storedBits(shard, realm, userId, id), { senderId: msg.senderId, kind: msg.kind, streamId: msg.streamId, topic: msg.topic, disableExternal: welcome }, pushOn);
    if (!d) continue;
    // Since one is by definition away now, online push plays no part.
    const email = emailTrigger(d, msg.senderId, true);
    const push = pushTrigger({ ...d, onlinePushEnabled: false }, msg.senderId, true);
    if (email || push) recordNotice(shard, batch, realm, userId, msg, { email, push, groupId: mentionedGroups(realm, msg.mentions.users, msg.mentions.groups).get(userId) ?? null });
  }
  batch.commit().catch((err) => log.error({ err, queue: queue.id }, 'notifying after an event queue ended failed'));
});
