import { badRequest, invalidArgument } from '../../lib/errors.js';
import { parseFolderId } from '../channel-folders/actions.js';
import type { RealmState } from '../../model/realm-state.js';
import type { GroupSetting } from '../../model/types.js';
import { flush, outbox } from '../../shard/outbox.js';
import { me, operation } from '../../api-kit/operation.js';
import { addSubscriptions } from '../subscriptions/actions.js';
import { resolvePrincipals } from '../subscriptions/checks.js';
import { isGuest } from './access.js';
import { createStream } from './actions.js';
import { checkCanCreateChannel, checkStreamName, MAX_DESCRIPTION_LENGTH, parseGroupSetting, parseRetention, type CreationRequest } from './checks.js';
import { CHANNEL_GROUP_SETTINGS } from './views.js';

/** The channel options POST /channels/create and POST /users/me/subscriptions both take. */
export const channelOptionParams = {
  announce: { type: 'boolean', default: false },
  invite_only: { type: 'boolean', default: false },
  is_web_public: { type: 'boolean', default: false },
  is_default_stream: { type: 'boolean', default: false },
  history_public_to_subscribers: { type: 'boolean' },
  message_retention_days: { type: ['string', 'integer'] },
  folder_id: { anyOf: [{ type: 'integer' }, { type: 'null' }, { type: 'string' }] },
  ...Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((s) => [s, { oneOf: [{ type: 'integer' }, { type: 'object' }] }])),
};

export interface ChannelOptions {
  announce: boolean;
  invite_only: boolean;
  is_web_public: boolean;
  is_default_stream: boolean;
  history_public_to_subscribers?: boolean;
  message_retention_days?: string | number;
  folder_id?: number | string | null;
  [setting: string]: unknown;
}

/** The options checked: the kind of channel (for checkCanCreateChannel), its group settings and folder. */
export function parseChannelOptions(realm: RealmState, p: ChannelOptions): { kind: CreationRequest; groups: Record<string, GroupSetting>; folderId: number | null } {
  const groups: Record<string, GroupSetting> = {};
  for (const setting of CHANNEL_GROUP_SETTINGS) if (p[setting] !== undefined) groups[setting] = parseGroupSetting(realm, setting, p[setting]);
  const retention = p.message_retention_days === undefined ? null : parseRetention(p.message_retention_days);
  // Feature level 389: the channels a request creates go into the folder.
  const folderId = p.folder_id === undefined ? null : parseFolderId(realm, p.folder_id);
  return { kind: { inviteOnly: p.invite_only, isWebPublic: p.is_web_public, isDefault: p.is_default_stream, messageRetentionDays: retention }, groups, folderId };
}

/**
 * POST /channels/create (feature level 417): creates one channel and subscribes exactly the
 * users named in `subscribers` (the creator only if listed), answering the new channel's `id`.
 * It is POST /users/me/subscriptions' channel creation without the subscribe-or-create
 * ambiguity: a name already taken is an error rather than a subscription.
 */
interface Params extends ChannelOptions {
  name: string;
  description: string;
  subscribers: unknown[];
}

const create = operation<Params>({
  auth: 'user',
  params: {
    properties: {
      name: { type: 'string' },
      description: { type: 'string', default: '' },
      subscribers: { type: 'array' },
      ...channelOptionParams,
    },
    required: ['name', 'subscribers'],
  },
  handler: async (ctx) => {
    const user = me(ctx);
    const { shard, realm, params: p } = ctx;
    if (isGuest(user)) throw badRequest('Not allowed for guest users');
    const name = checkStreamName(p.name);
    // The reference keeps descriptions on one line.
    const description = p.description.replace(/\n/g, ' ');
    if ([...description].length > MAX_DESCRIPTION_LENGTH) throw invalidArgument('description', `description is too long (limit: ${MAX_DESCRIPTION_LENGTH} characters)`);
    const { kind, groups, folderId } = parseChannelOptions(realm, p);
    checkCanCreateChannel(realm, user, kind);
    if (!p.subscribers.every((s) => Number.isInteger(s))) throw invalidArgument('subscribers', 'subscribers is not a list of user IDs');
    const targets = p.subscribers.length > 0 ? resolvePrincipals(realm, p.subscribers) : [];
    if (realm.streamByName(name)) throw badRequest(`Channel '${name}' already exists`);

    const out = outbox(shard);
    const stream = createStream(shard, realm, out, { name, description, ...kind, historyPublicToSubscribers: p.history_public_to_subscribers ?? null, groups, folderId }, user);
    if (targets.length > 0) addSubscriptions(shard, realm, out, [stream], targets);
    await flush(shard, realm, out);
    return { id: stream.id };
  },
});

export const operations = { 'streams.createChannel': create };
