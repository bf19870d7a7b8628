import { ApiError } from '../../lib/errors.js';
import { log } from '../../lib/log.js';
import type { ScheduledMessageRecord } from '../../model/personal.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import { defineJobKind, type JobRun } from '../../shard/jobs.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { getMessage } from '../../store/messages.js';
import { canAccessMessage } from '../messages/access.js';
import { notificationBot } from '../messages/notices.js';
import { doSendMessage, normalizeContent } from '../messages/send.js';
import { reminderContent } from '../reminders/content.js';
import { JOB_KIND, saveDelivered, scheduledEvent, type JobData } from './actions.js';
import { checkTarget } from './target.js';

/**
 * Sending a scheduled message or a reminder when its job comes due, after the reference's
 * try_deliver_one_scheduled_message. The send (a real send by the sender: doSendMessage on the
 * job's batch, SendSpec.batch), the record marked delivered and the job's removal are one transaction, so a crash repeats the
 * whole delivery or none of it; the record is the job's key to its effect: a run that finds it
 * already delivered or failed does nothing more.
 *
 * A send that fails marks the record failed with the reason, keeps it, and, for a scheduled
 * message, tells its sender through the Notification Bot, all in the same transaction.
 */

/** The reference's SCHEDULED_MESSAGE_LATE_CUTOFF_MINUTES: later than this, the send fails. */
export const LATE_CUTOFF_SECONDS = 10 * 60;

/** Failures after which the sender is not told (nobody can read it, or nobody is there). */
class Silent extends ApiError {}

function checkSendable(realm: RealmState, sender: UserRecord | undefined): asserts sender is UserRecord {
  if (realm.realm.deactivated) throw new Silent('This organization has been deactivated');
  if (!sender?.isActive) throw new Silent('Account is deactivated');
}

/**
 * Records the send on `batch`, which the caller commits; throws an ApiError, before recording
 * anything, when it cannot be made.
 */
async function recordDelivery(shard: Shard, realm: RealmState, rec: ScheduledMessageRecord, bot: UserRecord, batch: WriteBatch): Promise<number> {
  const sender = realm.users.get(rec.senderId);
  checkSendable(realm, sender);
  if (rec.kind === 'remind') {
    // With the message still readable, the reminder quotes it as it is now.
    const target = rec.reminderTargetMessageId !== undefined ? getMessage(shard, realm, rec.reminderTargetMessageId) : undefined;
    const content = target && canAccessMessage(realm, sender, target) ? reminderContent(shard, realm, target, rec.reminderNote ?? null) : rec.content;
    return (await doSendMessage(shard, realm, { sender: bot, content: normalizeContent(content), client: 'Internal', readBySender: false, recipients: [sender], batch })).id;
  }
  if (Date.now() / 1000 > rec.deliverAt + LATE_CUTOFF_SECONDS) throw new ApiError('Message could not be sent at the scheduled time.');
  // Checked again: the channel, the recipients or the sender's permissions may have changed.
  const target = checkTarget(shard, realm, sender, rec.type, rec.type === 'stream' ? rec.streamId! : rec.to, rec.topic);
  const spec = { sender, content: normalizeContent(rec.content), client: rec.client, readBySender: rec.readBySender };
  return (await doSendMessage(shard, realm, { ...spec, stream: target.stream, topic: target.topic, recipients: target.recipients, batch })).id;
}

/** `<time:...>`: the reference's datetime_to_global_time, which clients show in local time. */
const globalTime = (seconds: number) => `<time:${new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00')}>`;

/** Marks the record failed and, unless the failure is silent, tells the sender. */
async function recordFailure(shard: Shard, realm: RealmState, rec: ScheduledMessageRecord, reason: string, silent: boolean, bot: UserRecord, batch: WriteBatch): Promise<void> {
  const failed = { ...rec, failed: true, failureMessage: reason };
  saveDelivered(shard, batch, failed);
  const sender = realm.users.get(rec.senderId);
  // Reminders have no failure notice in the reference; system bots have nobody to tell.
  if (rec.kind === 'remind' || silent || !sender || sender.isSystemBot) return;
  batch.emit(realm.id, scheduledEvent('update', failed), [sender.id]);
  const content =
    `The message you scheduled for ${globalTime(rec.deliverAt)} was not sent because of the following error:\n\n` +
    `> ${reason}\n\n[View scheduled messages](#scheduled)`;
  await doSendMessage(shard, realm, { sender: bot, content, client: 'Internal', readBySender: false, recipients: [sender], batch });
}

async function deliver(run: JobRun<JobData>, failure: string | null): Promise<void> {
  const { shard, job, batch } = run;
  const realm = shard.realm(job.realmId);
  if (!realm) return;
  // First the one step that may wait (the bot is made with the realm, so it rarely does): from
  // here to the commit only microtasks run (doSendMessage on a given batch records synchronously
  // and leaves the commit to us), so no other request sees the record half-delivered.
  const bot = await notificationBot(shard, realm);
  const rec = shard.read<ScheduledMessageRecord>(shard.store.scheduled, [realm.id, job.data.senderId, job.data.id]);
  // Deleted; or sent or failed already, by an earlier run whose job removal this one repeats.
  if (!rec || rec.deliveredMessageId !== null || rec.failed) return;
  if (failure !== null) {
    await recordFailure(shard, realm, rec, failure, false, bot, batch);
  } else {
    try {
      const messageId = await recordDelivery(shard, realm, rec, bot, batch);
      saveDelivered(shard, batch, { ...rec, deliveredMessageId: messageId });
      const event = rec.kind === 'remind' ? { type: 'reminders', op: 'remove', reminder_id: rec.id } : { type: 'scheduled_messages', op: 'remove', scheduled_message_id: rec.id };
      batch.emit(realm.id, event, [rec.senderId]);
    } catch (err) {
      // Anything but an ApiError is a bug: the runner discards the batch and retries.
      if (!(err instanceof ApiError)) throw err;
      await recordFailure(shard, realm, rec, err.message, err instanceof Silent, bot, batch);
    }
  }
  await batch.commit();
}

defineJobKind<JobData>(JOB_KIND, {
  maxAttempts: 3,
  run: (run) => deliver(run, null),
  // After the last unexpected error, the reference's "Internal server error" failure.
  exhausted: (run) => {
    log.error({ job: run.job.key }, 'scheduled message failed with an internal error');
    return deliver(run, 'Internal server error');
  },
});
