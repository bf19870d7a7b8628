import { me, operation } from '../../api-kit/operation.js';
import { accessibleMessage } from '../messages/access.js';
import { renderMessage } from '../messages/render.js';
import { clientName, normalizeContent } from '../messages/send.js';
import { checkFuture, commitNew, doDeleteScheduled, newScheduled, pendingScheduled, reminderView } from '../scheduled-messages/actions.js';
import { normalizeNote, reminderContent } from './content.js';

/**
 * Message reminders (feature levels 381, 399 and 415, after this server's level 372): POST
 * /reminders for a message the user can read, GET /reminders, DELETE /reminders/{reminder_id}.
 * A reminder is a scheduled message of kind `remind`, sent to the user by the Notification Bot
 * (scheduled-messages/delivery.ts).
 */

const create = operation<{ message_id: number; scheduled_delivery_timestamp: number; note?: string }>({
  auth: 'user',
  params: {
    properties: { message_id: { type: 'integer' }, scheduled_delivery_timestamp: { type: 'integer' }, note: { type: 'string' } },
    required: ['message_id', 'scheduled_delivery_timestamp'],
  },
  handler: async (ctx) => {
    const user = me(ctx);
    const { shard, realm, params: p } = ctx;
    checkFuture(p.scheduled_delivery_timestamp);
    const msg = accessibleMessage(shard, realm, user, p.message_id);
    const note = p.note === undefined ? null : normalizeNote(p.note);
    const content = normalizeContent(reminderContent(shard, realm, msg, note));
    const batch = shard.batch();
    const rec = newScheduled(shard, batch, realm, user, {
      kind: 'remind',
      type: 'private',
      streamId: null,
      topic: '',
      to: [user.id],
      content,
      rendered: renderMessage(content, { realm, sender: user }).html,
      client: clientName(ctx.userAgent),
      deliverAt: p.scheduled_delivery_timestamp,
      readBySender: false,
      reminderTargetMessageId: msg.id,
      reminderNote: note,
    });
    const id = await commitNew(shard, batch, realm, rec, { type: 'reminders', op: 'add', reminders: [reminderView(rec)] });
    return { reminder_id: id };
  },
});

const list = operation({
  auth: 'user',
  handler: (ctx) => ({ reminders: pendingScheduled(ctx.shard, ctx.realm, me(ctx).id, 'remind').map(reminderView) }),
});

const remove = operation<{ reminder_id: number }>({
  auth: 'user',
  params: { properties: { reminder_id: { type: 'integer' } }, required: ['reminder_id'] },
  handler: async (ctx) => {
    await doDeleteScheduled(ctx.shard, ctx.realm, me(ctx), ctx.params.reminder_id, 'remind');
    return {};
  },
});

export const operations = {
  'reminders.create': create,
  'reminders.list': list,
  'reminders.remove': remove,
};
