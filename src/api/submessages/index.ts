import { badRequest } from '../../lib/errors.js';
import type { MessageRecord, SubmessageRecord } from '../../model/message.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { addSubmessage, submessagesOf } from '../../store/submessages.js';
import { accessibleMessage } from '../messages/access.js';
import { actionAudience } from '../messages/edit-audience.js';
import { me, operation } from '../../api-kit/operation.js';
import { checkWidgetData, widgetType } from './widgets.js';

/**
 * POST /submessage: a vote, a new option or task, a checked item, an edited question or title,
 * as the reference's process_submessage. Submessages are the widget's collaborative state: anyone
 * who can see the message may add one, once its sender has started it.
 */

/**
 * A limit of ours, not the reference's: a submessage is one small change to a widget, and each
 * is kept as long as its message, so a request may not store an arbitrary amount of text.
 */
export const MAX_SUBMESSAGE_LENGTH = 10_000;

/** The reference's verify_submessage_sender: its sender attaches the first submessage. */
function checkCanAttach(msg: MessageRecord, existing: SubmessageRecord[], user: UserRecord): void {
  if (msg.senderId === user.id) return;
  if (existing.some((s) => s.senderId === msg.senderId)) return;
  throw badRequest('You cannot attach a submessage to this message.');
}

export async function doAddSubmessage(shard: Shard, realm: RealmState, user: UserRecord, msg: MessageRecord, msgType: string, content: string): Promise<void> {
  const batch = shard.batch();
  const sub: SubmessageRecord = { id: shard.allocate(batch, 'submessage'), senderId: user.id, msgType, content };
  addSubmessage(batch, shard, msg, sub);
  const audience = actionAudience(shard, realm, [msg]).add(user.id);
  const event = { type: 'submessage', msg_type: msgType, message_id: msg.id, submessage_id: sub.id, sender_id: user.id, content };
  batch.emit(realm.id, event, audience);
  await batch.commit();
}

const add = operation<{ message_id: number; msg_type: string; content: string }>({
  auth: 'user',
  params: {
    properties: { message_id: { type: 'integer' }, msg_type: { type: 'string' }, content: { type: 'string', maxLength: MAX_SUBMESSAGE_LENGTH } },
    required: ['message_id', 'msg_type', 'content'],
  },
  handler: async (ctx) => {
    const user = me(ctx);
    const { shard, realm, params: p } = ctx;
    // Read and changed in one synchronous step: two votes arriving together both land.
    const msg = accessibleMessage(shard, realm, user, p.message_id);
    const existing = submessagesOf(shard, msg);
    checkCanAttach(msg, existing, user);
    let data: unknown;
    try {
      data = JSON.parse(p.content);
    } catch {
      throw badRequest('Invalid json for submessage');
    }
    checkWidgetData(widgetType(existing), data, msg.senderId === user.id);
    await doAddSubmessage(shard, realm, user, msg, p.msg_type, p.content);
    return {};
  },
});

export const operations = {
  'submessages.add': add,
};
