import { pushConfig } from '../../../lib/config.js';
import { ApiError } from '../../../lib/errors.js';
import type { RealmState } from '../../../model/realm-state.js';
import type { DeviceRecord, UserRecord } from '../../../model/types.js';
import type { Shard } from '../../../shard/shard.js';
import { BouncerError, sendToBouncer } from './bouncer.js';
import { pushRegistration, realmUuid, userUuid } from '../../../model/push-registration.js';

/**
 * POST /mobile_push/test_notification once the server is registered: the reference's
 * send_test_push_notification, one `remotes/push/test_notification` request per device, with
 * the base payload the service builds its test notification from. Answered at once, as the
 * reference answers: the person is testing their setup.
 */
const TOKEN_KIND = { apns: 1, gcm: 2 } as const;

/** Whether the server is registered (else the test notification is dropped, as without a service). */
export function pushConfigured(shard: Shard): boolean {
  return pushRegistration(shard) !== null;
}

export async function sendTestNotification(shard: Shard, realm: RealmState, user: UserRecord, devices: DeviceRecord[]): Promise<void> {
  const reg = pushRegistration(shard);
  if (!reg) return;
  const basePayload = { server: shard.config.externalHost, realm_id: realm.id, realm_uri: realm.url, realm_url: realm.url, realm_name: realm.realm.name, user_id: user.id };
  for (const device of devices) {
    try {
      await sendToBouncer({
        servicesUrl: pushConfig(shard.config).servicesUrl,
        credentials: { orgId: reg.orgId, orgKey: reg.orgKey },
        method: 'POST',
        endpoint: 'push/test_notification',
        json: { realm_uuid: realmUuid(reg, realm.id), user_uuid: userUuid(reg, realm.id, user.id), user_id: user.id, token: device.token, token_kind: TOKEN_KIND[device.kind], base_payload: basePayload },
      });
    } catch (err) {
      if (!(err instanceof BouncerError)) throw err;
      if (err.code === 'INVALID_REMOTE_PUSH_DEVICE_TOKEN') throw new ApiError('Device not recognized by the push bouncer', { code: 'INVALID_REMOTE_PUSH_DEVICE_TOKEN' });
      if (err.failure === 'retry' || err.failure === 'auth') throw new ApiError(err.message, { status: 502 });
      throw new ApiError(err.message);
    }
  }
}
