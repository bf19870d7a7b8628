import { badRequest } from '../../lib/errors.js';
import { FLAG } from '../../model/message.js';
import { flagBits } from '../../model/read-state.js';
import { realmSetting } from '../../model/realm-settings.js';
import { userSetting } from '../../model/user-settings.js';
import { me, operation } from '../../api-kit/operation.js';
import { accessibleMessage } from './access.js';
import { userMessageHolders } from './edit-audience.js';

/**
 * GET /messages/{message_id}/read_receipts: who has read a message, as the reference's
 * read_receipts view decides it: users who hold it (received it, or flagged it without having
 * received it) and have it read, active, sharing read receipts (send_read_receipts), never the
 * sender. The realm can turn read receipts off. This server has no muted users, whom the
 * reference also leaves out.
 */
const readReceipts = operation<{ message_id: number }>({
  auth: 'user',
  params: { properties: { message_id: { type: 'integer', minimum: 0 } }, required: ['message_id'] },
  handler: (ctx) => {
    const { shard, realm } = ctx;
    const msg = accessibleMessage(shard, realm, me(ctx), ctx.params.message_id);
    if (realmSetting(realm, 'enable_read_receipts') !== true) throw badRequest('Read receipts are disabled in this organization.');
    const readers: number[] = [];
    for (const userId of userMessageHolders(shard, realm, msg)) {
      if (userId === msg.senderId) continue;
      const user = realm.users.get(userId);
      if (!user?.isActive || user.isSystemBot || userSetting(user, 'send_read_receipts') !== true) continue;
      if (flagBits(shard, realm, userId, msg) & FLAG.read) readers.push(userId);
    }
    return { user_ids: readers.sort((a, b) => a - b) };
  },
});

export const operations = {
  'messages.readReceipts': readReceipts,
};
