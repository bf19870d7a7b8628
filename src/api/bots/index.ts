import { ApiError, badRequest } from '../../lib/errors.js';
import { botDomain } from '../../model/realm-settings.js';
import { BOT_INTERFACE, BOT_TYPE, ROLE, ROLES, type BotProfile, type Role } from '../../model/types.js';
import { generateApiKey } from '../../lib/auth.js';
import { me, operation } from '../../api-kit/operation.js';
import { isValidEmail } from '../../model/email-addresses.js';
import { checkFullName, doCreateUser, doDeactivateUser } from '../users/actions.js';
import { ownerRequired } from '../users/update.js';
import { doRegenerateApiKey, doUpdateBot, type BotChanges } from './actions.js';
import { checkBotNameAvailable, checkCanCreateBot } from '../users/bot-checks.js';
import { accessBotById, checkEmbeddedBot, checkMemberOrAdmin, checkShortName, checkValidBotType, checkValidInterfaceType, defaultStreamId } from './checks.js';
import { checkIntegrationConfig } from '../webhooks/registry.js';
import { storageOperations } from './storage.js';
import './outgoing.js';
import { botProfile, streamName } from '../users/bot-views.js';
import { avatarUrl } from '../users/views.js';
import { avatarFromUpload, changeAvatar } from '../avatars/actions.js';
import type { UploadedFile } from '../uploads/index.js';

/**
 * The bot endpoints (the reference's zerver/views/users.py): create, list, configure,
 * deactivate, and API keys. Bots are users: the user endpoints and events apply to them too.
 */

const fileSchema = { type: 'array', items: { type: 'object' } };
const STRING_MAP = { type: 'object', additionalProperties: { type: 'string' } };

/**
 * payload_url and service_payload_url are JSON-encoded strings in the reference
 * (json_validator=check_url); a bare URL is taken as it is.
 */
function checkUrl(name: string, raw: string): string {
  let url = raw;
  if (raw.startsWith('"')) {
    try {
      url = JSON.parse(raw);
    } catch {
      throw badRequest(`${name} is not a URL`);
    }
  }
  if (url === '') return url;
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return url;
  } catch {
    // falls through
  }
  throw badRequest(`${name} is not a URL`);
}

function checkOneFile(files: unknown[] | undefined): void {
  if ((files?.length ?? 0) > 1) throw badRequest('You may only upload one file at a time');
}

/** A bot's avatar from the request's one file, if it sent one (stored as api/avatars/ stores them). */
function botAvatar(shard: Parameters<typeof avatarFromUpload>[0], files: UploadedFile[] | undefined) {
  return files?.length === 1 ? avatarFromUpload(shard, files[0], { limited: false }) : Promise.resolve(null);
}

interface CreateParams {
  full_name: string;
  short_name: string;
  bot_type: number;
  payload_url?: string;
  service_name?: string;
  config_data?: Record<string, string>;
  interface_type: number;
  default_sending_stream?: string;
  default_events_register_stream?: string;
  default_all_public_streams?: boolean;
  __files?: UploadedFile[];
}

/** POST /bots */
const create = operation<CreateParams>({
  auth: 'user',
  params: {
    properties: {
      full_name: { type: 'string' },
      short_name: { type: 'string' },
      bot_type: { type: 'integer', default: BOT_TYPE.generic },
      payload_url: { type: 'string' },
      service_name: { type: 'string' },
      config_data: STRING_MAP,
      interface_type: { type: 'integer', default: BOT_INTERFACE.generic },
      default_sending_stream: { type: 'string' },
      default_events_register_stream: { type: 'string' },
      default_all_public_streams: { type: 'boolean' },
      __files: fileSchema,
    },
    required: ['full_name', 'short_name'],
  },
  handler: async (ctx) => {
    const { shard, realm, params: p } = ctx;
    const actor = me(ctx);
    checkMemberOrAdmin(actor);
    const payloadUrl = p.payload_url === undefined ? '' : checkUrl('payload_url', p.payload_url);
    const short = checkShortName(p.short_name);
    const serviceName = p.bot_type !== BOT_TYPE.incomingWebhook ? p.service_name || short : p.service_name;
    const fullName = checkFullName(p.full_name);
    const email = `${short}-bot@${botDomain(realm.url)}`;
    if (p.bot_type === BOT_TYPE.embedded) checkEmbeddedBot(shard, serviceName!);
    if (!isValidEmail(email)) throw badRequest('Bad name or username');
    if (realm.userByEmail(email)) throw badRequest('Username already in use');
    checkBotNameAvailable(realm, fullName, false);
    checkCanCreateBot(realm, actor, p.bot_type);
    checkValidBotType(shard, realm, actor, p.bot_type);
    checkValidInterfaceType(p.interface_type);
    checkOneFile(p.__files);
    const sending = defaultStreamId(realm, actor, p.default_sending_stream) ?? null;
    const register = defaultStreamId(realm, actor, p.default_events_register_stream) ?? null;
    const config = { ...(p.config_data ?? {}) };
    if (p.bot_type === BOT_TYPE.incomingWebhook && serviceName) {
      checkIntegrationConfig(serviceName, config);
      config.integration_id = serviceName;
    }
    const profile: BotProfile = { defaultSendingStreamId: sending, defaultEventsRegisterStreamId: register, defaultAllPublicStreams: p.default_all_public_streams ?? false };
    if (p.bot_type === BOT_TYPE.outgoingWebhook || p.bot_type === BOT_TYPE.embedded) {
      profile.service = { name: serviceName!, baseUrl: payloadUrl, interface: p.interface_type, token: generateApiKey() };
    }
    if (p.bot_type === BOT_TYPE.incomingWebhook || p.bot_type === BOT_TYPE.embedded) profile.config = config;
    // The image is read before the bot exists: a file that is no image refuses the whole request.
    const avatar = await botAvatar(shard, p.__files);
    const bot = await doCreateUser(shard, realm, {
      email, fullName, isBot: true, botType: p.bot_type, botOwnerId: actor.id, bot: profile,
      inSameTransaction: avatar ? (out, user) => changeAvatar(shard, out, realm, user, avatar) : undefined,
    });
    return {
      user_id: bot.id,
      api_key: bot.apiKey,
      avatar_url: avatarUrl(bot, false),
      default_sending_stream: streamName(realm, sending),
      default_events_register_stream: streamName(realm, register),
      default_all_public_streams: profile.defaultAllPublicStreams,
    };
  },
});

/** GET /bots: the requester's own active bots, oldest first. */
const list = operation({
  auth: 'user',
  handler: (ctx) => {
    const actor = me(ctx);
    checkMemberOrAdmin(actor);
    const bots = [...ctx.realm.users.values()].filter((u) => u.isBot && u.isActive && u.botOwnerId === actor.id).sort((a, b) => a.dateJoined - b.dateJoined || a.id - b.id);
    return {
      bots: bots.map((bot) => {
        const profile = botProfile(bot);
        return {
          username: bot.email,
          full_name: bot.fullName,
          api_key: bot.apiKey,
          avatar_url: avatarUrl(bot, false),
          default_sending_stream: streamName(ctx.realm, profile.defaultSendingStreamId),
          default_events_register_stream: streamName(ctx.realm, profile.defaultEventsRegisterStreamId),
          default_all_public_streams: profile.defaultAllPublicStreams,
        };
      }),
    };
  },
});

interface UpdateParams {
  bot_id: number;
  full_name?: string;
  role?: number;
  bot_owner_id?: number;
  config_data?: Record<string, string>;
  service_payload_url?: string;
  service_interface: number;
  default_sending_stream?: string;
  default_events_register_stream?: string;
  default_all_public_streams?: boolean;
  __files?: UploadedFile[];
}

/** PATCH /bots/{bot_id}: every check first, then one transaction. */
const update = operation<UpdateParams>({
  auth: 'user',
  params: {
    properties: {
      bot_id: { type: 'integer' },
      full_name: { type: 'string' },
      role: { type: 'integer' },
      bot_owner_id: { type: 'integer' },
      config_data: STRING_MAP,
      service_payload_url: { type: 'string' },
      service_interface: { type: 'integer', default: BOT_INTERFACE.generic },
      default_sending_stream: { type: 'string' },
      default_events_register_stream: { type: 'string' },
      default_all_public_streams: { type: 'boolean' },
      __files: fileSchema,
    },
    required: ['bot_id'],
  },
  handler: async (ctx) => {
    const { shard, realm, params: p } = ctx;
    const actor = me(ctx);
    checkMemberOrAdmin(actor);
    const bot = accessBotById(realm, actor, p.bot_id);
    const changes: BotChanges = {};
    if (p.full_name !== undefined) {
      const name = checkFullName(p.full_name);
      // The web app sends the name unchanged with every save: that is no rename.
      if (name !== bot.fullName) {
        checkBotNameAvailable(realm, name, false, bot);
        changes.fullName = name;
      }
    }
    if (p.role !== undefined) {
      if (!ROLES.includes(p.role)) throw badRequest('Invalid role');
      if (p.role !== bot.role) {
        if ((p.role === ROLE.owner || bot.role === ROLE.owner) && actor.role !== ROLE.owner) throw ownerRequired();
        if (actor.role > ROLE.administrator) throw new ApiError('Must be an organization administrator', { code: 'UNAUTHORIZED_PRINCIPAL' });
        changes.role = p.role as Role;
      }
    }
    if (p.bot_owner_id !== undefined) {
      const owner = realm.users.get(p.bot_owner_id);
      if (!owner || owner.isSystemBot) throw badRequest('Failed to change owner, no such user');
      if (!owner.isActive) throw badRequest('Failed to change owner, user is deactivated');
      if (owner.isBot) throw badRequest("Failed to change owner, bots can't own other bots");
      changes.owner = owner;
    }
    changes.defaultSendingStreamId = defaultStreamId(realm, actor, p.default_sending_stream);
    changes.defaultEventsRegisterStreamId = defaultStreamId(realm, actor, p.default_events_register_stream);
    if (p.default_all_public_streams !== undefined) changes.defaultAllPublicStreams = p.default_all_public_streams;
    let payloadUrl: string | null = null;
    if (p.service_payload_url !== undefined) {
      payloadUrl = checkUrl('service_payload_url', p.service_payload_url);
      checkValidInterfaceType(p.service_interface);
      changes.service = { baseUrl: payloadUrl, interface: p.service_interface };
    }
    if (p.config_data !== undefined) changes.config = p.config_data;
    checkOneFile(p.__files);
    changes.avatar = (await botAvatar(shard, p.__files)) ?? undefined;
    await doUpdateBot(shard, realm, actor, bot, changes);
    const profile = botProfile(bot);
    const owner = bot.botOwnerId === null ? undefined : realm.users.get(bot.botOwnerId);
    return {
      full_name: bot.fullName,
      avatar_url: avatarUrl(bot, false),
      service_interface: p.service_interface,
      service_payload_url: payloadUrl,
      config_data: p.config_data ?? null,
      default_sending_stream: streamName(realm, profile.defaultSendingStreamId),
      default_events_register_stream: streamName(realm, profile.defaultEventsRegisterStreamId),
      default_all_public_streams: profile.defaultAllPublicStreams,
      ...(owner ? { bot_owner: owner.email } : {}),
    };
  },
});

/** DELETE /bots/{bot_id}: deactivates the bot (its owner or an administrator). */
const deactivate = operation<{ bot_id: number }>({
  auth: 'user',
  params: { properties: { bot_id: { type: 'integer' } }, required: ['bot_id'] },
  handler: async (ctx) => {
    const bot = accessBotById(ctx.realm, me(ctx), ctx.params.bot_id);
    await doDeactivateUser(ctx.shard, ctx.realm, bot);
    return {};
  },
});

/** POST /bots/{bot_id}/api_key/regenerate */
const regenerateBotKey = operation<{ bot_id: number }>({
  auth: 'user',
  params: { properties: { bot_id: { type: 'integer' } }, required: ['bot_id'] },
  handler: async (ctx) => {
    const actor = me(ctx);
    checkMemberOrAdmin(actor);
    const bot = accessBotById(ctx.realm, actor, ctx.params.bot_id);
    return { api_key: await doRegenerateApiKey(ctx.shard, ctx.realm, bot) };
  },
});

/** POST /users/me/api_key/regenerate: humans only (the reference's human_users_only). */
const regenerateOwnKey = operation({
  auth: 'user',
  handler: async (ctx) => {
    const user = me(ctx);
    if (user.isBot) throw badRequest('This endpoint does not accept bot requests.');
    return { api_key: await doRegenerateApiKey(ctx.shard, ctx.realm, user) };
  },
});

export const operations = {
  'bots.create': create,
  'bots.list': list,
  'bots.update': update,
  'bots.deactivate': deactivate,
  'bots.regenerateApiKey': regenerateBotKey,
  'users.regenerateApiKey': regenerateOwnKey,
  ...storageOperations,
};
