import type { MessageRecord, SubmessageRecord } from '../model/message.js';
import type { StoreView, WriteBatch } from './shard-store.js';

/**
 * Submessages: the state of a message's widget (a poll's votes and options, a to-do list's
 * tasks), one row each, keyed [msgId, n] with n = 0, 1, 2... in the order they were added. They
 * are kept out of the message record so that a poll with thousands of votes does not make every
 * read of the message decode them; the record carries only their count, and a new one rewrites
 * it, so views cached by record (api/messages/views.ts) are rebuilt.
 *
 * A range read sees only committed rows, and a message event is shaped while its batch is about
 * to commit; so the rows past the committed ones are read one by one, through the shard's
 * uncommitted writes.
 */

/** A message's submessages, oldest first; none unless its record counts some. */
export function submessagesOf(shard: StoreView, msg: MessageRecord): SubmessageRecord[] {
  const count = msg.submessageCount ?? 0;
  if (count === 0) return [];
  const out = [...shard.store.submessages.getRange({ start: [msg.id, 0], end: [msg.id, count] })].map(({ value }) => value as SubmessageRecord);
  for (let n = out.length; n < count; n++) {
    const sub = shard.read<SubmessageRecord>(shard.store.submessages, [msg.id, n]);
    if (sub) out.push(sub);
  }
  return out;
}

/** Writes a submessage and the message record with its new count; returns the new record. */
export function addSubmessage(batch: WriteBatch, shard: StoreView, msg: MessageRecord, sub: SubmessageRecord): MessageRecord {
  const n = msg.submessageCount ?? 0;
  const updated = { ...msg, submessageCount: n + 1 };
  batch.put(shard.store.submessages, [msg.id, n], sub);
  batch.put(shard.store.messages, msg.id, updated);
  return updated;
}

/** Removes a deleted message's submessages. */
export function removeSubmessages(batch: WriteBatch, shard: StoreView, msg: MessageRecord): void {
  for (let n = 0; n < (msg.submessageCount ?? 0); n++) batch.del(shard.store.submessages, [msg.id, n]);
}
