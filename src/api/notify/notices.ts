import { notifyConfig } from '../../lib/config.js';
import { ACTIVE_PUSH, EMAIL_NOTIFIED, type MessageRecord } from '../../model/message.js';
import type { Trigger } from '../../model/notifications.js';
import { storedBits, writeBits } from '../../model/read-state.js';
import type { RealmState } from '../../model/realm-state.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { queueMissedMessageEmail } from './email-batch.js';
import { pushRegistration } from '../../model/push-registration.js';
import { schedulePush } from './push/notify.js';

/** What one user is to be told of one message: the reference's maybe_enqueue_notifications. */
export interface Notice {
  email: Trigger | null;
  push: Trigger | null;
  /** The mentioned group that reached them, when no mention by name did. */
  groupId: number | null;
}

/**
 * Records a notice in the transaction of the change that caused it (a send, an edit, a move, the
 * end of an event queue): the email joins the user's batch (email-batch.ts), the push becomes a
 * job (push/notify.ts). A message already emailed, or pushed, to the user is not again.
 */
export function recordNotice(shard: Shard, batch: WriteBatch, realm: RealmState, userId: number, msg: MessageRecord, notice: Notice): void {
  const stored = storedBits(shard, realm, userId, msg.id);
  let bits = stored;
  if (notice.email && !(stored & EMAIL_NOTIFIED) && notifyConfig(shard.config).missedMessageEmails) {
    queueMissedMessageEmail(shard, batch, realm, userId, { id: msg.id, trigger: notice.email, groupId: notice.groupId });
    bits |= EMAIL_NOTIFIED;
  }
  if (notice.push && !(stored & ACTIVE_PUSH) && pushRegistration(shard) !== null) {
    schedulePush(shard, batch, realm, userId, msg.id, { trigger: notice.push, groupId: notice.groupId });
  }
  writeBits(shard, batch, realm, userId, msg.id, stored, bits);
}
