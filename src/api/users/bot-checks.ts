import { badRequest, insufficientPermission } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import { userHasRealmPermission } from '../../model/realm-settings.js';
import { BOT_TYPE, type UserRecord } from '../../model/types.js';

/**
 * The checks on bots that reactivating a user meets as well as creating a bot does (the
 * reference's zerver/lib/users.py), here with the users so that their endpoints need nothing
 * of api/bots/, which builds on them.
 */

/** check_can_create_bot: any bot with can_create_bots_group, incoming webhooks also with the write-only one. */
export function checkCanCreateBot(realm: RealmState, user: UserRecord, botType: number): void {
  if (userHasRealmPermission(realm, user, 'can_create_bots_group')) return;
  if (botType === BOT_TYPE.incomingWebhook && userHasRealmPermission(realm, user, 'can_create_write_only_bots_group')) return;
  throw insufficientPermission();
}

/**
 * check_bot_name_available: no active user of the realm already has the name (a guard against
 * accidents, not a uniqueness rule: reactivation can still make twins, as in the reference).
 */
export function checkBotNameAvailable(realm: RealmState, fullName: string, isActivation: boolean, except?: UserRecord): void {
  const name = fullName.trim();
  for (const user of realm.activeUsers()) {
    if (user !== except && user.fullName === name) {
      if (isActivation) throw badRequest(`There is already an active bot named "${fullName}" in this organization. To reactivate this bot, you must rename or deactivate the other one first.`);
      throw badRequest('Name is already in use.');
    }
  }
}
