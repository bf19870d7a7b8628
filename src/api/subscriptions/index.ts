import { ApiError, badRequest, insufficientPermission, invalidArgument } from '../../lib/errors.js';
import type { StreamRecord, UserRecord } from '../../model/types.js';
import { me, operation } from '../operation.js';
import { activeSubscriberIds, hasMetadataAccess, isGuest } from '../streams/access.js';
import { flush, outbox } from '../../shard/outbox.js';
import { createStream } from '../streams/actions.js';
import { checkCanCreateChannel, checkStreamName, MAX_DESCRIPTION_LENGTH } from '../streams/checks.js';
import { channelOptionParams, parseChannelOptions, type ChannelOptions } from '../streams/create-channel.js';
import { addSubscriptions, removeSubscriptions, type SubPair } from './actions.js';
import { canRemoveOthers, checkColor, classifyForSubscribing, controlsUser, resolvePrincipals } from './checks.js';
import { operations as propertyOperations } from './properties.js';
import { subscriptionView } from './views.js';

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

interface AddParams extends ChannelOptions {
  subscriptions: { name: string; description?: string; color?: string }[];
  principals?: unknown[];
  authorization_errors_fatal: boolean;
}

/** `{user id: [channel names]}`, the shape of subscribed and already_subscribed since feature level 289. */
function byUser(pairs: SubPair[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const { user, stream } of pairs) (out[String(user.id)] ??= []).push(stream.name);
  return out;
}

/** The requested channels, names checked and stripped, duplicates (ignoring case) dropped. */
function parseRequested(items: AddParams['subscriptions']) {
  const seen = new Map<string, { name: string; description: string }>();
  const colors = new Map<string, string>();
  items.forEach((item, i) => {
    const name = checkStreamName(item.name);
    // The reference keeps descriptions on one line.
    const description = (item.description ?? '').replace(/\n/g, ' ');
    if ([...description].length > MAX_DESCRIPTION_LENGTH) {
      throw invalidArgument('subscriptions', `subscriptions[${i}][description] is too long (limit: ${MAX_DESCRIPTION_LENGTH} characters)`);
    }
    const key = name.toLowerCase();
    if (item.color !== undefined) colors.set(key, checkColor(`subscriptions[${i}][color]`, item.color));
    if (!seen.has(key)) seen.set(key, { name, description });
  });
  return { requested: [...seen.values()], colors };
}

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
    const user = me(ctx);
    const { shard, realm, params: p } = ctx;
    if (isGuest(user)) throw badRequest('Not allowed for guest users');
    const { kind, groups } = parseChannelOptions(realm, p);
    const { requested, colors } = parseRequested(p.subscriptions);

    const existing: StreamRecord[] = [];
    const missing: typeof requested = [];
    for (const r of requested) {
      const stream = realm.streamByName(r.name);
      if (stream) existing.push(stream);
      else missing.push(r);
    }
    if (missing.length > 0) checkCanCreateChannel(realm, user, kind);

    const targets = p.principals && p.principals.length > 0 ? resolvePrincipals(realm, p.principals) : [user];
    const others = targets.some((t) => t.id !== user.id);
    const { authorized, unauthorized, cannotAdd } = classifyForSubscribing(realm, user, existing, others);
    if (unauthorized.length > 0 && p.authorization_errors_fatal) throw badRequest(`Unable to access channel (${unauthorized[0].name}).`);
    if (cannotAdd.length > 0) throw insufficientPermission();

    const out = outbox(shard);
    const created = missing.map((r) =>
      createStream(shard, realm, out, { ...r, ...kind, historyPublicToSubscribers: p.history_public_to_subscribers ?? null, groups }, user),
    );
    const { subscribed, already } = addSubscriptions(shard, realm, out, [...authorized, ...created], targets, { colors });
    await flush(shard, realm, out);
    const result: Record<string, unknown> = { subscribed: byUser(subscribed), already_subscribed: byUser(already) };
    if (!p.authorization_errors_fatal) result.unauthorized = unauthorized.map((s) => s.name);
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
    const user = me(ctx);
    const { shard, realm, params: p } = ctx;
    const names = p.subscriptions.map(checkStreamName);
    const targets: UserRecord[] = p.principals && p.principals.length > 0 ? resolvePrincipals(realm, p.principals) : [user];
    const streams: StreamRecord[] = [];
    for (const name of names) {
      const stream = realm.streamByName(name);
      if (!stream || !hasMetadataAccess(realm, user, stream)) {
        throw new ApiError(`Channel '${name}' does not exist`, { code: 'STREAM_DOES_NOT_EXIST', data: { stream: name } });
      }
      if (!streams.includes(stream)) streams.push(stream);
    }
    if (targets.some((t) => !controlsUser(user, t)) && !canRemoveOthers(realm, user, streams)) throw insufficientPermission();

    const out = outbox(shard);
    const { removed, notSubscribed } = removeSubscriptions(shard, realm, out, streams, targets);
    await flush(shard, realm, out);
    return { removed: removed.map((r) => r.stream.name), not_removed: notSubscribed.map((r) => r.stream.name) };
  },
});

export const operations = {
  'subscriptions.list': list,
  'subscriptions.add': add,
  'subscriptions.remove': remove,
  ...propertyOperations,
};
