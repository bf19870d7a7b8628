import type { RealmState } from '../../model/realm-state.js';
import { defineJobKind, jobsOf } from '../../shard/jobs.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { userSetting } from '../../model/user-settings.js';
import { composeMissedMessageEmails, type BatchItem, type EmailBatch } from './missed-email.js';
import { queueBatchItem, takeBatchItems } from './store.js';

/**
 * Missed-message emails are batched per person, as the reference's MissedMessageWorker batches
 * them: the first notice starts a batch due `email_notifications_batching_period_seconds` later,
 * later notices join it, and when it is due, what is still unread goes out, one email per
 * conversation (missed-email.ts).
 *
 * The batch is a durable job (`notifyEmailBatch:<realm>:<user>`, shard/jobs.ts) written in the
 * transaction of the send (or edit, or move) that caused its first notice, with that notice.
 * Each later notice is a row of its own beside it (`['batchItem', realm, user, message]` in the
 * notify table, store.ts), written in its own change's transaction: rewriting the job instead
 * re-encoded every notice so far at each send (up to 500 of them for a follower away while a
 * topic is busy, a quarter of the shard's time per send in the bench's DELIVERY). Its run reads
 * the rows (committed ones: a change adding a row holds the job until it commits, Jobs.hold),
 * makes the emails and schedules each as a job of its own (mail.ts) in the transaction
 * that removes the batch and its rows: a crash before that commit runs the batch again, one
 * after it leaves each email to be sent once. A batch written by an earlier version holds all
 * its notices in the job, and runs the same.
 */
/** A batch holds at most this many messages; the oldest go first past it (one email each conversation still says how many). */
const MAX_ITEMS = 500;

const batchKey = (realmId: number, userId: number) => `notifyEmailBatch:${realmId}:${userId}`;

export function queueMissedMessageEmail(shard: Shard, batch: WriteBatch, realm: RealmState, userId: number, item: BatchItem): void {
  const jobs = jobsOf(shard);
  const key = batchKey(realm.id, userId);
  // A message is noticed once per user (recordNotice's EMAIL_NOTIFIED bit); a row is keyed by its
  // message, and the run drops a row that repeats the job's own notice.
  if (jobs.has(key)) {
    queueBatchItem(shard, batch, realm.id, userId, item);
    // Not run before this row is committed: a run now would leave it to the person's next batch.
    jobs.hold(batch, key);
    return;
  }
  const user = realm.users.get(userId)!;
  const period = Number(userSetting(user, 'email_notifications_batching_period_seconds'));
  jobs.schedule<EmailBatch>(batch, { key, kind: 'notifyEmailBatch', realmId: realm.id, due: Date.now() + period * 1000, data: { userId, items: [item] } });
}

/**
 * A batch's notices: the job's own (its first, or all of them for a batch of an earlier version),
 * then its rows in the order they were added, the newest MAX_ITEMS. Deletes the rows on `batch`.
 */
function takeItems(shard: Shard, batch: WriteBatch, realmId: number, data: EmailBatch): BatchItem[] {
  const rows = takeBatchItems(shard, batch, realmId, data.userId);
  const seen = new Set(data.items.map((i) => i.id));
  const items = [...data.items, ...rows.filter((i) => !seen.has(i.id))];
  return items.slice(-MAX_ITEMS);
}

defineJobKind<EmailBatch>('notifyEmailBatch', {
  // Making the emails reads the store and writes jobs: nothing there fails twice the same way.
  maxAttempts: 3,
  run({ shard, job, batch }) {
    const items = takeItems(shard, batch, job.realmId, job.data);
    const realm = shard.realm(job.realmId);
    if (realm) composeMissedMessageEmails(shard, batch, realm, { ...job.data, items });
  },
  // A batch given up on takes its rows with it, as the job held them before.
  exhausted({ shard, job, batch }) {
    takeBatchItems(shard, batch, job.realmId, job.data.userId);
  },
});
