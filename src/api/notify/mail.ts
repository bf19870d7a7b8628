import { log } from '../../lib/log.js';
import { mailerFor, type MailMessage } from '../../lib/mail.js';
import type { RealmState } from '../../model/realm-state.js';
import { defineJobKind, jobsOf } from '../../shard/jobs.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';

/**
 * Every email to a person goes out as a durable job (`notifyMail:<realm>:<n>`), written in the
 * transaction that decided to send it: through the configured SMTP server, or to the outbox
 * (lib/mail.ts) when there is none. An SMTP failure is retried with the job mechanism's backoff
 * (10 s, 20 s, 40 s, ... an hour at most); after the last attempt the email is kept in the
 * outbox and the failure logged. A crash after the SMTP server took the email and before the
 * job's removal committed sends it again, with the same Message-ID, so the copy is recognisable.
 */
const MAX_ATTEMPTS = 10;

/** Schedules `message` to be sent at once (after the commit of `batch`). */
export function scheduleMail(shard: Shard, batch: WriteBatch, realm: RealmState, message: MailMessage): void {
  // Zero-padded: emails due at the same moment go in the order they were made.
  const n = String(shard.allocate(batch, 'notifyMail')).padStart(12, '0');
  const host = shard.config.externalHost.replace(/:\d+$/, '');
  const data: MailMessage = { ...message, messageId: `<stoa.${shard.index}.${Number(n)}.${realm.id}@${host}>` };
  jobsOf(shard).schedule(batch, { key: `notifyMail:${realm.id}:${n}`, kind: 'notifyMail', realmId: realm.id, due: Date.now(), data });
}

defineJobKind<MailMessage>('notifyMail', {
  maxAttempts: MAX_ATTEMPTS,
  async run({ shard, job }) {
    const result = await mailerFor(shard.config).deliver(job.data);
    log.info({ to: job.data.to, subject: job.data.subject, via: result.via, path: result.path }, 'notification email sent');
  },
  async exhausted({ shard, job }) {
    const path = await mailerFor(shard.config).keepInOutbox(job.data);
    log.error({ to: job.data.to, subject: job.data.subject, path }, `notification email to ${job.data.to} could not be sent after ${MAX_ATTEMPTS} attempts; kept in ${path}`);
  },
});
