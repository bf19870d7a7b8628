import { badRequest } from '../../lib/errors.js';
import type { StreamRecord } from '../../model/types.js';
import { me, operation } from '../../api-kit/operation.js';
import { hasContentAccess, hasMetadataAccess, isAdmin, isGuest, isSubscribed } from './access.js';
import { operations as updateOperations } from './update.js';
import { operations as memberOperations } from './members.js';
import { operations as deleteTopicOperations } from './delete-topic.js';
import { streamView } from './views.js';

const bool = (dflt: boolean) => ({ type: 'boolean', default: dflt });

interface ListParams {
  include_public: boolean;
  include_web_public: boolean;
  include_subscribed: boolean;
  exclude_archived: boolean;
  include_all_active: boolean;
  include_all: boolean;
  include_default: boolean;
  include_owner_subscribed: boolean;
  include_can_access_content: boolean;
}

/**
 * GET /streams. With include_all, every channel the user has metadata access to (for
 * administrators, all of them); otherwise the union of the sources asked for. A private channel
 * reaches the list only through the user's own access to it, or (include_owner_subscribed) a
 * bot's owner's subscription, as the reference has it.
 */
const list = operation<ListParams>({
  auth: 'user',
  params: {
    properties: {
      include_public: bool(true),
      include_web_public: bool(false),
      include_subscribed: bool(true),
      exclude_archived: bool(true),
      include_all_active: bool(false),
      include_all: bool(false),
      include_default: bool(false),
      include_owner_subscribed: bool(false),
      include_can_access_content: bool(false),
    },
  },
  handler: (ctx) => {
    const user = me(ctx);
    const { realm, params: p } = ctx;
    // Deprecated, and documented as administrators-only; include_all is its successor for everyone.
    if (p.include_all_active && !isAdmin(user)) throw badRequest('User not authorized for this query');
    const includeAll = p.include_all || p.include_all_active;
    const ownerId = p.include_owner_subscribed && user.isBot ? user.botOwnerId : null;
    const wanted = (s: StreamRecord): boolean => {
      if (includeAll) return hasMetadataAccess(realm, user, s);
      if (p.include_can_access_content && hasContentAccess(realm, user, s)) return true;
      if (p.include_subscribed && isSubscribed(realm, user.id, s.id)) return true;
      if (p.include_public && !isGuest(user) && !s.inviteOnly) return true;
      if (p.include_web_public && s.isWebPublic && !s.inviteOnly && s.historyPublicToSubscribers && !s.isArchived) return true;
      return ownerId !== null && isSubscribed(realm, ownerId, s.id);
    };
    const streams = [...realm.streams.values()]
      .filter((s) => !(p.exclude_archived && s.isArchived) && wanted(s))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return {
      streams: streams.map((s) => {
        const view = streamView(realm, s);
        if (p.include_default) view.is_default = s.isDefault;
        return view;
      }),
    };
  },
});

/** GET /streams/{stream_id}: any channel the user has metadata access to. */
const get = operation<{ stream_id: number }>({
  auth: 'user',
  params: { properties: { stream_id: { type: 'integer' } }, required: ['stream_id'] },
  handler: (ctx) => {
    const user = me(ctx);
    const stream = ctx.realm.streams.get(ctx.params.stream_id);
    // Unknown and inaccessible look the same, so ids do not reveal private channels.
    if (!stream || stream.isArchived || !hasMetadataAccess(ctx.realm, user, stream)) throw badRequest('Invalid channel ID');
    return { stream: streamView(ctx.realm, stream) };
  },
});

/** GET /get_stream_id: needs content access, as the reference's access_stream_by_name. */
const getId = operation<{ stream: string }>({
  auth: 'user',
  params: { properties: { stream: { type: 'string' } }, required: ['stream'] },
  handler: (ctx) => {
    const user = me(ctx);
    const stream = ctx.realm.streamByName(ctx.params.stream);
    if (!stream || stream.isArchived || !hasContentAccess(ctx.realm, user, stream)) {
      throw badRequest(`Invalid channel name '${ctx.params.stream}'`);
    }
    return { stream_id: stream.id };
  },
});

export const operations = {
  'streams.list': list,
  'streams.get': get,
  'streams.getId': getId,
  ...updateOperations,
  ...memberOperations,
  ...deleteTopicOperations,
};
