import type { RealmState } from '../../model/realm-state.js';
import { realmSetting } from '../../model/realm-settings.js';
import type { Shard } from '../../shard/shard.js';
import { queuesOf } from '../events/manager.js';
import { OFFLINE_THRESHOLD_SECS } from '../presence/presence.js';
import { presenceOf } from '../presence/state.js';

/**
 * Whether a user is away, as the reference decides it when a message arrives (event_queue.py
 * receiver_is_off_zulip, message_send.py filter_presence_idle_user_ids): no event queue that
 * receives messages (they closed every client, or it was garbage-collected), or no client
 * reporting them active within the offline threshold (a desktop left open for days does not
 * count as being there). A client that vanished without closing its queue is covered later,
 * when that queue expires (gc.ts).
 */
export function receiverIsOffZulip(shard: Shard, realm: RealmState, userId: number): boolean {
  for (const queue of queuesOf(shard).userQueues(realm.id, userId)) if (queue.wants('message')) return false;
  return true;
}

export function presenceIdle(shard: Shard, realm: RealmState, userId: number, now = Date.now() / 1000): boolean {
  // Where presence is off, nobody is idle by it: only closing every client counts (as the reference).
  if (realmSetting(realm, 'presence_disabled') === true) return false;
  const record = presenceOf(shard).realm(realm.id).records.get(userId);
  return !record || record.lastActive === null || now - record.lastActive > OFFLINE_THRESHOLD_SECS;
}

export function isIdle(shard: Shard, realm: RealmState, userId: number): boolean {
  return receiverIsOffZulip(shard, realm, userId) || presenceIdle(shard, realm, userId);
}
