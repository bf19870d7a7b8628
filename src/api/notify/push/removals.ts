import { ACTIVE_PUSH } from '../../../model/message.js';
import { storedBits, writeBits } from '../../../model/read-state.js';
import type { RealmState } from '../../../model/realm-state.js';
import type { Emitted } from '../../../shard/events.js';
import { jobsOf } from '../../../shard/jobs.js';
import type { Shard } from '../../../shard/shard.js';
import { idsUnder } from '../../../store/messages.js';
import type { WriteBatch } from '../../../store/shard-store.js';
import { pushKey, scheduleRemoval } from './notify.js';
import { pushRegistration } from '../../../model/push-registration.js';

/**
 * Notifications leave the phones when their messages are read or deleted, whichever action did
 * it (the reference's do_clear_mobile_push_notifications_for_ids): this watches the events every
 * such action sends its clients (update_message_flags adding `read`, delete_message) as their
 * transaction starts (shard/events.ts EventObserver), and in that transaction clears the
 * ACTIVE_PUSH marks, cancels notifications not sent yet and schedules the removals.
 */
export function observeRemovals(shard: Shard, events: readonly Emitted[], batch: WriteBatch): void {
  if (pushRegistration(shard) === null) return;
  for (const { realmId, event, userIds } of events) {
    const realm = shard.realm(realmId);
    if (!realm) continue;
    if (event.type === 'update_message_flags' && event.flag === 'read' && event.op === 'add') {
      for (const userId of userIds) {
        if (event.all === true) readAll(shard, batch, realm, userId);
        else read(shard, batch, realm, userId, (event.messages ?? []) as number[]);
      }
    } else if (event.type === 'delete_message') {
      deleted(shard, batch, realm, (event.message_ids ?? [event.message_id]) as number[]);
    }
  }
}

function read(shard: Shard, batch: WriteBatch, realm: RealmState, userId: number, ids: number[]): void {
  const jobs = jobsOf(shard);
  const removed: number[] = [];
  for (const id of ids) {
    jobs.cancel(batch, pushKey(realm.id, userId, id));
    const stored = storedBits(shard, realm, userId, id);
    if (!(stored & ACTIVE_PUSH)) continue;
    writeBits(shard, batch, realm, userId, id, stored, stored & ~ACTIVE_PUSH);
    removed.push(id);
  }
  scheduleRemoval(shard, batch, realm, userId, removed);
}

/** "Mark all as read": every notification of the person, found through the `push` index. */
function readAll(shard: Shard, batch: WriteBatch, realm: RealmState, userId: number): void {
  const prefix = `pushNotify:${realm.id}:${userId}:`;
  const pending = [...shard.store.jobKeys.getKeys({ start: prefix, end: `${prefix}\uffff` })] as string[];
  const jobs = jobsOf(shard);
  for (const key of pending) jobs.cancel(batch, key);
  read(shard, batch, realm, userId, [...idsUnder(shard.store.uflagIdx, [realm.id, userId, 'push'])]);
}

/**
 * A deleted message's rows are already gone from this transaction's view, so who had its
 * notification is read from the committed index (the users with a flag row for it).
 */
function deleted(shard: Shard, batch: WriteBatch, realm: RealmState, ids: number[]): void {
  const byUser = new Map<number, number[]>();
  for (const id of ids) {
    for (const key of shard.store.uflagUsers.getKeys({ start: [realm.id, id], end: [realm.id, id + 1] })) {
      const userId = (key as number[])[2];
      const bits = (shard.store.uflags.get([realm.id, userId, id]) as number | undefined) ?? 0;
      if (bits & ACTIVE_PUSH) byUser.set(userId, [...(byUser.get(userId) ?? []), id]);
    }
  }
  for (const [userId, removed] of byUser) scheduleRemoval(shard, batch, realm, userId, removed);
}
