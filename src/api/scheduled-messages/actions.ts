import { ApiError, badRequest } from '../../lib/errors.js';
import { directTo, type ScheduledMessageRecord } from '../../model/personal.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import { jobsOf } from '../../shard/jobs.js';
import type { Shard } from '../../shard/shard.js';
import { userRows } from '../../store/personal.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { defaultReadBySender, normalizeTopic } from '../messages/send.js';
import { checkContent, checkTarget, parseDirectTo, parseStreamTo, type Target } from './target.js';

/**
 * Scheduled messages and reminders, after the reference's zerver/actions/scheduled_messages.py:
 * one table (`scheduled`, keyed [realm, sender, id]) for both, told apart by `kind`. Each one
 * waiting to be sent has a durable job, `sm:<realm>:<id>` (shard/jobs.ts), written in the same
 * transaction as the record; delivery.ts runs it.
 */

export const JOB_KIND = 'scheduled_message';
export interface JobData {
  senderId: number;
  id: number;
}

export const jobKey = (realmId: number, id: number) => `sm:${realmId}:${id}`;
const rowKey = (rec: { realmId: number; senderId: number; id: number }) => [rec.realmId, rec.senderId, rec.id];

export const deliveryTimeNotInFuture = () => badRequest('Scheduled delivery time must be in the future.');

/** The scheduled time must be later than now (the reference's DeliveryTimeNotInFutureError). */
export function checkFuture(timestamp: number): void {
  if (timestamp * 1000 <= Date.now()) throw deliveryTimeNotInFuture();
}

/** The user's own record of this kind (delivered ones included, as the reference's access_*). */
export function ownScheduled(shard: Shard, realm: RealmState, user: UserRecord, id: number, kind: ScheduledMessageRecord['kind']): ScheduledMessageRecord {
  const rec = shard.read<ScheduledMessageRecord>(shard.store.scheduled, [realm.id, user.id, id]);
  if (!rec || rec.kind !== kind) throw new ApiError(kind === 'remind' ? 'Reminder does not exist' : 'Scheduled message does not exist', { status: 404 });
  return rec;
}

/** A user's records of one kind not yet sent (failed ones included), by delivery time. */
export function pendingScheduled(shard: Shard, realm: RealmState, userId: number, kind: ScheduledMessageRecord['kind']): ScheduledMessageRecord[] {
  return userRows<ScheduledMessageRecord>(shard.store.scheduled, realm.id, userId)
    .filter((rec) => rec.kind === kind && rec.deliveredMessageId === null)
    .sort((a, b) => a.deliverAt - b.deliverAt || a.id - b.id);
}

/** The reference's ScheduledMessage.to_dict. */
export function scheduledView(rec: ScheduledMessageRecord): Record<string, unknown> {
  const common = { scheduled_message_id: rec.id, to: rec.type === 'stream' ? rec.streamId : rec.to, type: rec.type, content: rec.content, rendered_content: rec.rendered };
  const topic = rec.type === 'stream' ? { topic: rec.topic } : {};
  return { ...common, ...topic, scheduled_delivery_timestamp: rec.deliverAt, failed: rec.failed };
}

/** The reference's ScheduledMessage.to_reminder_dict. */
export function reminderView(rec: ScheduledMessageRecord): Record<string, unknown> {
  return {
    reminder_id: rec.id,
    to: rec.to,
    type: 'private',
    content: rec.content,
    rendered_content: rec.rendered,
    scheduled_delivery_timestamp: rec.deliverAt,
    failed: rec.failed,
    reminder_target_message_id: rec.reminderTargetMessageId,
  };
}

/** Where a checked target is stored. */
function targetFields(sender: UserRecord, target: Target): Pick<ScheduledMessageRecord, 'type' | 'streamId' | 'topic' | 'to'> {
  if (target.stream) return { type: 'stream', streamId: target.stream.id, topic: target.topic, to: [target.stream.id] };
  return { type: 'private', streamId: null, topic: '', to: directTo(sender.id, target.recipients!.map((u) => u.id)) };
}

/** `to` read as the message type wants it. */
export function parseTo(type: 'stream' | 'private', to: unknown): number | number[] {
  return type === 'stream' ? parseStreamTo(to) : parseDirectTo(to);
}

export interface NewScheduled {
  type: 'stream' | 'private';
  to: unknown;
  topic: string | undefined;
  content: string;
  deliverAt: number;
  readBySender: boolean | undefined;
  client: string;
}

/** Writes the record and its job on `batch`. */
function save(shard: Shard, batch: WriteBatch, rec: ScheduledMessageRecord): void {
  batch.put(shard.store.scheduled, rowKey(rec), rec);
}

function scheduleJob(shard: Shard, batch: WriteBatch, rec: ScheduledMessageRecord): void {
  jobsOf(shard).schedule<JobData>(batch, { kind: JOB_KIND, key: jobKey(rec.realmId, rec.id), realmId: rec.realmId, due: rec.deliverAt * 1000, data: { senderId: rec.senderId, id: rec.id } });
}

export const scheduledEvent = (op: 'update', rec: ScheduledMessageRecord) => ({ type: 'scheduled_messages', op, scheduled_message: scheduledView(rec) });

/** POST /scheduled_messages: the checks of a send, then the record, its job and the add event. */
export async function doScheduleMessage(shard: Shard, realm: RealmState, sender: UserRecord, spec: NewScheduled): Promise<number> {
  checkFuture(spec.deliverAt);
  const to = parseTo(spec.type, spec.to);
  const target = checkTarget(shard, realm, sender, spec.type, to, spec.topic);
  const { content, rendered } = checkContent(shard, realm, sender, target, spec.content);
  const fields = targetFields(sender, target);
  // Without read_by_sender, the reference's legacy default: read when scheduled from a full
  // client, unless it is to the sender alone.
  const toSelf = fields.type === 'private' && fields.to.length === 1 && fields.to[0] === sender.id;
  const batch = shard.batch();
  const rec = newScheduled(shard, batch, realm, sender, {
    kind: 'send_later',
    ...fields,
    content,
    rendered,
    client: spec.client,
    deliverAt: spec.deliverAt,
    readBySender: spec.readBySender ?? (defaultReadBySender(spec.client) && !toSelf),
  });
  return commitNew(shard, batch, realm, rec, { type: 'scheduled_messages', op: 'add', scheduled_messages: [scheduledView(rec)] });
}

type Unsent = Omit<ScheduledMessageRecord, 'id' | 'realmId' | 'senderId' | 'failed' | 'failureMessage' | 'deliveredMessageId'>;

/** A new record, not yet sent, with the next id. */
export function newScheduled(shard: Shard, batch: WriteBatch, realm: RealmState, sender: UserRecord, fields: Unsent): ScheduledMessageRecord {
  return { id: shard.allocate(batch, 'scheduled'), realmId: realm.id, senderId: sender.id, ...fields, failed: false, failureMessage: null, deliveredMessageId: null };
}

/** Saves a new record with its job and its add event. */
export async function commitNew(shard: Shard, batch: WriteBatch, realm: RealmState, rec: ScheduledMessageRecord, event: Record<string, unknown> & { type: string }): Promise<number> {
  save(shard, batch, rec);
  scheduleJob(shard, batch, rec);
  batch.emit(realm.id, event, [rec.senderId]);
  await batch.commit();
  return rec.id;
}

export interface ScheduledEdit {
  type?: 'stream' | 'private';
  to?: unknown;
  topic?: string;
  content?: string;
  deliverAt?: number;
  client: string;
}

/**
 * PATCH /scheduled_messages/{id}, as the reference's edit_scheduled_message: a new type, `to`
 * or content checks the whole message again; a topic alone applies to a channel message only;
 * a failed message needs a new time, and editing it clears the failure.
 */
export async function doEditScheduled(shard: Shard, realm: RealmState, sender: UserRecord, id: number, edit: ScheduledEdit): Promise<void> {
  const old = ownScheduled(shard, realm, sender, id, 'send_later');
  if (old.deliveredMessageId !== null) throw badRequest('Scheduled message was already sent');
  if (old.failed && edit.deliverAt === undefined) throw deliveryTimeNotInFuture();
  const rec: ScheduledMessageRecord = { ...old, client: edit.client, failed: false, failureMessage: null };
  const newTarget = edit.type !== undefined || edit.to !== undefined;
  if (newTarget || edit.content !== undefined) {
    const type = edit.type ?? old.type;
    const to = edit.to !== undefined ? parseTo(type, edit.to) : old.type === 'stream' ? old.streamId! : old.to;
    const target = checkTarget(shard, realm, sender, type, to, edit.topic ?? old.topic);
    const { content, rendered } = checkContent(shard, realm, sender, target, edit.content ?? old.content);
    if (newTarget) Object.assign(rec, targetFields(sender, target));
    if (edit.content !== undefined) Object.assign(rec, { content, rendered });
  }
  // A topic without a new type or `to` applies to a channel message, and is ignored for a direct one.
  if (!newTarget && edit.topic !== undefined && old.type === 'stream') {
    rec.topic = normalizeTopic(realm, edit.topic);
  }
  if (edit.deliverAt !== undefined) rec.deliverAt = edit.deliverAt;
  const batch = shard.batch();
  save(shard, batch, rec);
  // A failed message has no job left; a new time moves the job.
  if (old.failed || rec.deliverAt !== old.deliverAt) scheduleJob(shard, batch, rec);
  batch.emit(realm.id, scheduledEvent('update', rec), [sender.id]);
  await batch.commit();
}

/** DELETE /scheduled_messages/{id} and /reminders/{id}: the record, its job, the remove event. */
export async function doDeleteScheduled(shard: Shard, realm: RealmState, user: UserRecord, id: number, kind: ScheduledMessageRecord['kind']): Promise<void> {
  const rec = ownScheduled(shard, realm, user, id, kind);
  const batch = shard.batch();
  batch.del(shard.store.scheduled, rowKey(rec));
  jobsOf(shard).cancel(batch, jobKey(realm.id, rec.id));
  const event = kind === 'remind' ? { type: 'reminders', op: 'remove', reminder_id: id } : { type: 'scheduled_messages', op: 'remove', scheduled_message_id: id };
  batch.emit(realm.id, event, [user.id]);
  await batch.commit();
}

/** Saves a record changed by its delivery (sent or failed) on the delivery's batch. */
export function saveDelivered(shard: Shard, batch: WriteBatch, rec: ScheduledMessageRecord): void {
  save(shard, batch, rec);
}
