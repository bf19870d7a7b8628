import { pushConfig } from '../../../lib/config.js';
import { log } from '../../../lib/log.js';
import { ACTIVE_PUSH, FLAG, INDEXED_FLAGS } from '../../../model/message.js';
import { MENTION_TRIGGERS, type Trigger } from '../../../model/notifications.js';
import { flagBits, storedBits, writeBits } from '../../../model/read-state.js';
import type { RealmState } from '../../../model/realm-state.js';
import type { DeviceRecord, UserRecord } from '../../../model/types.js';
import { defineJobKind, jobsOf, type JobRun } from '../../../shard/jobs.js';
import type { Shard } from '../../../shard/shard.js';
import { getMessage } from '../../../store/messages.js';
import type { WriteBatch } from '../../../store/shard-store.js';
import { devicesOf, doForgetDevices } from '../../devices/actions.js';
import { userSetting } from '../../../model/user-settings.js';
import { canAccessMessage } from '../../messages/access.js';
import { smallestMentionedGroup } from '../groups.js';
import { BouncerError, sendToBouncer } from './bouncer.js';
import { messagePayloads, removalPayloads, type Payloads } from './payload.js';
import { pushRegistration, realmUuid, userUuid, type PushRegistration } from '../../../model/push-registration.js';
import { applyRealmPushStatus } from './realm-status.js';

/**
 * Mobile notifications and their removals, sent through the push notification service
 * (`remotes/push/notify`), each a durable job written in the transaction that caused it:
 *
 *   pushNotify:<realm>:<user>:<message>   a message's notification (a send, an edit, a move)
 *   pushRemove:<realm>:<user>:<n>         the removal of notifications (read, edited away,
 *                                         deleted: removals.ts)
 *
 * A run reads the state again (the message still there and unread, devices registered), posts
 * to the service, and records the outcome on its own transaction: a notification sent marks
 * the message ACTIVE_PUSH for the person, so that reading it sends a removal. The service's
 * trouble (network errors, timeouts, 5xx) is retried with backoff; a refusal is logged with
 * what the service said and not retried (model/message.ts, push/bouncer.ts).
 */
export interface PushJob {
  userId: number;
  messageId: number;
  trigger: Trigger;
  groupId: number | null;
}

export interface RemoveJob {
  userId: number;
  messageIds: number[];
}

const MAX_ATTEMPTS = 6;
/** 5 s, 10 s, 20 s, ... at most 10 minutes: a notification late by more is hardly one. */
const backoff = (attempts: number) => Math.min(600_000, 5_000 * 2 ** Math.max(0, attempts - 1));
/** handle_remove_push_notification keeps the newest 200: APNs payloads are limited to 4 KB. */
const MAX_REMOVED_IDS = 200;

export const pushKey = (realmId: number, userId: number, messageId: number) => `pushNotify:${realmId}:${userId}:${messageId}`;

export function schedulePush(shard: Shard, batch: WriteBatch, realm: RealmState, userId: number, messageId: number, what: { trigger: Trigger; groupId: number | null }): void {
  const jobs = jobsOf(shard);
  const key = pushKey(realm.id, userId, messageId);
  if (jobs.get(key)) return;
  jobs.schedule<PushJob>(batch, { key, kind: 'pushNotify', realmId: realm.id, due: Date.now(), data: { userId, messageId, ...what } });
}

export function scheduleRemoval(shard: Shard, batch: WriteBatch, realm: RealmState, userId: number, messageIds: number[]): void {
  if (messageIds.length === 0) return;
  const n = shard.allocate(batch, 'pushRemove');
  const ids = [...messageIds].sort((a, b) => a - b).slice(-MAX_REMOVED_IDS);
  jobsOf(shard).schedule<RemoveJob>(batch, { key: `pushRemove:${realm.id}:${userId}:${n}`, kind: 'pushRemove', realmId: realm.id, due: Date.now(), data: { userId, messageIds: ids } });
}

const credentials = (r: PushRegistration) => ({ orgId: r.orgId, orgKey: r.orgKey });

/**
 * send_notifications_to_bouncer: one request for all the person's devices. The service's
 * answer names the tokens it has dropped (forgotten here too) and whether it still pushes for
 * the organization (its realm_push_notifications_enabled).
 */
async function post(shard: Shard, realm: RealmState, user: UserRecord, reg: PushRegistration, payloads: Payloads, devices: DeviceRecord[]): Promise<void> {
  const apple = devices.filter((d) => d.kind === 'apns').map((d) => d.token);
  const android = devices.filter((d) => d.kind === 'gcm').map((d) => d.token);
  const res = await sendToBouncer({
    servicesUrl: pushConfig(shard.config).servicesUrl,
    credentials: credentials(reg),
    method: 'POST',
    endpoint: 'push/notify',
    json: {
      user_uuid: userUuid(reg, realm.id, user.id),
      user_id: user.id,
      realm_uuid: realmUuid(reg, realm.id),
      apns_payload: payloads.apns,
      gcm_payload: payloads.gcm,
      gcm_options: payloads.gcmOptions,
      android_devices: android,
      apple_devices: apple,
    },
  });
  const deleted = (res.deleted_devices ?? {}) as { android_devices?: string[]; apple_devices?: string[] };
  if (deleted.android_devices?.length || deleted.apple_devices?.length) {
    log.info({ realm: realm.id, user: user.id, android: deleted.android_devices, apple: deleted.apple_devices }, 'deleting push tokens the push notification service no longer has');
    if (deleted.android_devices?.length) await doForgetDevices(shard, realm, user.id, 'gcm', deleted.android_devices);
    if (deleted.apple_devices?.length) await doForgetDevices(shard, realm, user.id, 'apns', deleted.apple_devices);
  }
  const status = res.realm as { can_push?: boolean; expected_end_timestamp?: number | null } | null | undefined;
  if (status && typeof status.can_push === 'boolean') await applyRealmPushStatus(shard, realm, status.can_push, status.expected_end_timestamp ?? null);
  log.info({ realm: realm.id, user: user.id, android: res.total_android_devices, apple: res.total_apple_devices }, 'sent mobile push notifications through the push notification service');
}

/** What a refusal or a failure of the service means for the job (see the file's comment). */
async function failed(run: JobRun<{ userId: number }>, realm: RealmState, err: unknown, what: string): Promise<void> {
  if (!(err instanceof BouncerError)) throw err;
  const where = { realm: realm.id, user: run.job.data.userId, job: run.job.key, status: err.status, code: err.code };
  if (err.failure === 'retry') {
    if (run.retry()) log.warn({ ...where, attempts: run.job.attempts + 1 }, `push notification service unavailable (${err.message}); ${what} will be retried`);
    else log.error({ ...where, attempts: run.job.attempts + 1 }, `push notification service unavailable (${err.message}); ${what} dropped after ${MAX_ATTEMPTS} attempts`);
    return;
  }
  if (err.failure === 'disallowed') {
    log.warn(where, `the push notification service refused to send push notifications: ${err.message}`);
    await applyRealmPushStatus(run.shard, realm, false, null);
    return;
  }
  if (err.failure === 'auth') {
    log.error(where, `the push notification service does not accept this server's registration (${err.message}); run \`stoa push register\` again. ${what} dropped`);
    return;
  }
  log.error(where, `the push notification service refused ${what}: ${err.message}`);
}

function deviceKinds(devices: DeviceRecord[]) {
  return { apple: devices.some((d) => d.kind === 'apns'), android: devices.some((d) => d.kind === 'gcm') };
}

defineJobKind<PushJob>('pushNotify', {
  maxAttempts: MAX_ATTEMPTS,
  backoff,
  async run(run) {
    const { shard, job, batch } = run;
    const reg = pushRegistration(shard);
    const realm = shard.realm(job.realmId);
    const user = realm?.users.get(job.data.userId);
    if (!reg || !realm || !user?.isActive || user.isBot) return;
    if (userSetting(user, 'enable_offline_push_notifications') !== true && userSetting(user, 'enable_online_push_notifications') !== true) return;
    const msg = getMessage(shard, realm, job.data.messageId);
    const sender = msg && realm.users.get(msg.senderId);
    // Read, deleted, or no longer readable since it was decided: nothing to say.
    if (!msg || !sender || !canAccessMessage(realm, user, msg) || flagBits(shard, realm, user.id, msg) & FLAG.read) return;
    const before = storedBits(shard, realm, user.id, msg.id);
    // Already shown, or its mention edited away before the job ran (the edit cleared no mark).
    if (before & ACTIVE_PUSH || (MENTION_TRIGGERS.has(job.data.trigger) && !(before & INDEXED_FLAGS.mentioned))) return;
    const devices = devicesOf(shard, realm, user.id);
    if (devices.length === 0) return;
    const group = smallestMentionedGroup(realm, [{ trigger: job.data.trigger, groupId: job.data.groupId }]);
    const payloads = messagePayloads(shard, realm, user, { msg, sender, trigger: job.data.trigger, group }, deviceKinds(devices));
    try {
      await post(shard, realm, user, reg, payloads, devices);
    } catch (err) {
      return failed(run, realm, err, 'the notification');
    }
    // Read, deleted, or its mention edited away while the request was out (the edit found no
    // mark to clear, triggers.ts afterContentEdit): the notification goes again at once.
    const stored = storedBits(shard, realm, user.id, msg.id);
    const mentionGone = MENTION_TRIGGERS.has(job.data.trigger) && !(stored & INDEXED_FLAGS.mentioned);
    if (!getMessage(shard, realm, msg.id) || flagBits(shard, realm, user.id, msg, stored) & FLAG.read || mentionGone) return scheduleRemoval(shard, batch, realm, user.id, [msg.id]);
    writeBits(shard, batch, realm, user.id, msg.id, stored, stored | ACTIVE_PUSH);
    await batch.commit();
    // A deletion whose transaction started while this one was in flight found no mark in the
    // committed rows (removals.ts): the removal is owed from here.
    if (!getMessage(shard, realm, msg.id)) {
      const again = shard.batch();
      scheduleRemoval(shard, again, realm, user.id, [msg.id]);
      await again.commit();
    }
  },
});

defineJobKind<RemoveJob>('pushRemove', {
  maxAttempts: MAX_ATTEMPTS,
  backoff,
  async run(run) {
    const { shard, job } = run;
    const reg = pushRegistration(shard);
    const realm = shard.realm(job.realmId);
    const user = realm?.users.get(job.data.userId);
    if (!reg || !realm || !user) return;
    const devices = devicesOf(shard, realm, user.id);
    if (devices.length === 0) return;
    try {
      await post(shard, realm, user, reg, removalPayloads(shard, realm, user, job.data.messageIds, deviceKinds(devices)), devices);
    } catch (err) {
      return failed(run, realm, err, 'the removal of notifications');
    }
  },
});
