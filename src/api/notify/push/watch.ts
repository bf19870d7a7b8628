import { log } from '../../../lib/log.js';
import type { Shard } from '../../../shard/shard.js';
import type { DeviceRecord } from '../../../model/types.js';
import { forwardDevice } from './devices.js';
import { applyRealmPushStatus } from './realm-status.js';
import { pushRegistration, realmUuid } from '../../../model/push-registration.js';

/**
 * Follows the registration file (`stoa push register` writes it while the server runs): when it
 * appears, changes or goes, each organization's realm_push_notifications_enabled follows what the
 * service said of it, and a new registration gets the devices registered before it forwarded.
 */
const CHECK_MS = 3_000;

export function watchRegistration(shard: Shard): void {
  const check = () => {
    applyRegistration(shard).catch((err) => log.error({ err, shard: shard.index }, 'applying the push registration failed'));
    shard.wheel.schedule(Date.now() + CHECK_MS, check);
  };
  check();
}

/** The registration last applied, as `orgId:registeredAt` (or '' for none), kept in the notify table. */
const APPLIED = ['pushApplied'];

async function applyRegistration(shard: Shard): Promise<void> {
  const reg = pushRegistration(shard);
  const marker = reg ? `${reg.orgId}:${reg.registeredAt}` : '';
  const applied = shard.read<string>(shard.store.notify, APPLIED) ?? '';
  if (marker === applied) return;
  const batch = shard.batch();
  batch.put(shard.store.notify, APPLIED, marker);
  if (reg && applied.split(':')[0] !== reg.orgId) forwardAll(shard, batch);
  await batch.commit();
  for (const realm of shard.realms.values()) {
    const status = reg?.realms?.[realmUuid(reg, realm.id)];
    // A realm the service has not heard of yet pushes at the server's level: on, until it says otherwise.
    await applyRealmPushStatus(shard, realm, reg !== null && (status?.can_push ?? true), status?.expected_end_timestamp ?? null);
  }
  log.info({ shard: shard.index, registered: reg !== null }, reg ? 'push notifications registered with the push notification service' : 'push notifications are off: this server is not registered');
}

/** Devices registered before the server was: their tokens go to the service now. */
function forwardAll(shard: Shard, batch: ReturnType<Shard['batch']>): void {
  for (const realm of shard.realms.values()) {
    for (const { value } of shard.store.devices.getRange({ start: [realm.id], end: [realm.id + 1] })) {
      const d = value as DeviceRecord;
      if (realm.users.get(d.userId)?.isActive) forwardDevice(shard, batch, realm, { op: 'register', userId: d.userId, kind: d.kind, token: d.token, appid: d.appid });
    }
  }
}
