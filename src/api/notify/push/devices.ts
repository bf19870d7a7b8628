import { pushConfig } from '../../../lib/config.js';
import { log } from '../../../lib/log.js';
import type { RealmState } from '../../../model/realm-state.js';
import type { DeviceRecord } from '../../../model/types.js';
import { defineJobKind, jobsOf } from '../../../shard/jobs.js';
import type { Shard } from '../../../shard/shard.js';
import type { WriteBatch } from '../../../store/shard-store.js';
import { BouncerError, sendToBouncer } from './bouncer.js';
import { pushRegistration, realmUuid, userUuid } from '../../../model/push-registration.js';

/**
 * The device tokens the apps register here (POST /users/me/apns_device_token and
 * /users/me/android_gcm_reg_id, api/devices/) are kept here and forwarded to the push
 * notification service, which alone can reach the phones (the reference's add_push_device_token
 * and remove_push_device_token, posting to `remotes/push/register` and `remotes/push/unregister`).
 * Each forwarding is a durable job written with the token's change, retried while the service
 * is unreachable; the app's request does not wait for the service.
 */
export interface DeviceJob {
  op: 'register' | 'unregister';
  userId: number;
  kind: DeviceRecord['kind'];
  token: string;
  appid: string | null;
}

/** The reference's PushDeviceToken kinds. */
const TOKEN_KIND = { apns: 1, gcm: 2 } as const;

/** Queues the forwarding of a token's registration or removal; nothing while the server is not registered. */
export function forwardDevice(shard: Shard, batch: WriteBatch, realm: RealmState, job: DeviceJob): void {
  if (pushRegistration(shard) === null) return;
  // Zero-padded: jobs due at the same moment run in key order, so a token's removal follows its registration.
  const n = String(shard.allocate(batch, 'pushDevice')).padStart(12, '0');
  jobsOf(shard).schedule<DeviceJob>(batch, { key: `pushDevice:${realm.id}:${n}`, kind: 'pushDevice', realmId: realm.id, due: Date.now(), data: job });
}

defineJobKind<DeviceJob>('pushDevice', {
  maxAttempts: 10,
  async run(run) {
    const { shard, job } = run;
    const reg = pushRegistration(shard);
    const realm = shard.realm(job.realmId);
    if (!reg || !realm) return;
    const d = job.data;
    const form: Record<string, string> = {
      server_uuid: reg.orgId,
      user_uuid: userUuid(reg, realm.id, d.userId),
      realm_uuid: realmUuid(reg, realm.id),
      // Sent as the reference sends it, so the service can replace registrations made by id.
      user_id: String(d.userId),
      token: d.token,
      token_kind: String(TOKEN_KIND[d.kind]),
    };
    if (d.op === 'register' && d.kind === 'apns' && d.appid) form.ios_app_id = d.appid;
    try {
      await sendToBouncer({ servicesUrl: pushConfig(shard.config).servicesUrl, credentials: { orgId: reg.orgId, orgKey: reg.orgKey }, method: 'POST', endpoint: d.op === 'register' ? 'push/register' : 'push/unregister', form });
      log.info({ realm: realm.id, user: d.userId, kind: d.kind, op: d.op }, 'push device forwarded to the push notification service');
    } catch (err) {
      if (!(err instanceof BouncerError)) throw err;
      const where = { realm: realm.id, user: d.userId, kind: d.kind, op: d.op, status: err.status, code: err.code };
      if (err.failure === 'retry' && run.retry()) log.warn(where, `push notification service unavailable (${err.message}); the device ${d.op} will be retried`);
      else if (err.failure === 'auth') log.error(where, `the push notification service does not accept this server's registration (${err.message}); run \`stoa push register\` again`);
      else log.error(where, `the push notification service refused the device ${d.op}: ${err.message}`);
    }
  },
});
