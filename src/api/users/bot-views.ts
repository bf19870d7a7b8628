import type { RealmState } from '../../model/realm-state.js';
import { BOT_TYPE, ROLE, type BotProfile, type UserRecord } from '../../model/types.js';
import { avatarUrl } from './views.js';

/** Bots as the reference shows them to those who administer them (its realm_bot dicts). */

export const NO_PROFILE: BotProfile = { defaultSendingStreamId: null, defaultEventsRegisterStreamId: null, defaultAllPublicStreams: false };

export function botProfile(bot: UserRecord): BotProfile {
  return bot.bot ?? NO_PROFILE;
}

export function streamName(realm: RealmState, id: number | null): string | null {
  return id === null ? null : (realm.streams.get(id)?.name ?? null);
}

/** The reference's get_service_dicts_for_bot: one entry for outgoing webhook and embedded bots. */
export function serviceDicts(bot: UserRecord): Record<string, unknown>[] {
  const service = bot.bot?.service;
  if (!service) return [];
  if (bot.botType === BOT_TYPE.outgoingWebhook) return [{ base_url: service.baseUrl, interface: service.interface, token: service.token }];
  if (bot.botType === BOT_TYPE.embedded) return [{ config_data: { ...(bot.bot?.config ?? {}) }, service_name: service.name }];
  return [];
}

/** A bot as realm_bots and realm_bot add carry it (the reference's created_bot_event). */
export function botDict(realm: RealmState, bot: UserRecord): Record<string, unknown> {
  const profile = botProfile(bot);
  const dict: Record<string, unknown> = {
    email: bot.email,
    user_id: bot.id,
    full_name: bot.fullName,
    bot_type: bot.botType,
    is_active: bot.isActive,
    api_key: bot.apiKey,
    default_sending_stream: streamName(realm, profile.defaultSendingStreamId),
    default_events_register_stream: streamName(realm, profile.defaultEventsRegisterStreamId),
    default_all_public_streams: profile.defaultAllPublicStreams,
    avatar_url: avatarUrl(bot, false),
    services: serviceDicts(bot),
  };
  // Only bots with an owner carry the key, as in the reference.
  if (bot.botOwnerId !== null) dict.owner_id = bot.botOwnerId;
  return dict;
}

/**
 * Who hears of a bot's configuration (the reference's bot_owner_user_ids): the active human
 * administrators and the owner; only the owner when a default channel of the bot is private.
 */
export function botOwnerUserIds(realm: RealmState, bot: UserRecord): number[] {
  const profile = botProfile(bot);
  const isPrivate = [profile.defaultSendingStreamId, profile.defaultEventsRegisterStreamId].some((id) => id !== null && realm.streams.get(id)?.inviteOnly === true);
  const ids = new Set<number>();
  if (!isPrivate) for (const user of realm.activeUsers()) if (!user.isBot && user.role <= ROLE.administrator) ids.add(user.id);
  const owner = bot.botOwnerId === null ? undefined : realm.users.get(bot.botOwnerId);
  if (owner?.isActive) ids.add(owner.id);
  return [...ids];
}

/** realm_bots: every bot for administrators, else the user's own (the reference's get_owned_bot_dicts). */
export function realmBots(realm: RealmState, self: UserRecord): Record<string, unknown>[] {
  const admin = self.role <= ROLE.administrator;
  return [...realm.users.values()]
    .filter((u) => u.isBot && !u.isSystemBot && (admin || u.botOwnerId === self.id))
    .sort((a, b) => a.id - b.id)
    .map((bot) => botDict(realm, bot));
}
