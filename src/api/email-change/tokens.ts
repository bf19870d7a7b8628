import { LINK_TOKEN_FORMAT, linkTokenDigest, newLinkToken } from '../../lib/link-token.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';

/**
 * The links that confirm an address change (the reference's EmailChangeStatus with its
 * Confirmation row): a random token mailed to the new address, whose SHA-256 alone is stored.
 *
 *   emailChanges  [realmId, sha256(token) hex]  -> EmailChangeRecord
 *
 * A row stays after its link is used or replaced, marked so, as the reference keeps its rows:
 * that is how a link opened again can say "used or deactivated" rather than "not found". Rows
 * are swept RETAIN_SECONDS after they expire, when the realm's next link is made.
 */
export interface EmailChangeRecord {
  userId: number;
  /** The account's address when the change was asked for: the link works only while it is still the address. */
  oldEmail: string;
  newEmail: string;
  /** Seconds since the epoch. */
  createdAt: number;
  expiresAt: number;
  /** The reference's confirmation statuses: waiting, used (STATUS_USED) or replaced by a newer request (STATUS_REVOKED). */
  status: 'pending' | 'used' | 'revoked';
}

/** The reference's CONFIRMATION_LINK_DEFAULT_VALIDITY_DAYS: a link works for a day. */
export const EMAIL_CHANGE_VALIDITY_SECONDS = 24 * 60 * 60;
const RETAIN_SECONDS = 30 * 24 * 60 * 60;

export const nowSeconds = () => Math.floor(Date.now() / 1000);

export function confirmLink(realm: RealmState, token: string): string {
  return `${realm.url}/accounts/confirm_new_email/${token}`;
}

function realmRows(shard: Shard, realm: RealmState): { key: [number, string]; value: EmailChangeRecord }[] {
  return [...shard.store.emailChanges.getRange({ start: [realm.id], end: [realm.id + 1] })].map(({ key, value }) => ({ key: key as [number, string], value: value as EmailChangeRecord }));
}

/**
 * A new link for `user`'s change to `newEmail`, written before it is mailed, as the reference's
 * do_start_email_change_process: the user's earlier requests still waiting are revoked, and rows
 * long expired are swept.
 */
export async function createEmailChange(shard: Shard, realm: RealmState, user: UserRecord, newEmail: string): Promise<{ token: string; record: EmailChangeRecord }> {
  const token = newLinkToken();
  const createdAt = nowSeconds();
  const record: EmailChangeRecord = { userId: user.id, oldEmail: user.email, newEmail, createdAt, expiresAt: createdAt + EMAIL_CHANGE_VALIDITY_SECONDS, status: 'pending' };
  const batch = shard.batch();
  for (const { key, value } of realmRows(shard, realm)) {
    if (value.expiresAt + RETAIN_SECONDS <= createdAt) batch.del(shard.store.emailChanges, key);
    else if (value.userId === user.id && value.status === 'pending') batch.put(shard.store.emailChanges, key, { ...value, status: 'revoked' });
  }
  batch.put(shard.store.emailChanges, [realm.id, linkTokenDigest(token)], record);
  await batch.commit();
  return { token, record };
}

/** Why a link does not work, in the reference's ConfirmationKeyError terms. */
export type LinkProblem = 'malformed' | 'missing' | 'expired';

export type Lookup = { ok: true; record: EmailChangeRecord; user: UserRecord } | { ok: false; problem: LinkProblem };

/**
 * The change a link confirms, as the reference's get_object_from_key finds it: malformed, not
 * found, or "expired or deactivated" (past its time, used, revoked, or the account's address is
 * no longer the one it was asked from). Opening it changes nothing.
 */
export function lookupEmailChange(shard: Shard, realm: RealmState, token: string): Lookup {
  if (!LINK_TOKEN_FORMAT.test(token)) return { ok: false, problem: 'malformed' };
  const record = shard.read<EmailChangeRecord>(shard.store.emailChanges, [realm.id, linkTokenDigest(token)]);
  const user = record && realm.users.get(record.userId);
  if (!record || !user) return { ok: false, problem: 'missing' };
  if (record.status !== 'pending' || record.expiresAt <= nowSeconds() || user.email !== record.oldEmail) return { ok: false, problem: 'expired' };
  return { ok: true, record, user };
}

/** Marks a link used, on the batch of the change it confirms. */
export function markUsed(shard: Shard, batch: WriteBatch, realm: RealmState, token: string, record: EmailChangeRecord): void {
  batch.put(shard.store.emailChanges, [realm.id, linkTokenDigest(token)], { ...record, status: 'used' });
}
