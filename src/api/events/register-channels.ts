import type { RealmState } from '../../model/realm-state.js';
import type { StreamRecord, SubscriptionRecord, UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { recentlyPresentUserIds } from '../presence/presence.js';
import { activeSubscriberIds, hasMetadataAccess } from '../streams/access.js';
import { streamView } from '../streams/views.js';
import { subscriptionView } from '../subscriptions/views.js';
import { userSetting } from '../../model/user-settings.js';

/** The channel sections of /register: subscription, stream and default_streams. */

export interface ChannelOptions {
  includeSubscribers: boolean | 'partial';
  /** client_capabilities.archived_channels: archived channels are listed too. */
  archived: boolean;
  /** client_capabilities.notification_settings_null: null means "inherit", sent as is. */
  notificationSettingsNull: boolean;
}

/**
 * With include_subscribers=partial, channels with at least this many subscribers get a
 * `partial_subscribers` list instead (feature level 412): the bots and the users seen in the
 * last PARTIAL_ACTIVE_DAYS days, which is what the reference guarantees such a list holds.
 */
const PARTIAL_SUBSCRIBERS_MIN = 250;
const PARTIAL_ACTIVE_DAYS = 14;

const byName = (a: StreamRecord, b: StreamRecord) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The subscriber fields of one channel, as include_subscribers asks. */
function subscriberFields(shard: Shard, realm: RealmState, self: UserRecord, stream: StreamRecord, opts: ChannelOptions, recent: () => Set<number>): Record<string, number[]> {
  if (opts.includeSubscribers === false) return {};
  const ids = activeSubscriberIds(realm, stream.id);
  if (opts.includeSubscribers === true || ids.length < PARTIAL_SUBSCRIBERS_MIN) return { subscribers: ids };
  const present = recent();
  return { partial_subscribers: ids.filter((id) => id === self.id || realm.users.get(id)?.isBot || present.has(id)) };
}

/** Clients without notification_settings_null get the user's own setting where a channel inherits it. */
export const INHERITED_NOTIFICATIONS = ['desktop_notifications', 'audible_notifications', 'push_notifications', 'email_notifications'];

/**
 * subscriptions, unsubscribed (channels left and still visible, with the settings they had) and never_subscribed,
 * each sorted by name.
 */
export function subscriptionSection(shard: Shard, realm: RealmState, self: UserRecord, opts: ChannelOptions): Record<string, unknown> {
  let recentCache: Set<number> | null = null;
  const recent = () => (recentCache ??= recentlyPresentUserIds(shard, realm, PARTIAL_ACTIVE_DAYS));
  const listed = (s: StreamRecord | undefined): s is StreamRecord => !!s && (opts.archived || !s.isArchived);
  const subscribed: Record<string, unknown>[] = [];
  const subs = [...realm.subscriptionsOf(self.id).values()];
  const streams = subs.map((sub) => realm.streams.get(sub.streamId)).filter(listed).sort(byName);
  const view = (sub: SubscriptionRecord, stream: StreamRecord) => {
    const out = subscriptionView(realm, sub, stream);
    Object.assign(out, subscriberFields(shard, realm, self, stream, opts, recent));
    if (!opts.notificationSettingsNull) {
      for (const name of INHERITED_NOTIFICATIONS) if (out[name] === null) out[name] = userSetting(self, `enable_stream_${name}`);
    }
    return out;
  };
  for (const stream of streams) subscribed.push(view(realm.subscription(self.id, stream.id)!, stream));
  const former = [...(realm.formerSubs.get(self.id)?.values() ?? [])];
  // As the reference's has_metadata_access_to_previously_subscribed_stream: a channel one can no
  // longer see (a private one, or any non-web-public one for a guest) is not remembered; leaving
  // it sent a stream delete event, and no later event about it reaches the user.
  const left = former
    .map((sub) => realm.streams.get(sub.streamId))
    .filter((s): s is StreamRecord => listed(s) && hasMetadataAccess(realm, self, s))
    .sort(byName);
  const unsubscribed = left.map((stream) => view(realm.formerSubscription(self.id, stream.id)!, stream));
  const never = [...realm.streams.values()]
    .filter((s) => listed(s) && !realm.subscription(self.id, s.id) && !realm.formerSubscription(self.id, s.id) && hasMetadataAccess(realm, self, s))
    .sort(byName)
    .map((s) => ({ ...streamView(realm, s), ...subscriberFields(shard, realm, self, s, opts, recent) }));
  return { subscriptions: subscribed, unsubscribed, never_subscribed: never };
}

/** streams: every channel the user can see exists (all of them for administrators), by name. */
export function streamSection(realm: RealmState, self: UserRecord, archived: boolean): Record<string, unknown> {
  const visible = [...realm.streams.values()].filter((s) => (archived || !s.isArchived) && hasMetadataAccess(realm, self, s)).sort(byName);
  return { streams: visible.map((s) => streamView(realm, s)) };
}
