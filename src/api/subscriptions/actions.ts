import type { RealmState } from '../../model/realm-state.js';
import { closeInterval, openInterval } from '../../model/sub-history.js';
import type { StreamRecord, SubscriptionRecord, UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { activeSubscriberIds, hasMetadataAccess, isAdmin, metadataUserIds } from '../streams/access.js';
import { flush, outbox, queueEvent, type Outbox } from '../../shard/outbox.js';
import { streamView } from '../streams/views.js';
import { subscriptionView } from './views.js';
import { AccessWatch } from '../users/access-events.js';

/** The reference's palette for new subscriptions. */
export const STREAM_COLORS = [
  '#76ce90', '#fae589', '#a6c7e5', '#e79ab5', '#bfd56f', '#f4ae55', '#b0a5fd', '#addfe5',
  '#f5ce6e', '#c2726a', '#94c849', '#bd86e5', '#ee7e4a', '#a6dcbf', '#95a5fd', '#53a063',
  '#9987e1', '#e4523d', '#c2c2c2', '#4f8de4', '#c6a8ad', '#e7cc4d', '#c8bebf', '#a47462',
];

/**
 * Colors for a user's new subscriptions, as the reference picks them: requested colors first,
 * then palette colors the user does not use yet, then the palette again by channel id.
 */
function pickColors(realm: RealmState, userId: number, streams: StreamRecord[], requested: Map<string, string>): Map<number, string> {
  const used = new Set([...realm.subscriptionsOf(userId).values()].map((s) => s.color));
  const out = new Map<number, string>();
  const rest: StreamRecord[] = [];
  for (const stream of [...streams].sort((a, b) => a.id - b.id)) {
    const color = requested.get(stream.name.toLowerCase());
    if (color) {
      out.set(stream.id, color);
      used.add(color);
    } else rest.push(stream);
  }
  const free = STREAM_COLORS.filter((c) => !used.has(c));
  rest.forEach((stream, i) => out.set(stream.id, free[i] ?? STREAM_COLORS[stream.id % STREAM_COLORS.length]));
  return out;
}

export type SubPair = { user: UserRecord; stream: StreamRecord };

export interface AddOptions {
  /** Lower-cased channel name -> requested color. */
  colors?: Map<string, string>;
  /** A new account has no event queues yet: only other users are told (peer_add). */
  fromUserCreation?: boolean;
}

/**
 * Subscribes users to channels: state and writes now, events queued on the outbox. The caller has
 * checked the permissions. Events, in the reference's order: stream create to users who could not
 * see a channel before (guests, private channels), subscription add to each subscriber, and
 * peer_add to the others who can see the channel's subscribers.
 */
export function addSubscriptions(shard: Shard, realm: RealmState, out: Outbox, streams: StreamRecord[], users: UserRecord[], opts: AddOptions = {}): { subscribed: SubPair[]; already: SubPair[] } {
  const subscribed: SubPair[] = [];
  const already: SubPair[] = [];
  const newlyVisible: SubPair[] = [];
  const access = AccessWatch.forSubscriptions(shard, realm, users, streams.map((s) => s.id));
  for (const user of users) {
    const fresh = streams.filter((s) => !realm.subscription(user.id, s.id));
    for (const stream of streams) if (!fresh.includes(stream)) already.push({ user, stream });
    const colors = pickColors(realm, user.id, fresh, opts.colors ?? new Map());
    for (const stream of fresh) {
      if (!hasMetadataAccess(realm, user, stream)) newlyVisible.push({ user, stream });
      const sub: SubscriptionRecord = {
        userId: user.id,
        streamId: stream.id,
        color: colors.get(stream.id)!,
        isMuted: false,
        pinToTop: false,
        desktopNotifications: null,
        audibleNotifications: null,
        pushNotifications: null,
        emailNotifications: null,
        wildcardMentionsNotify: null,
        // Back in a channel left before: its settings come back with it, as in the reference.
        ...realm.formerSubscription(user.id, stream.id),
      };
      if (realm.formerSubscription(user.id, stream.id)) {
        realm.setFormerSubscription(undefined, user.id, stream.id);
        out.batch.del(shard.store.formerSubs, [realm.id, user.id, stream.id]);
      }
      realm.setSubscription(sub);
      out.batch.put(shard.store.subs, [realm.id, user.id, stream.id], sub);
      openInterval(shard, out.batch, realm, user.id, stream.id);
      subscribed.push({ user, stream });
    }
  }
  if (subscribed.length === 0) return { subscribed, already };

  // Guests meet the channels' subscribers (and they the guest) before any event names them.
  access?.send((event, ids) => queueEvent(out, event, ids));
  if (!opts.fromUserCreation) {
    for (const { user, stream } of newlyVisible) queueEvent(out, { type: 'stream', op: 'create', streams: [streamView(realm, stream)] }, [user.id]);
    for (const user of users) {
      const mine = subscribed.filter((p) => p.user === user);
      if (mine.length === 0) continue;
      const subs = mine.map(({ stream }) => subscriptionView(realm, realm.subscription(user.id, stream.id)!, stream, activeSubscriberIds(realm, stream.id)));
      queueEvent(out, { type: 'subscription', op: 'add', subscriptions: subs }, [user.id]);
    }
  }
  queuePeerEvents(realm, out, 'peer_add', subscribed);
  return { subscribed, already };
}

/** One peer event per channel, to who can see its subscribers, naming the users who changed. */
export function queuePeerEvents(realm: RealmState, out: Outbox, op: 'peer_add' | 'peer_remove', pairs: SubPair[]): void {
  const byStream = new Map<StreamRecord, Set<number>>();
  for (const { user, stream } of pairs) {
    if (!user.isActive) continue;
    let set = byStream.get(stream);
    if (!set) byStream.set(stream, (set = new Set()));
    set.add(user.id);
  }
  for (const [stream, changed] of byStream) {
    const peers = metadataUserIds(realm, stream).filter((id) => !changed.has(id));
    queueEvent(out, { type: 'subscription', op, stream_ids: [stream.id], user_ids: [...changed].sort((a, b) => a - b) }, peers);
  }
}

/**
 * Unsubscribes users from channels: subscription remove to each, stream delete to those who can
 * no longer see a channel (unsubscribed from a private one), and peer_remove to the others.
 */
export function removeSubscriptions(shard: Shard, realm: RealmState, out: Outbox, streams: StreamRecord[], users: UserRecord[]): { removed: SubPair[]; notSubscribed: SubPair[] } {
  const removed: SubPair[] = [];
  const notSubscribed: SubPair[] = [];
  const access = AccessWatch.forSubscriptions(shard, realm, users, streams.map((s) => s.id));
  for (const user of users) {
    for (const stream of streams) {
      if (!realm.subscription(user.id, stream.id)) {
        notSubscribed.push({ user, stream });
        continue;
      }
      const former = realm.subscription(user.id, stream.id)!;
      realm.removeSubscription(user.id, stream.id);
      out.batch.del(shard.store.subs, [realm.id, user.id, stream.id]);
      realm.setFormerSubscription(former, user.id, stream.id);
      out.batch.put(shard.store.formerSubs, [realm.id, user.id, stream.id], former);
      closeInterval(shard, out.batch, realm, user.id, stream.id);
      removed.push({ user, stream });
    }
  }
  for (const user of users) {
    const mine = removed.filter((p) => p.user === user).map((p) => p.stream);
    if (mine.length === 0) continue;
    queueEvent(out, { type: 'subscription', op: 'remove', subscriptions: mine.map((s) => ({ name: s.name, stream_id: s.id })) }, [user.id]);
    const lost = isAdmin(user) ? [] : mine.filter((s) => !hasMetadataAccess(realm, user, s));
    if (lost.length > 0) {
      queueEvent(out, { type: 'stream', op: 'delete', streams: lost.map((s) => ({ stream_id: s.id })), stream_ids: lost.map((s) => s.id) }, [user.id]);
    }
  }
  queuePeerEvents(realm, out, 'peer_remove', removed);
  // As the reference orders them: the subscription events, then realm_user remove to guests who
  // no longer share anything with a user.
  access?.send((event, ids) => queueEvent(out, event, ids));
  return { removed, notSubscribed };
}

/** The realm's default channels a new user joins (archived ones no longer count). */
export function defaultChannels(realm: RealmState): StreamRecord[] {
  return [...realm.defaultStreamIds].map((id) => realm.streams.get(id)!).filter((s) => !s.isArchived);
}

/**
 * Subscribes a new user to the realm's default channels. Safe to call again: channels the user
 * is subscribed to already are left alone.
 */
export async function subscribeToDefaultChannels(shard: Shard, realm: RealmState, user: UserRecord): Promise<void> {
  const streams = defaultChannels(realm);
  if (streams.length === 0) return;
  const out = outbox(shard);
  addSubscriptions(shard, realm, out, streams, [user], { fromUserCreation: true });
  await flush(shard, realm, out);
}
