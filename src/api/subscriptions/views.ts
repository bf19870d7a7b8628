import type { RealmState } from '../../model/realm-state.js';
import type { StreamRecord, SubscriptionRecord } from '../../model/types.js';
import { streamView } from '../streams/views.js';

/**
 * A subscription as GET /users/me/subscriptions and subscription add events show it (the
 * reference's Subscription): the channel's fields plus the user's own settings. `subscribers` is
 * included when given.
 */
/** A subscription's own properties by their reference names (the API's, and the export's columns). */
export function subscriptionProperties(sub: SubscriptionRecord): Record<string, unknown> {
  return {
    color: sub.color,
    is_muted: sub.isMuted,
    pin_to_top: sub.pinToTop,
    desktop_notifications: sub.desktopNotifications,
    audible_notifications: sub.audibleNotifications,
    push_notifications: sub.pushNotifications,
    email_notifications: sub.emailNotifications,
    wildcard_mentions_notify: sub.wildcardMentionsNotify,
  };
}

export function subscriptionView(realm: RealmState, sub: SubscriptionRecord, stream: StreamRecord, subscribers?: number[]): Record<string, unknown> {
  const view: Record<string, unknown> = {
    ...streamView(realm, stream),
    ...subscriptionProperties(sub),
    // Deprecated inverse of is_muted, still read by older clients.
    in_home_view: !sub.isMuted,
  };
  if (subscribers) view.subscribers = subscribers;
  return view;
}
