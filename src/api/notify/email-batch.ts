import type { RealmState } from '../../model/realm-state.js';
import { defineJobKind, jobsOf } from '../../shard/jobs.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { userSetting } from '../../model/user-settings.js';
import { composeMissedMessageEmails, type BatchItem, type EmailBatch } from './missed-email.js';

/**
 * Missed-message emails are batched per person, as the reference's MissedMessageWorker batches
 * them: the first notice starts a batch due `email_notifications_batching_period_seconds` later,
 * later notices join it, and when it is due, what is still unread goes out, one email per
 * conversation (missed-email.ts).
 *
 * The batch is a durable job (`notifyEmailBatch:<realm>:<user>`, shard/jobs.ts) written in the
 * transaction of the send (or edit, or move) that caused its first notice, and rewritten by each
 * later one. Its run makes the emails and schedules each as a job of its own (mail.ts) in the
 * transaction that removes the batch: a crash before that commit runs the batch again, one
 * after it leaves each email to be sent once.
 */
/** A batch holds at most this many messages; the oldest go first past it (one email each conversation still says how many). */
const MAX_ITEMS = 500;

const batchKey = (realmId: number, userId: number) => `notifyEmailBatch:${realmId}:${userId}`;

export function queueMissedMessageEmail(shard: Shard, batch: WriteBatch, realm: RealmState, userId: number, item: BatchItem): void {
  const jobs = jobsOf(shard);
  const key = batchKey(realm.id, userId);
  const existing = jobs.get<EmailBatch>(key);
  if (existing) {
    if (existing.data.items.some((i) => i.id === item.id)) return;
    const items = [...existing.data.items, item].slice(-MAX_ITEMS);
    jobs.schedule(batch, { ...existing, data: { ...existing.data, items } });
    return;
  }
  const user = realm.users.get(userId)!;
  const period = Number(userSetting(user, 'email_notifications_batching_period_seconds'));
  jobs.schedule<EmailBatch>(batch, { key, kind: 'notifyEmailBatch', realmId: realm.id, due: Date.now() + period * 1000, data: { userId, items: [item] } });
}

defineJobKind<EmailBatch>('notifyEmailBatch', {
  // Making the emails reads the store and writes jobs: nothing there fails twice the same way.
  maxAttempts: 3,
  run({ shard, job, batch }) {
    const realm = shard.realm(job.realmId);
    if (realm) composeMissedMessageEmails(shard, batch, realm, job.data);
  },
});
