import { createHash, randomBytes } from 'node:crypto';
import type { Key, StoreView, WriteBatch } from './shard-store.js';

/**
 * Browser sessions of the web app, in the shard of their realm:
 *
 *   sessions  [realmId, userId, sha256(secret)] -> SessionRecord
 *
 * The cookie carries `<userId>.<secret>`; the store keeps only the secret's hash, so a copy of
 * the store (a backup) opens no session. Keyed by user, so that ending a user's sessions (a
 * password change, a deactivation) and sweeping the expired ones is one range read of that
 * user's rows, and a lookup is one get.
 */
export interface SessionRecord {
  userId: number;
  /** The CSRF token every cookie-authenticated write must send back (X-CSRFToken). */
  csrf: string;
  /** Seconds since the epoch. */
  created: number;
  expires: number;
}

/** The two secrets of a new session: the cookie's and the CSRF token. */
export function newSessionSecrets(): { secret: string; csrf: string } {
  return { secret: randomBytes(32).toString('base64url'), csrf: randomBytes(32).toString('base64url') };
}

const hash = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** `<userId>.<secret>` as the cookie holds it; null for anything else. */
export function parseSessionCookie(value: string): { userId: number; secret: string } | null {
  const m = /^(\d{1,10})\.([A-Za-z0-9_-]{43})$/.exec(value);
  return m ? { userId: Number(m[1]), secret: m[2] } : null;
}

export const sessionCookieValue = (userId: number, secret: string) => `${userId}.${secret}`;

const keyOf = (realmId: number, userId: number, secret: string): Key => [realmId, userId, hash(secret)];

/** The live session a cookie names, or undefined (unknown, revoked or expired). */
export function findSession(view: StoreView, realmId: number, userId: number, secret: string, nowSeconds: number): SessionRecord | undefined {
  const rec = view.read<SessionRecord>(view.store.sessions, keyOf(realmId, userId, secret));
  return rec && rec.expires > nowSeconds ? rec : undefined;
}

export function putSession(view: StoreView, batch: WriteBatch, realmId: number, secret: string, rec: SessionRecord): void {
  batch.put(view.store.sessions, keyOf(realmId, rec.userId, secret), rec);
}

export function deleteSession(view: StoreView, batch: WriteBatch, realmId: number, userId: number, secret: string): void {
  batch.del(view.store.sessions, keyOf(realmId, userId, secret));
}

/**
 * Deletes a user's sessions: all of them, or (`keep`) all but one, or (`expiredBefore`) only
 * those that have expired. Returns how many.
 */
export function deleteUserSessions(view: StoreView, batch: WriteBatch, realmId: number, userId: number, opts: { keep?: string; expiredBefore?: number } = {}): number {
  const kept = opts.keep === undefined ? null : hash(opts.keep);
  let n = 0;
  for (const { key, value } of view.store.sessions.getRange({ start: [realmId, userId], end: [realmId, userId + 1] })) {
    const k = key as [number, number, string];
    if (k[2] === kept) continue;
    if (opts.expiredBefore !== undefined && (value as SessionRecord).expires > opts.expiredBefore) continue;
    batch.del(view.store.sessions, k);
    n++;
  }
  return n;
}

/**
 * Deletes the expired sessions of a realm, at most `limit` of them: the sweep's work
 * (api/sessions/sweep.ts). Returns how many it deleted, and whether live ones remain (or more
 * expired ones than the limit), so that the sweep knows to come back.
 */
export function deleteExpiredSessions(view: StoreView, batch: WriteBatch, realmId: number, nowSeconds: number, limit: number): { deleted: number; more: boolean } {
  let deleted = 0;
  let more = false;
  for (const { key, value } of view.store.sessions.getRange({ start: [realmId], end: [realmId + 1] })) {
    if ((value as SessionRecord).expires > nowSeconds) {
      more = true;
      continue;
    }
    if (deleted === limit) return { deleted, more: true };
    batch.del(view.store.sessions, key as Key);
    deleted++;
  }
  return { deleted, more };
}
