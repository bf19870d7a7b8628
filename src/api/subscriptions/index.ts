import { me, operation } from '../../api-kit/operation.js';
import { activeSubscriberIds } from '../streams/access.js';
import { flush, outbox } from '../../shard/outbox.js';
import { channelOptionParams } from '../streams/create-channel.js';
import { operations as propertyOperations } from './properties.js';
import { operations as updateOperations } from './update.js';
import { subscriptionView } from './views.js';
import { checkAddRequest, checkRemoveRequest, type AddParams } from './requests.js';

/** GET /users/me/subscriptions: the user's channels by name, archived ones left out. */
const list = operation<{ include_subscribers: boolean }>({
  auth: 'user',
  params: { properties: { include_subscribers: { type: 'boolean', default: false } } },
  handler: (ctx) => {
    const user = me(ctx);
    const { realm } = ctx;
    const subs = [...realm.subscriptionsOf(user.id).values()]
      .map((sub) => ({ sub, stream: realm.streams.get(sub.streamId)! }))
      .filter(({ stream }) => !stream.isArchived)
      .sort((a, b) => (a.stream.name < b.stream.name ? -1 : a.stream.name > b.stream.name ? 1 : 0));
    return {
      subscriptions: subs.map(({ sub, stream }) =>
        subscriptionView(realm, sub, stream, ctx.params.include_subscribers ? activeSubscriberIds(realm, stream.id) : undefined),
      ),
    };
  },
});

/**
 * POST /users/me/subscriptions: subscribes the user, or `principals`, to channels, creating the
 * ones that do not exist. Every check runs before anything changes. Creating a channel with
 * `announce` would post to the realm's new-channel announcements channel, which this server does
 * not configure yet, so it posts nothing.
 */
const add = operation<AddParams>({
  auth: 'user',
  params: {
    properties: {
      subscriptions: {
        type: 'array',
        items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, description: { type: 'string' }, color: { type: 'string' } } },
      },
      principals: { type: 'array' },
      authorization_errors_fatal: { type: 'boolean', default: true },
      ...channelOptionParams,
    },
    required: ['subscriptions'],
  },
  handler: async (ctx) => {
    const apply = checkAddRequest(ctx.realm, me(ctx), ctx.params);
    const out = outbox(ctx.shard);
    const result = apply(ctx.shard, out);
    await flush(ctx.shard, ctx.realm, out);
    return result;
  },
});

/**
 * DELETE /users/me/subscriptions. Removing anyone but oneself and one's own bots needs the
 * permission to remove subscribers from every channel named. A channel the user cannot see is
 * reported as nonexistent, so names do not reveal private channels.
 */
const remove = operation<{ subscriptions: string[]; principals?: unknown[] }>({
  auth: 'user',
  params: {
    properties: { subscriptions: { type: 'array', items: { type: 'string' } }, principals: { type: 'array' } },
    required: ['subscriptions'],
  },
  handler: async (ctx) => {
    const apply = checkRemoveRequest(ctx.realm, me(ctx), ctx.params);
    const out = outbox(ctx.shard);
    const result = apply(ctx.shard, out);
    await flush(ctx.shard, ctx.realm, out);
    return result;
  },
});

export const operations = {
  'subscriptions.list': list,
  'subscriptions.add': add,
  'subscriptions.remove': remove,
  ...propertyOperations,
  ...updateOperations,
};
