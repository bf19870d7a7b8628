import { registerRealmFields } from '../../model/realm-settings.js';
import { ROLE } from '../../model/types.js';
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../../version.js';
import { MAX_MESSAGE_LENGTH, MAX_TOPIC_LENGTH } from '../messages/send.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../messages/views.js';
import { me, type OpContext } from '../operation.js';
import { activeSubscriberIds, hasMetadataAccess, isAdmin } from '../streams/access.js';
import { MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH } from '../streams/checks.js';
import { streamView } from '../streams/views.js';
import { subscriptionView } from '../subscriptions/views.js';
import { avatarUrl, userView } from '../users/views.js';
import type { RegisterParams } from './index.js';
import type { EventQueue } from './queue.js';

/**
 * The initial state of POST /register, section by section. Each section is keyed by the event
 * type that keeps it up to date; with fetch_event_types (else event_types) only the sections
 * of those types are sent. Sections that nothing backs yet are sent in their empty shape.
 */
type Section = (ctx: OpContext<RegisterParams>, queue: EventQueue) => Record<string, unknown>;

const sections: Record<string, Section> = {
  // Always sent: what every client reads before anything else.
  '': (ctx) => ({
    zulip_version: ZULIP_VERSION,
    zulip_feature_level: ZULIP_FEATURE_LEVEL,
    zulip_merge_base: ZULIP_MERGE_BASE,
  }),

  message: (ctx) => ({ max_message_id: ctx.shard.messageIds.current() }),

  realm: (ctx) => ({
    ...registerRealmFields(ctx.realm, { url: ctx.shard.realmUrl(ctx.realm.realm) }),
    realm_empty_topic_display_name: EMPTY_TOPIC_DISPLAY_NAME,
    max_message_length: MAX_MESSAGE_LENGTH,
    max_topic_length: MAX_TOPIC_LENGTH,
    max_stream_name_length: MAX_NAME_LENGTH,
    max_stream_description_length: MAX_DESCRIPTION_LENGTH,
    max_channel_folder_name_length: 60,
    max_channel_folder_description_length: 1024,
    server_typing_started_expiry_period_milliseconds: 45000,
    server_typing_stopped_wait_period_milliseconds: 5000,
    server_typing_started_wait_period_milliseconds: 10000,
    server_presence_ping_interval_seconds: 60,
    server_presence_offline_threshold_seconds: 140,
    event_queue_longpoll_timeout_seconds: ctx.shard.config.heartbeatSeconds + 40,
    server_emoji_data_url: `${ctx.shard.realmUrl(ctx.realm.realm)}/static/generated/emoji/emoji_api.json`,
  }),

  realm_user: (ctx) => {
    const opts = { clientGravatar: ctx.params.client_gravatar };
    const users = [...ctx.realm.users.values()].filter((u) => !u.isBot).sort((a, b) => a.id - b.id);
    const self = me(ctx);
    return {
      realm_users: users.filter((u) => u.isActive).map((u) => userView(u, opts)),
      realm_non_active_users: users.filter((u) => !u.isActive).map((u) => userView(u, opts)),
      cross_realm_bots: [],
      user_id: self.id,
      email: self.email,
      delivery_email: self.email,
      full_name: self.fullName,
      avatar_source: self.avatarSource,
      avatar_url: avatarUrl(self, false),
      avatar_url_medium: avatarUrl(self, false),
      is_admin: isAdmin(self),
      is_owner: self.role === ROLE.owner,
      is_moderator: self.role <= ROLE.moderator,
      is_guest: self.role === ROLE.guest,
    };
  },

  realm_bot: (ctx) => ({ realm_bots: [] as unknown[], realm_embedded_bots: [], realm_incoming_webhook_bots: [] }),

  subscription: (ctx) => {
    const user = me(ctx);
    const { realm } = ctx;
    const withSubscribers = ctx.params.include_subscribers !== false;
    const subscribed = [...realm.subscriptionsOf(user.id).values()].map((sub) => {
      const stream = realm.streams.get(sub.streamId)!;
      return subscriptionView(realm, sub, stream, withSubscribers ? activeSubscriberIds(realm, stream.id) : undefined);
    });
    const never = [...realm.streams.values()]
      .filter((s) => !realm.subscription(user.id, s.id) && !s.isArchived && hasMetadataAccess(realm, user, s))
      .map((s) => ({ ...streamView(realm, s), ...(withSubscribers ? { subscribers: activeSubscriberIds(realm, s.id) } : {}) }));
    return { subscriptions: subscribed, unsubscribed: [], never_subscribed: never };
  },

  stream: (ctx) => {
    const user = me(ctx);
    const visible = [...ctx.realm.streams.values()].filter((s) => !s.isArchived && hasMetadataAccess(ctx.realm, user, s));
    return { streams: visible.map((s) => streamView(ctx.realm, s)) };
  },

  default_streams: (ctx) => ({
    realm_default_streams: [...ctx.realm.defaultStreamIds].filter((id) => ctx.realm.streams.get(id)?.isArchived === false).sort((a, b) => a - b),
  }),
};

/** The state for the sections the client asked for (all when it names none). */
export function initialState(ctx: OpContext<RegisterParams>, queue: EventQueue): Record<string, unknown> {
  const wanted = ctx.params.fetch_event_types ?? ctx.params.event_types;
  const out: Record<string, unknown> = {};
  for (const [type, section] of Object.entries(sections)) {
    if (type === '' || !wanted || wanted.includes(type)) Object.assign(out, section(ctx, queue));
  }
  return out;
}
