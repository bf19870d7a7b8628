import { createHmac } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * This server's registration with the push notification service (the reference's
 * zulip_org_id / zulip_org_key secrets and its RemoteRealm data), written by `stoa push
 * register` (cli/push.ts) to `<dataDir>/push-registration.json` (mode 0600). Push notifications
 * stay off while there is none.
 *
 * The CLI runs beside a running server, so the shards read the file, not a store the server
 * owns; each shard looks at it again when it has changed (checked at most every CHECK_MS).
 * Server-wide, below the shard rather than with the notifications (api/notify/push/) that use
 * it most: /server_settings and the CLI read it too. It asks a shard for its data directory only,
 * so the rule stays in the model, which knows nothing of shards.
 *
 * The service knows organizations and people by UUID only. Theirs are derived from a secret of
 * the registration (HMAC, laid out as version-4 UUIDs), so nothing needs storing per realm or
 * user and they stay the same for as long as the registration does.
 */
export interface PushRegistration {
  /** zulip_org_id: a UUID the server made. */
  orgId: string;
  /** zulip_org_key: 64 characters, the server's password at the service. */
  orgKey: string;
  /** Derives the organizations' and people's UUIDs. */
  secret: string;
  /** Where it was registered (the servicesUrl of the config then). */
  servicesUrl: string;
  hostname: string;
  contactEmail: string;
  /** Seconds. */
  registeredAt: number;
  /** What the service said of each organization, by its UUID, when the CLI sent the server's data. */
  realms?: Record<string, { can_push: boolean; expected_end_timestamp: number | null }>;
}

export const REGISTRATION_FILE = 'push-registration.json';
const CHECK_MS = 2000;

export function registrationPath(dataDir: string): string {
  return join(dataDir, REGISTRATION_FILE);
}

export function readRegistration(dataDir: string): PushRegistration | null {
  let text: string;
  try {
    text = readFileSync(registrationPath(dataDir), 'utf8');
  } catch {
    return null;
  }
  const parsed = JSON.parse(text) as PushRegistration;
  return parsed.orgId && parsed.orgKey && parsed.secret ? parsed : null;
}

/** Written whole or not at all: a temporary file, fsynced, renamed into place. */
export function writeRegistration(dataDir: string, registration: PushRegistration): void {
  const path = registrationPath(dataDir);
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(registration, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

interface Cached {
  checkedAt: number;
  mtimeMs: number;
  value: PushRegistration | null;
}
/** What a reader of the registration needs of its shard (the cache is kept per shard). */
type Shard = { readonly config: { readonly dataDir: string } };
const cache = new WeakMap<Shard, Cached>();

/** The registration as the file has it now (re-read when it changed), or null. */
export function pushRegistration(shard: Shard): PushRegistration | null {
  const now = Date.now();
  const cached = cache.get(shard);
  if (cached && now - cached.checkedAt < CHECK_MS) return cached.value;
  let mtimeMs = 0;
  try {
    mtimeMs = statSync(registrationPath(shard.config.dataDir)).mtimeMs;
  } catch {
    mtimeMs = 0;
  }
  if (cached && cached.mtimeMs === mtimeMs) {
    cached.checkedAt = now;
    return cached.value;
  }
  let value: PushRegistration | null = null;
  try {
    value = mtimeMs === 0 ? null : readRegistration(shard.config.dataDir);
  } catch {
    value = cached?.value ?? null;
  }
  cache.set(shard, { checkedAt: now, mtimeMs, value });
  return value;
}

/** Forgets what was read, so the next look reads the file (tests, after the CLI wrote it). */
export function forgetRegistration(shard: Shard): void {
  cache.delete(shard);
}

function derivedUuid(secret: string, label: string): string {
  const bytes = createHmac('sha256', secret).update(label).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function realmUuid(registration: PushRegistration, realmId: number): string {
  return derivedUuid(registration.secret, `realm:${realmId}`);
}

/** The realm's uuid_owner_secret: proves ownership of the organization at the service's billing pages. */
export function realmOwnerSecret(registration: PushRegistration, realmId: number): string {
  return `zuliprealm_${createHmac('sha256', registration.secret).update(`owner:${realmId}`).digest('hex').slice(0, 32)}`;
}

export function userUuid(registration: PushRegistration, realmId: number, userId: number): string {
  return derivedUuid(registration.secret, `user:${realmId}:${userId}`);
}
