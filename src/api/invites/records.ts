import type { InviteRecord } from '../../model/invite.js';
import type { RealmState } from '../../model/realm-state.js';
import { ROLE } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';

/**
 * Invitations live in LMDB only (store/shard-store.ts: `invites`, `inviteKeys`): they are read
 * when someone lists, revokes or follows one, never on a hot path, so the shard keeps none in
 * memory. Reads by key go through shard.read, which sees writes not yet committed.
 */

export function inviteById(shard: Shard, realm: RealmState, id: number): InviteRecord | undefined {
  return shard.read<InviteRecord>(shard.store.invites, [realm.id, id]);
}

export function inviteByKey(shard: Shard, realm: RealmState, key: string): InviteRecord | undefined {
  const id = shard.read<number>(shard.store.inviteKeys, [realm.id, key]);
  return id === undefined ? undefined : inviteById(shard, realm, id);
}

/** Every invitation of the realm, oldest first (one range read). */
export function realmInvites(shard: Shard, realm: RealmState): InviteRecord[] {
  const out: InviteRecord[] = [];
  for (const { key } of shard.store.invites.getRange({ start: [realm.id], end: [realm.id + 1] })) {
    // Through the pending writes, so that a change not yet committed is seen as it will be.
    const invite = inviteById(shard, realm, (key as number[])[1]);
    if (invite) out.push(invite);
  }
  return out;
}

export function putInvite(shard: Shard, batch: WriteBatch, invite: InviteRecord): void {
  batch.put(shard.store.invites, [invite.realmId, invite.id], invite);
}

export function putInviteKey(shard: Shard, batch: WriteBatch, invite: InviteRecord): void {
  batch.put(shard.store.inviteKeys, [invite.realmId, invite.key], invite.id);
}

/**
 * invites_changed tells clients showing invitations to fetch GET /invites again. The reference
 * sends it to the realm's administrators (bots included) and to the changed invitation's creator.
 */
export function emitInvitesChanged(batch: WriteBatch, realm: RealmState, inviterIds: Iterable<number>): void {
  const ids = new Set<number>();
  for (const user of realm.activeUsers()) if (user.role <= ROLE.administrator) ids.add(user.id);
  for (const id of inviterIds) if (realm.users.get(id)?.isActive) ids.add(id);
  batch.emit(realm.id, { type: 'invites_changed' }, ids);
}
