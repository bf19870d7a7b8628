import { createHash } from 'node:crypto';
import { badRequest, missingArgument } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { DeviceRecord, UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { forwardDevice } from '../notify/push/devices.js';

/**
 * Push device tokens (the reference's PushDeviceToken), stored per user under
 * [realmId, userId, kind, token]: a user reaches only their own tokens, so removing a token
 * another user registered is "Token does not exist", as for a token never registered.
 */
export type DeviceKind = DeviceRecord['kind'];

const MAX_TOKEN_LENGTH = 4096;
// An APNs device token is the hex encoding of its bytes.
const HEX = /^(?:[0-9a-fA-F]{2})+$/;
// The reference's check on app ids, "as insurance against bugs somewhere".
const APP_ID = /^[.a-zA-Z0-9-]+$/;

export function checkHuman(user: UserRecord): void {
  if (user.isBot) throw badRequest('This endpoint does not accept bot requests.');
}

/**
 * The reference checks a token's presence when it parses parameters, and its size and form
 * after the app id; callers keep that order.
 */
export function requireToken(token: string | undefined): string {
  if (token === undefined) throw missingArgument('token');
  return token;
}

export function validateToken(token: string, kind: DeviceKind): void {
  if (token === '' || token.length > MAX_TOKEN_LENGTH) throw badRequest('Empty or invalid length token');
  if (kind === 'apns' && !HEX.test(token)) throw badRequest('Invalid APNS token');
}

/** appid is required since feature level 223. */
export function checkAppId(appid: string | undefined): string {
  if (appid === undefined) throw missingArgument('appid');
  if (!APP_ID.test(appid)) throw badRequest('Invalid app ID');
  return appid;
}

// LMDB keys are limited to about 1,900 bytes and tokens may have 4,096 characters: a long
// token is keyed by its digest (the record keeps the token). Real tokens (64 hex digits for
// APNs, about 160 characters for FCM) are keyed as they are; '#' keeps the two forms apart.
const MAX_KEYED_TOKEN = 512;

function tokenKey(token: string): string {
  if (token.length <= MAX_KEYED_TOKEN && !token.startsWith('#')) return token;
  return `#sha256:${createHash('sha256').update(token).digest('hex')}`;
}

const deviceKey = (realm: RealmState, userId: number, kind: DeviceKind, token: string) => [realm.id, userId, kind, tokenKey(token)];

/** Registers a token; registering it again only refreshes its timestamp. */
export async function doAddDevice(shard: Shard, realm: RealmState, user: UserRecord, kind: DeviceKind, token: string, appid: string | null): Promise<void> {
  const key = deviceKey(realm, user.id, kind, token);
  const now = Math.floor(Date.now() / 1000);
  const existing = shard.store.devices.get(key) as DeviceRecord | undefined;
  const record: DeviceRecord = existing
    ? { ...existing, lastUpdated: now }
    : { userId: user.id, kind, token, appid, dateCreated: now, lastUpdated: now };
  const batch = shard.batch();
  batch.put(shard.store.devices, key, record);
  // Forwarded to the push notification service once the server is registered (api/notify/push/).
  forwardDevice(shard, batch, realm, { op: 'register', userId: user.id, kind, token, appid });
  await batch.commit();
}

export async function doRemoveDevice(shard: Shard, realm: RealmState, user: UserRecord, kind: DeviceKind, token: string): Promise<void> {
  const key = deviceKey(realm, user.id, kind, token);
  if (shard.store.devices.get(key) === undefined) throw badRequest('Token does not exist');
  const batch = shard.batch();
  batch.del(shard.store.devices, key);
  forwardDevice(shard, batch, realm, { op: 'unregister', userId: user.id, kind, token, appid: null });
  await batch.commit();
}

/**
 * Drops tokens the push notification service says it no longer has (its `deleted_devices`,
 * api/notify/push/notify.ts): the device unregistered or the app was removed.
 */
export async function doForgetDevices(shard: Shard, realm: RealmState, userId: number, kind: DeviceKind, tokens: string[]): Promise<void> {
  const batch = shard.batch();
  for (const token of tokens) {
    const key = deviceKey(realm, userId, kind, token);
    if (shard.store.devices.get(key) !== undefined) batch.del(shard.store.devices, key);
  }
  await batch.commit();
}

/** The user's registered devices, for push delivery. */
export function devicesOf(shard: Shard, realm: RealmState, userId: number): DeviceRecord[] {
  const range = shard.store.devices.getRange({ start: [realm.id, userId], end: [realm.id, userId + 1] });
  return [...range].map(({ value }) => value as DeviceRecord);
}
