import { generateApiKey } from '../../lib/auth.js';
import type { RealmState } from '../../model/realm-state.js';
import type { Role, UserRecord } from '../../model/types.js';
import { flush, outbox, queueEvent, type Outbox } from '../../shard/outbox.js';
import type { Shard } from '../../shard/shard.js';
import { usersWhoCanAccess } from '../../model/user-access.js';
import { saveUser } from '../users/actions.js';
import { changeRole } from '../users/update.js';
import { sendBotUpdate, sendOwnerChange, type Send } from '../users/bot-events.js';
import { botProfile, serviceDicts, streamName } from '../users/bot-views.js';
import { changeAvatar, type AvatarImages } from '../avatars/actions.js';

/** The do-actions of PATCH /bots/{bot_id} and the API key endpoints; checks are the caller's. */

export interface BotChanges {
  fullName?: string;
  role?: Role;
  owner?: UserRecord;
  defaultSendingStreamId?: number | null;
  defaultEventsRegisterStreamId?: number | null;
  defaultAllPublicStreams?: boolean;
  service?: { baseUrl: string; interface: number };
  config?: Record<string, string>;
  /** A new uploaded avatar, already scaled (api/avatars/). */
  avatar?: AvatarImages;
}

const sender = (out: Outbox): Send => (event, ids) => queueEvent(out, event, ids);

/** Applies every change in one transaction, each with the events the reference sends for it. */
export async function doUpdateBot(shard: Shard, realm: RealmState, actor: UserRecord, bot: UserRecord, changes: BotChanges): Promise<void> {
  const out = outbox(shard);
  const send = sender(out);
  // Records are changed in place, as the user actions do: requests holding the bot see it.
  const profile = (bot.bot = { ...botProfile(bot) });
  if (changes.fullName !== undefined && changes.fullName !== bot.fullName) {
    bot.fullName = changes.fullName;
    send({ type: 'realm_user', op: 'update', person: { user_id: bot.id, full_name: bot.fullName } }, usersWhoCanAccess(shard, realm, bot));
    sendBotUpdate(send, realm, bot, { full_name: bot.fullName });
  }
  if (changes.role !== undefined && changes.role !== bot.role) changeRole(shard, realm, out, bot, changes.role);
  if (changes.owner && changes.owner.id !== bot.botOwnerId) {
    const previous = bot.botOwnerId === null ? undefined : realm.users.get(bot.botOwnerId);
    bot.botOwnerId = changes.owner.id;
    sendOwnerChange(send, realm, bot, changes.owner, previous);
  }
  if (changes.defaultSendingStreamId !== undefined) {
    profile.defaultSendingStreamId = changes.defaultSendingStreamId;
    sendBotUpdate(send, realm, bot, { default_sending_stream: streamName(realm, profile.defaultSendingStreamId) });
  }
  if (changes.defaultEventsRegisterStreamId !== undefined) {
    profile.defaultEventsRegisterStreamId = changes.defaultEventsRegisterStreamId;
    sendBotUpdate(send, realm, bot, { default_events_register_stream: streamName(realm, profile.defaultEventsRegisterStreamId) });
  }
  if (changes.defaultAllPublicStreams !== undefined) {
    profile.defaultAllPublicStreams = changes.defaultAllPublicStreams;
    sendBotUpdate(send, realm, bot, { default_all_public_streams: profile.defaultAllPublicStreams });
  }
  if (changes.service && profile.service) {
    profile.service = { ...profile.service, baseUrl: changes.service.baseUrl, interface: changes.service.interface };
    sendBotUpdate(send, realm, bot, { services: serviceDicts(bot) });
  }
  if (changes.config) {
    profile.config = { ...(profile.config ?? {}), ...changes.config };
    if (profile.service) sendBotUpdate(send, realm, bot, { services: serviceDicts(bot) });
  }
  if (changes.avatar) changeAvatar(shard, out, realm, bot, changes.avatar);
  saveUser(shard, out.batch, realm, bot);
  await flush(shard, realm, out);
}

/**
 * A new API key (the reference's do_regenerate_api_key): the old one stops working at once;
 * those who administer a bot are told its new key.
 */
export async function doRegenerateApiKey(shard: Shard, realm: RealmState, user: UserRecord): Promise<string> {
  const out = outbox(shard);
  user.apiKey = generateApiKey();
  saveUser(shard, out.batch, realm, user);
  if (user.isBot) sendBotUpdate(sender(out), realm, user, { api_key: user.apiKey });
  await flush(shard, realm, out);
  return user.apiKey;
}
