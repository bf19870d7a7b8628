import { log } from '../../lib/log.js';
import { mailerFor, type MailMessage } from '../../lib/mail.js';
import type { RealmState } from '../../model/realm-state.js';
import { defineJobKind, jobsOf } from '../../shard/jobs.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';

/**
 * Emails to people go out as durable jobs (`notifyMail:<realm>:<n>`), written in the transaction
 * that decided to send them: through the configured SMTP server, or to the outbox (lib/mail.ts)
 * when there is none. One job carries the emails made together (a batch's, one per
 * conversation) and sends them in order, one at a time.
 *
 * Sending is the one effect outside LMDB, so each email sent is recorded at once under the
 * job's key (`['sent', key, i]` in the notify table, its own small transaction): a run after a
 * crash, or after an SMTP failure, goes on from the first email not recorded. The job's removal
 * drops the records. An email the SMTP server took just before a crash, before its record
 * committed, goes again, with the same Message-ID, so the copy is recognisable. SMTP failures are
 * retried with the job mechanism's backoff (10 s, 20 s, 40 s, ... an hour at most); after the
 * last attempt the emails not sent are kept in the outbox and the failure is logged.
 */
const MAX_ATTEMPTS = 10;

export interface MailJob {
  emails: MailMessage[];
}

/** Schedules the emails to be sent, in this order, once `batch` commits. */
export function scheduleMails(shard: Shard, batch: WriteBatch, realm: RealmState, emails: MailMessage[]): void {
  if (emails.length === 0) return;
  // Zero-padded: jobs due at the same moment run in key order, so emails go in the order they were made.
  const n = shard.allocate(batch, 'notifyMail');
  const host = shard.config.externalHost.replace(/:\d+$/, '');
  const data: MailJob = { emails: emails.map((e, i) => ({ ...e, messageId: `<stoa.${shard.index}.${n}.${i}.${realm.id}@${host}>` })) };
  jobsOf(shard).schedule(batch, { key: `notifyMail:${realm.id}:${String(n).padStart(12, '0')}`, kind: 'notifyMail', realmId: realm.id, due: Date.now(), data });
}

export function scheduleMail(shard: Shard, batch: WriteBatch, realm: RealmState, email: MailMessage): void {
  scheduleMails(shard, batch, realm, [email]);
}

const sentKey = (key: string, i: number) => ['sent', key, i];

defineJobKind<MailJob>('notifyMail', {
  maxAttempts: MAX_ATTEMPTS,
  async run({ shard, job, batch }) {
    const mailer = mailerFor(shard.config);
    for (const [i, email] of job.data.emails.entries()) {
      if (shard.read(shard.store.notify, sentKey(job.key, i)) !== undefined) continue;
      const result = await mailer.deliver(email);
      await shard.batch().put(shard.store.notify, sentKey(job.key, i), true).commit();
      log.info({ to: email.to, subject: email.subject, via: result.via, path: result.path }, 'notification email sent');
    }
    for (const i of job.data.emails.keys()) batch.del(shard.store.notify, sentKey(job.key, i));
  },
  async exhausted({ shard, job, batch }) {
    const mailer = mailerFor(shard.config);
    for (const [i, email] of job.data.emails.entries()) {
      if (shard.read(shard.store.notify, sentKey(job.key, i)) === undefined) {
        const path = await mailer.keepInOutbox(email);
        log.error({ to: email.to, subject: email.subject, path }, `notification email to ${email.to} could not be sent after ${MAX_ATTEMPTS} attempts; kept in ${path}`);
      }
      batch.del(shard.store.notify, sentKey(job.key, i));
    }
  },
});
