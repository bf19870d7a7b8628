import { createHash, randomBytes } from 'node:crypto';
import { hashPassword } from '../../lib/auth.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { limiterOf, attemptKey } from '../server/fetch-api-key.js';
import { saveUser } from '../users/actions.js';

/**
 * Password reset links: a random token, mailed (or printed by `stoa user reset-password`), whose
 * SHA-256 alone is stored, so that the store, a backup or a log of it holds nothing that works
 * as a link. A link works once, until it expires (passwordResetValidityMinutes); using it
 * removes every other link of the same account, and clears the account's failed-login limit.
 *
 *   passwordResets  [realmId, sha256(token) hex]  -> PasswordResetRecord
 */
export interface PasswordResetRecord {
  userId: number;
  /** The address the link was sent to: a link stops working if the account's address changes. */
  email: string;
  /** Seconds since the epoch. */
  createdAt: number;
  expiresAt: number;
}

export const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

const digest = (token: string) => createHash('sha256').update(token).digest('hex');
const now = () => Math.floor(Date.now() / 1000);

export function resetLink(realm: RealmState, token: string): string {
  return `${realm.url}/accounts/password/reset/${token}/`;
}

/** A new link for an account, written before it is handed out. Expired links of the realm are swept meanwhile. */
export async function createResetToken(shard: Shard, realm: RealmState, user: UserRecord): Promise<{ token: string; expiresAt: number }> {
  const token = randomBytes(32).toString('base64url');
  const createdAt = now();
  const record: PasswordResetRecord = { userId: user.id, email: user.email, createdAt, expiresAt: createdAt + shard.config.passwordResetValidityMinutes * 60 };
  const batch = shard.batch();
  for (const { key, value } of shard.store.passwordResets.getRange({ start: [realm.id], end: [realm.id + 1] })) {
    if ((value as PasswordResetRecord).expiresAt <= createdAt) batch.del(shard.store.passwordResets, key as [number, string]);
  }
  batch.put(shard.store.passwordResets, [realm.id, digest(token)], record);
  await batch.commit();
  return { token, expiresAt: record.expiresAt };
}

/** The account a link resets, or null when it is unknown, used, expired, or its account changed. */
export function lookupResetToken(shard: Shard, realm: RealmState, token: string): UserRecord | null {
  if (!TOKEN_FORMAT.test(token) || realm.realm.deactivated) return null;
  const record = shard.read<PasswordResetRecord>(shard.store.passwordResets, [realm.id, digest(token)]);
  if (!record || record.expiresAt <= now()) return null;
  const user = realm.users.get(record.userId);
  if (!user || !user.isActive || user.isBot || user.email.toLowerCase() !== record.email.toLowerCase()) return null;
  return user;
}

/**
 * Sets the new password and uses the link up, in one transaction with the removal of the
 * account's other links. Checked again after the hash (which yields the thread): a second use
 * of the same link in those milliseconds finds it gone.
 */
export async function doResetPassword(shard: Shard, realm: RealmState, token: string, password: string): Promise<UserRecord | null> {
  if (!lookupResetToken(shard, realm, token)) return null;
  const hash = await hashPassword(password);
  const user = lookupResetToken(shard, realm, token);
  if (!user) return null;
  const batch = shard.batch();
  for (const { key, value } of shard.store.passwordResets.getRange({ start: [realm.id], end: [realm.id + 1] })) {
    if ((value as PasswordResetRecord).userId === user.id) batch.del(shard.store.passwordResets, key as [number, string]);
  }
  // The one being used, even if a concurrent write has not reached the store yet.
  batch.del(shard.store.passwordResets, [realm.id, digest(token)]);
  user.passwordHash = hash;
  saveUser(shard, batch, realm, user);
  await batch.commit();
  limiterOf(shard).clear(attemptKey(realm.id, user.email));
  return user;
}
