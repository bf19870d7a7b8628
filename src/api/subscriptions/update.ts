import { badRequest } from '../../lib/errors.js';
import { canAccessUser } from '../../model/user-access.js';
import { flush, outbox } from '../../shard/outbox.js';
import { me, operation } from '../../api-kit/operation.js';
import { hasMetadataAccess } from '../streams/access.js';
import { noSuchUser, userById } from '../users/access.js';
import { checkAddRequest, checkRemoveRequest } from './requests.js';

type AddItem = { name: string; description?: string; color?: string };

/**
 * PATCH /users/me/subscriptions: subscribes to `add` and unsubscribes from `delete` in one
 * transaction, answering with both results, as the reference's compose_views. Both halves are
 * checked before either is applied, so a failing one changes nothing; channel names in `delete`
 * are looked up before `add` creates any. Like POST, it is not for guests, whatever it asks.
 */
const update = operation<{ add?: AddItem[]; delete?: string[] }>({
  auth: 'user',
  params: {
    properties: {
      add: {
        type: 'array',
        items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, description: { type: 'string' }, color: { type: 'string' } } },
      },
      delete: { type: 'array', items: { type: 'string' } },
    },
  },
  handler: async (ctx) => {
    const user = me(ctx);
    const { shard, realm, params: p } = ctx;
    const add = p.add ?? [];
    const del = p.delete ?? [];
    if (add.length === 0 && del.length === 0) throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
    const adding = checkAddRequest(realm, user, {
      subscriptions: add,
      authorization_errors_fatal: true,
      announce: false,
      invite_only: false,
      is_web_public: false,
      is_default_stream: false,
    });
    const removing = checkRemoveRequest(realm, user, { subscriptions: del });
    const out = outbox(shard);
    const result = { ...adding(shard, out), ...removing(shard, out) };
    await flush(shard, realm, out);
    return result;
  },
});

/**
 * GET /users/{user_id}/subscriptions/{stream_id}: whether a user is subscribed to a channel the
 * requester can see (the reference's get_subscription_backend).
 */
const status = operation<{ user_id: number; stream_id: number }>({
  auth: 'user',
  params: { properties: { user_id: { type: 'integer' }, stream_id: { type: 'integer' } }, required: ['user_id', 'stream_id'] },
  handler: (ctx) => {
    const viewer = me(ctx);
    const { shard, realm, params: p } = ctx;
    const target = userById(realm, p.user_id);
    // access_user_by_id: bots are "no such user" here; deactivated users are refused.
    if (target.isBot) throw noSuchUser();
    if (!target.isActive) throw badRequest('User is deactivated');
    if (!canAccessUser(shard, realm, viewer, target)) throw badRequest('Insufficient permission');
    const stream = realm.streams.get(p.stream_id);
    if (!stream || stream.isArchived || !hasMetadataAccess(realm, viewer, stream)) throw badRequest('Invalid channel ID');
    return { is_subscribed: realm.subscription(target.id, stream.id) !== undefined };
  },
});

export const operations = {
  'subscriptions.update': update,
  'subscriptions.status': status,
};
