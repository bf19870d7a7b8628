import { badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { SubscriptionRecord, UserRecord } from '../../model/types.js';
import { flush, outbox, queueEvent, type Outbox } from '../../shard/outbox.js';
import type { Shard } from '../../shard/shard.js';
import { me, operation } from '../../api-kit/operation.js';
import { hasContentAccess } from '../streams/access.js';
import { checkColor } from './checks.js';

/** API property -> the record field it sets. in_home_view is the inverse of is_muted. */
const BOOLEAN_FIELDS = {
  is_muted: 'isMuted',
  in_home_view: 'isMuted',
  pin_to_top: 'pinToTop',
  desktop_notifications: 'desktopNotifications',
  audible_notifications: 'audibleNotifications',
  push_notifications: 'pushNotifications',
  email_notifications: 'emailNotifications',
  wildcard_mentions_notify: 'wildcardMentionsNotify',
} as const satisfies Record<string, keyof SubscriptionRecord>;

export interface PropertyChange {
  stream_id: number;
  property: string;
  value: unknown;
}

/** The value a change stores, checked as the reference's SubscriptionPropertyChangeRequest does. */
function checkValue(change: PropertyChange): string | boolean {
  const { property, value } = change;
  if (property === 'color') {
    if (typeof value !== 'string') throw badRequest('color is not a string');
    return checkColor('color', value);
  }
  if (!(property in BOOLEAN_FIELDS)) throw badRequest(`Unknown subscription property: ${property}`);
  if (typeof value !== 'boolean') throw badRequest(`${property} is not a boolean`);
  return value;
}

/**
 * The user's subscription a change applies to. A channel the user cannot read is reported as
 * invalid, so ids do not reveal private channels; archived channels' subscriptions can be
 * changed (feature level 362).
 */
function accessSubscription(realm: RealmState, user: UserRecord, streamId: number): SubscriptionRecord {
  const stream = realm.streams.get(streamId);
  const sub = realm.subscription(user.id, streamId);
  if (!stream || (!sub && !hasContentAccess(realm, user, stream))) throw badRequest('Invalid channel ID');
  if (!sub) throw badRequest(`Not subscribed to channel ID ${streamId}`);
  return sub;
}

/**
 * Changes one subscription property and queues its events. is_muted and in_home_view give two
 * events, in_home_view first (feature level 139), whichever of them was set.
 */
export function changeSubscriptionProperty(shard: Shard, realm: RealmState, out: Outbox, sub: SubscriptionRecord, property: string, value: string | boolean): void {
  const next: SubscriptionRecord = { ...sub };
  if (property === 'color') next.color = value as string;
  else {
    const field = BOOLEAN_FIELDS[property as keyof typeof BOOLEAN_FIELDS];
    (next[field] as boolean) = property === 'in_home_view' ? !value : (value as boolean);
  }
  realm.setSubscription(next);
  out.batch.put(shard.store.subs, [realm.id, sub.userId, sub.streamId], next);
  const update = (name: string, v: unknown) => queueEvent(out, { type: 'subscription', op: 'update', property: name, value: v, stream_id: sub.streamId }, [sub.userId]);
  if (property === 'is_muted' || property === 'in_home_view') {
    update('in_home_view', !next.isMuted);
    update('is_muted', next.isMuted);
  } else update(property, value);
}

/**
 * POST /users/me/subscriptions/properties. Every change is checked before any is made, and all
 * are committed together (the reference commits them one by one, so an error half-way leaves
 * the earlier ones made).
 */
const updateProperties = operation<{ subscription_data: PropertyChange[] }>({
  auth: 'user',
  params: {
    properties: {
      subscription_data: {
        type: 'array',
        items: { type: 'object', required: ['stream_id', 'property', 'value'], properties: { stream_id: { type: 'integer' }, property: { type: 'string' } } },
      },
    },
    required: ['subscription_data'],
  },
  handler: async (ctx) => {
    const user = me(ctx);
    const { shard, realm } = ctx;
    const values = ctx.params.subscription_data.map(checkValue);
    const subs = ctx.params.subscription_data.map((c) => accessSubscription(realm, user, c.stream_id));
    const out = outbox(shard);
    ctx.params.subscription_data.forEach((change, i) => {
      // A second change of one channel applies to the first one's result.
      const current = realm.subscription(user.id, subs[i].streamId)!;
      changeSubscriptionProperty(shard, realm, out, current, change.property, values[i]);
    });
    await flush(shard, realm, out);
    return {};
  },
});

export const operations = {
  'subscriptions.updateProperties': updateProperties,
};
