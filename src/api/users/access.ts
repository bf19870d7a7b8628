import { badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import { ROLE, type UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { canAccessUser } from '../../model/user-access.js';

/**
 * Finding the user a request names, with the reference's errors. Lookups only ever search the
 * requester's realm, so a user of another realm is "No such user" like one that never existed.
 */
export const noSuchUser = () => badRequest('No such user');

/**
 * System bots are found only where the reference looks "including cross realm" (reading one
 * user); everything that manages a user answers for them as for a stranger.
 */
export function userById(realm: RealmState, id: number, includeSystemBots = false): UserRecord {
  const user = realm.users.get(id);
  if (!user || (user.isSystemBot && !includeSystemBots)) throw noSuchUser();
  return user;
}

/**
 * The legacy dummy address `user<id>@<realm host>`, which the reference hands out for hidden
 * emails and still accepts in GET /users/{email}.
 */
function dummyEmailId(shard: Shard, realm: RealmState, email: string): number | null {
  const match = /^user(\d+)@(.+)$/i.exec(email);
  if (!match) return null;
  const host = new URL(shard.realmUrl(realm.realm)).host.toLowerCase();
  const domain = match[2].toLowerCase();
  return domain === host || domain === host.replace(/:\d+$/, '') ? Number(match[1]) : null;
}

/** GET /users/{user_id_or_email}: digits are an id; anything else is an email. */
export function userByIdOrEmail(shard: Shard, realm: RealmState, key: string, includeSystemBots = false): UserRecord {
  if (/^\d+$/.test(key)) return userById(realm, Number(key), includeSystemBots);
  // A real address first: every email is visible here, so it names its owner unambiguously.
  const byEmail = realm.userByEmail(key.trim());
  if (byEmail && (includeSystemBots || !byEmail.isSystemBot)) return byEmail;
  const id = dummyEmailId(shard, realm, key.trim());
  if (id !== null) return userById(realm, id, includeSystemBots);
  throw noSuchUser();
}

/** The reference's can_admin_user: administrators, and a bot's owner for that bot. */
export function canAdminUser(actor: UserRecord, target: UserRecord): boolean {
  return (target.isBot && target.botOwnerId === actor.id) || actor.role <= ROLE.administrator;
}

export interface AccessOptions {
  allowBots?: boolean;
  allowDeactivated?: boolean;
  /** Changing the user needs can_admin_user; reading them, only access (restricted guests). */
  forAdmin: boolean;
  includeSystemBots?: boolean;
}

/**
 * The reference's access_user_by_id: the user, or its errors in its order ("No such user" for
 * unknown users and, unless allowed, bots; "User is deactivated"; "Insufficient permission").
 */
export function accessUserById(shard: Shard, realm: RealmState, actor: UserRecord, id: number, opts: AccessOptions): UserRecord {
  const target = userById(realm, id, opts.includeSystemBots);
  if (target.isBot && !opts.allowBots) throw noSuchUser();
  if (!target.isActive && !opts.allowDeactivated) throw badRequest('User is deactivated');
  const allowed = opts.forAdmin ? canAdminUser(actor, target) : canAccessUser(shard, realm, actor, target);
  if (!allowed) throw badRequest('Insufficient permission');
  return target;
}

/** The reference's human_users_only. */
export function notForBots(user: UserRecord): void {
  if (user.isBot) throw badRequest('This endpoint does not accept bot requests.');
}
