import type { RealmState } from './realm-state.js';
import { ROLE, type UserRecord } from './types.js';

/**
 * The realm's default channels as clients are told them (realm_default_streams in /register and
 * the default_streams event): here, below the API, because /register, the default channel
 * endpoints and a role change (a guest sees none) all tell them.
 */

/** The ids of the default channels that are not archived, in order. */
export function liveDefaultStreamIds(realm: RealmState): number[] {
  return [...realm.defaultStreamIds].filter((id) => realm.streams.get(id)?.isArchived === false).sort((a, b) => a - b);
}

/** What one user is told: guests, who cannot see them all, get none, as in the reference. */
export function defaultStreamIds(realm: RealmState, self: UserRecord): number[] {
  return self.role === ROLE.guest ? [] : liveDefaultStreamIds(realm);
}
