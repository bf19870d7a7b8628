import type { RealmState } from '../../model/realm-state.js';
import { ROLE, type UserRecord } from '../../model/types.js';
import { accessibleUserIds, realmRestrictsGuests } from '../../model/user-access.js';
import type { ShardEvent } from '../../shard/events.js';
import type { Shard } from '../../shard/shard.js';
import { UNKNOWN_USER_NAME, userView } from './views.js';

type Send = (event: ShardEvent, userIds: number[]) => void;

/** A person as realm_user add carries it; each queue's client_gravatar is applied when shaped. */
export function personForEvent(user: UserRecord): Record<string, unknown> {
  return userView(user, { clientGravatar: false, includeProfileData: true });
}

/**
 * What some guests can access before an action, so that afterwards each is told the users they
 * gained (realm_user add, with the full person) and lost (realm_user remove, as the reference
 * sends it since feature level 228). Take it before the action changes state; call `send` after.
 *
 * Only guests can be restricted, so only guests are watched; where the realm restricts nobody
 * (and the action does not change that) there is nothing to do.
 */
export class AccessWatch {
  private readonly before = new Map<number, Set<number> | null>();

  private constructor(
    private readonly shard: Shard,
    private readonly realm: RealmState,
    guests: Iterable<UserRecord>,
  ) {
    for (const guest of guests) {
      if (!this.before.has(guest.id)) this.before.set(guest.id, accessibleUserIds(shard, realm, guest));
    }
  }

  /** Watches the guests among `users` (deduplicated), if the realm restricts guests. */
  static of(shard: Shard, realm: RealmState, users: Iterable<UserRecord>): AccessWatch | null {
    if (!realmRestrictsGuests(realm)) return null;
    return new AccessWatch(shard, realm, [...users].filter((u) => u.role === ROLE.guest && u.isActive));
  }

  /** A user whose role is about to change, into or out of guest. */
  static forRoleChange(shard: Shard, realm: RealmState, user: UserRecord): AccessWatch | null {
    return realmRestrictsGuests(realm) && user.isActive ? new AccessWatch(shard, realm, [user]) : null;
  }

  /** Every guest, before can_access_all_users_group changes. */
  static forSettingChange(shard: Shard, realm: RealmState): AccessWatch {
    return new AccessWatch(shard, realm, [...realm.activeUsers()].filter((u) => u.role === ROLE.guest));
  }

  /** Watches the users changing and the guests subscribed to the channels changing. */
  static forSubscriptions(shard: Shard, realm: RealmState, users: UserRecord[], streamIds: Iterable<number>): AccessWatch | null {
    if (!realmRestrictsGuests(realm)) return null;
    const involved: UserRecord[] = [...users];
    for (const streamId of streamIds) {
      for (const id of realm.subscriberIds(streamId)) {
        const user = realm.users.get(id);
        if (user?.role === ROLE.guest) involved.push(user);
      }
    }
    return AccessWatch.of(shard, realm, involved);
  }

  /** Sends each watched guest the changes in what they can access. */
  send(send: Send): void {
    for (const [guestId, before] of this.before) {
      const guest = this.realm.users.get(guestId);
      if (!guest?.isActive) continue;
      const after = guest.role === ROLE.guest ? accessibleUserIds(this.shard, this.realm, guest) : null;
      const has = (ids: Set<number> | null, user: UserRecord) => user.isBot || ids === null || ids.has(user.id);
      // Between two limited views only their difference can change; a view of everyone means
      // looking at everyone (a role or realm-setting change).
      const candidates = before !== null && after !== null ? [...new Set([...before, ...after])].flatMap((id) => this.realm.users.get(id) ?? []) : [...this.realm.users.values()];
      for (const user of candidates.sort((a, b) => a.id - b.id)) {
        const had = has(before, user);
        const hasNow = has(after, user);
        if (had === hasNow) continue;
        send(hasNow ? { type: 'realm_user', op: 'add', person: personForEvent(user) } : { type: 'realm_user', op: 'remove', person: { user_id: user.id, full_name: UNKNOWN_USER_NAME } }, [guestId]);
      }
    }
  }
}
