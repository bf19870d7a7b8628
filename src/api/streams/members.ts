import { badRequest } from '../../lib/errors.js';
import { me, operation } from '../../api-kit/operation.js';
import { activeSubscriberIds, hasMetadataAccess, isGuest, isSubscribed } from './access.js';

/**
 * GET /streams/{stream_id}/members: the active subscribers of a channel whose subscribers the
 * user may see (the reference's get_subscribers_backend). A guest sees those of their own
 * channels only, not of a web-public channel they have not joined.
 */
const members = operation<{ stream_id: number }>({
  auth: 'user',
  params: { properties: { stream_id: { type: 'integer', minimum: 0 } }, required: ['stream_id'] },
  handler: (ctx) => {
    const user = me(ctx);
    const { realm } = ctx;
    const stream = realm.streams.get(ctx.params.stream_id);
    if (!stream || stream.isArchived || !hasMetadataAccess(realm, user, stream)) throw badRequest('Invalid channel ID');
    if (isGuest(user) && !isSubscribed(realm, user.id, stream.id)) throw badRequest('Subscriber data is not available for this channel');
    return { subscribers: activeSubscriberIds(realm, stream.id) };
  },
});

export const operations = {
  'streams.members': members,
};
