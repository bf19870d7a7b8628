import { badRequest } from '../../lib/errors.js';
import { dmKey, topicKey, type MessageRecord } from '../../model/message.js';
import { storedBits, writeBits } from '../../model/read-state.js';
import type { RealmState } from '../../model/realm-state.js';
import { userHasRealmPermission } from '../../model/realm-settings.js';
import type { UserRecord } from '../../model/types.js';
import { flush, outbox, queueEvent } from '../../shard/outbox.js';
import type { Shard } from '../../shard/shard.js';
import type { HolderCache } from '../../store/flips.js';
import { firstMessageIn, indexMessage } from '../../store/messages.js';
import { removeSubmessages } from '../../store/submessages.js';
import { me, operation } from '../../api-kit/operation.js';
import { notifyAttachments, unlinkMessageAttachments, type AttachmentLinks } from './attachments.js';
import { actionAudience, rowUserIds } from './edit-audience.js';
import { limitSeconds, modifiableMessage, nowSeconds, pastLimit } from './edit-rules.js';

/**
 * Who may delete a message, after the reference's validate_can_delete_message: members of
 * can_delete_any_message_group any message at any time; others their own messages (or their
 * bots'), if in can_delete_own_message_group and within message_content_delete_limit_seconds.
 */
export function checkCanDelete(realm: RealmState, user: UserRecord, msg: MessageRecord, now: number): void {
  if (userHasRealmPermission(realm, user, 'can_delete_any_message_group')) return;
  const denied = () => badRequest("You don't have permission to delete this message");
  const sender = realm.users.get(msg.senderId);
  if (msg.senderId !== user.id && sender?.botOwnerId !== user.id) throw denied();
  if (!userHasRealmPermission(realm, user, 'can_delete_own_message_group')) throw denied();
  if (pastLimit(msg, limitSeconds(realm, 'message_content_delete_limit_seconds'), now, 0)) {
    throw badRequest('The time limit for deleting this message has passed');
  }
}

/** Messages of one conversation (channel and topic, or direct-message group) share one event. */
function conversationKey(msg: MessageRecord): string {
  return msg.kind === 'stream' ? `s:${msg.streamId}:${topicKey(msg.topic)}` : `d:${dmKey(msg.dm!)}`;
}

/**
 * Deletes messages for good: the rows, their index rows, every user's flag rows (found through
 * the uflagUsers index) and their links to uploads, in one transaction. Then one delete_message
 * per conversation to whoever could see the messages, and to the actor. The event-queue layer
 * turns message_ids into one event per message_id for clients without bulk_message_deletion.
 */
export async function doDeleteMessages(shard: Shard, realm: RealmState, msgs: MessageRecord[], actor: UserRecord | null): Promise<void> {
  const out = outbox(shard);
  const groups = new Map<string, MessageRecord[]>();
  for (const msg of msgs) {
    const key = conversationKey(msg);
    groups.set(key, [...(groups.get(key) ?? []), msg]);
  }
  const links: AttachmentLinks = { changed: [], detached: [] };
  const deletedIn = new Map<number, Set<number>>();
  for (const msg of msgs) if (msg.kind === 'stream') deletedIn.set(msg.streamId!, (deletedIn.get(msg.streamId!) ?? new Set()).add(msg.id));
  // Who holds a flip, read once per block of ids however many of its messages go.
  const flipCache: HolderCache = new Map();
  for (const group of groups.values()) {
    // Computed before the rows go: who received the messages is part of what is deleted.
    const audience = actionAudience(shard, realm, group);
    if (actor) audience.add(actor.id);
    for (const msg of group) {
      for (const userId of rowUserIds(shard, realm, msg.id, flipCache)) writeBits(shard, out.batch, realm, userId, msg.id, storedBits(shard, realm, userId, msg.id), 0);
      indexMessage(shard, out.batch, msg, false);
      out.batch.del(shard.store.messages, msg.id);
      removeSubmessages(out.batch, shard, msg);
      const unlinked = unlinkMessageAttachments(shard, out.batch, realm, msg.id);
      links.changed.push(...unlinked.changed);
    }
    const sample = group[0];
    const event: Record<string, unknown> = { type: 'delete_message', message_ids: group.map((m) => m.id).sort((a, b) => a - b) };
    if (sample.kind === 'stream') {
      moveFirstMessageId(shard, realm, out, sample.streamId!, deletedIn.get(sample.streamId!)!, audience);
      event.stream_id = sample.streamId;
      // The reference groups by the lower-cased topic and reports that.
      event.topic = topicKey(sample.topic);
    }
    event.message_type = sample.kind === 'stream' ? 'stream' : 'private';
    queueEvent(out, event as { type: string }, audience);
  }
  notifyAttachments(shard, out.batch, realm, links);
  await flush(shard, realm, out);
}

/**
 * The reference's check_update_first_message_id: a channel whose first message is deleted gets
 * its next one (or null), and those who see the deletion hear of it first.
 */
function moveFirstMessageId(shard: Shard, realm: RealmState, out: ReturnType<typeof outbox>, streamId: number, deleted: ReadonlySet<number>, audience: Iterable<number>): void {
  const stream = realm.streams.get(streamId);
  if (!stream || stream.firstMessageId == null || !deleted.has(stream.firstMessageId)) return;
  const next = { ...stream, firstMessageId: firstMessageIn(shard, realm.id, streamId, deleted) };
  realm.setStream(next);
  out.batch.put(shard.store.streams, [realm.id, streamId], next);
  queueEvent(out, { type: 'stream', op: 'update', property: 'first_message_id', value: next.firstMessageId, stream_id: streamId, name: stream.name }, audience);
}

/** DELETE /messages/{message_id} */
const remove = operation<{ message_id: number }>({
  auth: 'user',
  params: { properties: { message_id: { type: 'integer', minimum: 0 } }, required: ['message_id'] },
  handler: async (ctx) => {
    const user = me(ctx);
    const msg = modifiableMessage(ctx.shard, ctx.realm, user, ctx.params.message_id);
    checkCanDelete(ctx.realm, user, msg, nowSeconds());
    await doDeleteMessages(ctx.shard, ctx.realm, [msg], user);
    return {};
  },
});

export const operations = {
  'messages.delete': remove,
};
