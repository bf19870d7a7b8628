import { badRequest, insufficientPermission } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import { userHasRealmPermission } from '../../model/realm-settings.js';
import { BOT_INTERFACE, BOT_TYPE, ROLE, type UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { hasContentAccess } from '../streams/access.js';
import { canAdminUser } from '../users/access.js';
import { EMBEDDED_BOTS } from './embedded.js';

/** The checks of the bot endpoints, with the reference's errors (zerver/lib/users.py). */

/** The reference's require_member_or_admin. */
export function checkMemberOrAdmin(user: UserRecord): void {
  if (user.role === ROLE.guest) throw badRequest('Not allowed for guest users');
  if (user.isBot) throw badRequest('This endpoint does not accept bot requests.');
}

/** The bot types a user may create (the reference's allowed_bot_types). */
export function allowedBotTypes(shard: Shard, realm: RealmState, user: UserRecord): number[] {
  if (userHasRealmPermission(realm, user, 'can_create_bots_group')) {
    const types: number[] = [BOT_TYPE.generic, BOT_TYPE.incomingWebhook, BOT_TYPE.outgoingWebhook];
    if (shard.config.embeddedBotsEnabled) types.push(BOT_TYPE.embedded);
    return types;
  }
  return userHasRealmPermission(realm, user, 'can_create_write_only_bots_group') ? [BOT_TYPE.incomingWebhook] : [];
}

export function checkValidBotType(shard: Shard, realm: RealmState, user: UserRecord, botType: number): void {
  if (!allowedBotTypes(shard, realm, user).includes(botType)) throw badRequest('Invalid bot type');
}

export function checkValidInterfaceType(value: number): void {
  if (!(Object.values(BOT_INTERFACE) as number[]).includes(value)) throw badRequest('Invalid interface type');
}

/** check_short_name */
export function checkShortName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0) throw badRequest('Bad name or username');
  return name;
}

/** access_bot_by_id */
export function accessBotById(realm: RealmState, actor: UserRecord, botId: number): UserRecord {
  const target = realm.users.get(botId);
  if (!target || !target.isBot || target.isSystemBot) throw badRequest('No such bot');
  if (!canAdminUser(actor, target)) throw insufficientPermission();
  return target;
}

/** access_stream_by_name, for a bot's default channels: "" means none. */
export function defaultStreamId(realm: RealmState, actor: UserRecord, name: string | undefined): number | null | undefined {
  if (name === undefined) return undefined;
  if (name === '') return null;
  const stream = realm.streamByName(name);
  if (!stream || stream.isArchived || !hasContentAccess(realm, actor, stream)) throw badRequest(`Invalid channel name '${name}'`);
  return stream.id;
}

export function checkEmbeddedBot(shard: Shard, serviceName: string): void {
  if (!shard.config.embeddedBotsEnabled) throw badRequest('Embedded bots are not enabled.');
  if (!EMBEDDED_BOTS.some((b) => b.name === serviceName)) throw badRequest('Invalid embedded bot name.');
}
