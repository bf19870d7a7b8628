import type { RealmState } from '../../model/realm-state.js';
import { ROLE, type UserRecord } from '../../model/types.js';
import type { ShardEvent } from '../../shard/events.js';

/** The organization's administrators who are people: who sees data exports and consents. */
export const humanAdminIds = (realm: RealmState): number[] =>
  [...realm.activeUsers()].filter((u) => !u.isBot && u.role <= ROLE.administrator).map((u) => u.id);

/**
 * realm_export_consent (feature level 312), with the users (data exports, above them, read who
 * the administrators are here): administrators learn a user's consent to the export
 * of their private data when it changes, and when the user is created or reactivated, since the
 * user events carry no settings.
 */
export function exportConsentEvent(realm: RealmState, user: UserRecord, consented: boolean): { event: ShardEvent; userIds: number[] } {
  return { event: { type: 'realm_export_consent', user_id: user.id, consented }, userIds: humanAdminIds(realm) };
}
