import { badRequest } from '../../lib/errors.js';
import { setFlag } from '../../model/read-state.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { settleReadMark } from '../messages/flags-actions.js';
import { collect } from '../messages/narrow-fetch.js';
import { planNarrow } from '../messages/narrow-plan.js';
import { me, operation } from '../../api-kit/operation.js';
import { accessUserById } from '../users/access.js';

/**
 * Muted users (POST and DELETE /users/me/muted_users/{muted_user_id}), after the reference's
 * do_mute_user and do_unmute_user. Any user the muter can access may be muted, bots, deactivated
 * users and the Notification Bot included. Muting marks the muter's unread messages from that
 * user read (update_message_flags), and from then on that user's new messages reach the muter
 * already read (messages/send.ts asks RealmState.people.mutersOf). Both send the muter the
 * whole list as a `muted_users` event.
 */
export function mutedUsersView(realm: RealmState, userId: number): { id: number; timestamp: number }[] {
  return [...realm.people.mutesOf(userId)]
    .map(([id, timestamp]) => ({ id, timestamp }))
    .sort((a, b) => a.timestamp - b.timestamp || a.id - b.id);
}

function mutable(ctx: { shard: Shard; realm: RealmState }, actor: UserRecord, id: number): UserRecord {
  return accessUserById(ctx.shard, ctx.realm, actor, id, { forAdmin: false, allowBots: true, allowDeactivated: true, includeSystemBots: true });
}

const mute = operation<{ muted_user_id: number }>({
  auth: 'user',
  params: { properties: { muted_user_id: { type: 'integer' } }, required: ['muted_user_id'] },
  handler: async (ctx) => {
    const user = me(ctx);
    if (ctx.params.muted_user_id === user.id) throw badRequest('Cannot mute self');
    const target = mutable(ctx, user, ctx.params.muted_user_id);
    if (ctx.realm.people.mutesOf(user.id).has(target.id)) throw badRequest('User already muted');
    await doMuteUser(ctx.shard, ctx.realm, user, target);
    return {};
  },
});

const unmute = operation<{ muted_user_id: number }>({
  auth: 'user',
  params: { properties: { muted_user_id: { type: 'integer' } }, required: ['muted_user_id'] },
  handler: async (ctx) => {
    const user = me(ctx);
    const target = mutable(ctx, user, ctx.params.muted_user_id);
    if (!ctx.realm.people.mutesOf(user.id).has(target.id)) throw badRequest('User is not muted');
    const { shard, realm } = ctx;
    realm.people.setMute(user.id, target.id, null);
    const batch = shard.batch();
    batch.del(shard.store.mutedUsers, [realm.id, user.id, target.id]);
    batch.emit(realm.id, { type: 'muted_users', muted_users: mutedUsersView(realm, user.id) }, [user.id]);
    await batch.commit();
    return {};
  },
});

export async function doMuteUser(shard: Shard, realm: RealmState, user: UserRecord, target: UserRecord): Promise<void> {
  // The muter's unread messages from the muted user: the unread narrow of that sender.
  const plan = planNarrow(shard, realm, user, [
    { operator: 'sender', operand: target.id, negated: false },
    { operator: 'is', operand: 'unread', negated: false },
  ]);
  const unread = await collect(shard, realm, plan, { min: 0, max: Number.MAX_SAFE_INTEGER, reverse: false, limit: Infinity }, user);
  // The scan runs in slices and lets other requests in: the same mute may have landed meanwhile.
  if (realm.people.mutesOf(user.id).has(target.id)) throw badRequest('User already muted');
  realm.people.setMute(user.id, target.id, Math.floor(Date.now() / 1000));
  const batch = shard.batch();
  batch.put(shard.store.mutedUsers, [realm.id, user.id, target.id], realm.people.mutesOf(user.id).get(target.id));
  const read = unread.filter((msg) => setFlag(shard, batch, realm, user.id, msg, 'read', true));
  if (read.length > 0) {
    settleReadMark(shard, batch, realm, user.id);
    batch.emit(realm.id, { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: read.map((m) => m.id), all: false }, [user.id]);
  }
  batch.emit(realm.id, { type: 'muted_users', muted_users: mutedUsersView(realm, user.id) }, [user.id]);
  await batch.commit();
}

/** `muted_users` of /register. */
export function mutedUsersSection(realm: RealmState, user: UserRecord): { id: number; timestamp: number }[] {
  return mutedUsersView(realm, user.id);
}

export const operations = {
  'muting.mute': mute,
  'muting.unmute': unmute,
};
