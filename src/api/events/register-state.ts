import { groupsView } from '../streams/default-groups.js';
import { domainsOf, domainView } from '../realm-domains/actions.js';
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../../lib/version.js';
import { me, type OpContext } from '../../api-kit/operation.js';
import { realmPresences } from '../presence/presence.js';
import type { RegisterParams } from './register-params.js';
import type { EventQueue } from './queue.js';
import { defaultStreamIds } from '../../model/default-streams.js';
import { streamSection, subscriptionSection } from './register-channels.js';
import { maxMessageId } from '../../store/messages.js';
import { recentPrivateConversations, starredMessages, unreadMsgs } from './register-messages.js';
import { realmBots, realmUserGroups, realmUserSection } from './register-people.js';
import { realmSection } from './register-realm.js';
import { legacyDisplaySettings, legacyNotificationSettings, userSettingsObject } from './register-settings.js';
import { linkifiersView } from '../linkifiers/views.js';
import { alertWordsSection } from '../alert-words/index.js';
import { mutedUsersSection } from '../muting/index.js';
import { customProfileFieldsSection } from '../profile-fields/views.js';
import { realmUserSettingsDefaults } from '../../model/user-settings.js';
import { userStatusSection } from '../user-status/views.js';
import { draftView, listDrafts, MAX_DRAFTS_IN_REGISTER } from '../drafts/actions.js';
import { listSnippets, snippetView } from '../saved-snippets/actions.js';
import { listViews, navigationView } from '../navigation-views/actions.js';
import { pendingScheduled, reminderView, scheduledView } from '../scheduled-messages/actions.js';
import { realmEmojiViews } from '../../model/realm-emoji.js';
import { mutedTopicsView, userTopicsView } from '../user-topics/views.js';
import { channelFoldersView } from '../channel-folders/views.js';
import { MAX_FOLDER_DESCRIPTION_LENGTH, MAX_FOLDER_NAME_LENGTH, usesChannelFolders } from '../../model/channel-folders.js';
import { playgroundsView } from '../playgrounds/views.js';
import { realmEmbeddedBots } from '../bots/embedded.js';
import { realmIncomingWebhookBots } from '../webhooks/registry.js';
import { stringifyWithRaw } from '../../lib/raw-json.js';
import { sharedFields } from './register-shared.js';

/**
 * The initial state of POST /register, section by section. Each section is sent when the client
 * asks for the event type(s) that keep it up to date, as the reference's fetch_initial_state_data
 * maps them; with neither fetch_event_types nor event_types, every section is sent. Sections
 * with nothing behind them yet (topic muting, ...) come in their empty shape.
 *
 * Everything here runs synchronously, in the same step of the shard's thread as the queue's
 * creation (events/index.ts): an event is either already reflected here or will be in the queue.
 */
interface Want {
  (type: string): boolean;
  /** No event types named: everything. */
  all: boolean;
}

type Ctx = OpContext<RegisterParams>;

interface Section {
  when: (want: Want, caps: Record<string, boolean>, ctx: Ctx) => boolean;
  build: (ctx: Ctx, caps: Record<string, boolean>, want: Want) => Record<string, unknown>;
  /**
   * For a section the same for every user of the realm (its build reads the realm, the shard's
   * config and the capabilities, never the user, the request or the time): the key of its copy
   * in register-shared.ts, naming every capability the build reads.
   */
  shared?: (caps: Record<string, boolean>) => string;
}

const on = (type: string) => (want: Want) => want(type);

/**
 * A list from feature levels after the 372 this server reports. A client of level 372 knows
 * nothing of it, and the reference's 10.2 schema forbids it in a register that names no types:
 * so it comes when asked for by name, or, in such a register, once it holds something.
 */
const later = (type: string, key: string, list: (ctx: Ctx) => unknown[]): Section => ({
  when: on(type),
  build: (ctx, _caps, want) => {
    const items = list(ctx);
    return want.all && items.length === 0 ? {} : { [key]: items };
  },
});

const sections: Section[] = [
  { when: on('alert_words'), build: (ctx) => ({ alert_words: alertWordsSection(ctx.realm, me(ctx)) }) },
  { when: on('custom_profile_fields'), shared: () => 'custom_profile_fields', build: (ctx) => customProfileFieldsSection(ctx.realm) },
  { when: on('onboarding_steps'), build: () => ({ onboarding_steps: [], navigation_tour_video_url: null }) },
  { when: on('message'), build: (ctx) => ({ max_message_id: maxMessageId(ctx.shard, ctx.realm, me(ctx).id) }) },
  { when: on('drafts'), build: (ctx) => ({ drafts: listDrafts(ctx.shard, ctx.realm, me(ctx).id, 'desc', MAX_DRAFTS_IN_REGISTER).map(draftView) }) },
  { when: on('scheduled_messages'), build: (ctx) => ({ scheduled_messages: pendingScheduled(ctx.shard, ctx.realm, me(ctx).id, 'send_later').map(scheduledView) }) },
  // Feature level 399.
  later('reminders', 'reminders', (ctx) => pendingScheduled(ctx.shard, ctx.realm, me(ctx).id, 'remind').map(reminderView)),
  // The legacy list is left out for clients that ask for its replacement, user_topic.
  { when: (want) => want('muted_topics') && (want.all || !want('user_topic')), build: (ctx, caps) => ({ muted_topics: mutedTopicsView(ctx.realm, me(ctx).id, caps.empty_topic_name) }) },
  { when: on('muted_users'), build: (ctx) => ({ muted_users: mutedUsersSection(ctx.realm, me(ctx)) }) },
  {
    when: on('presence'),
    build: (ctx) => {
      const { presences, lastUpdateId } = realmPresences(ctx.shard, ctx.realm, { slim: ctx.params.slim_presence, historyLimitDays: ctx.params.presence_history_limit_days });
      return { presences, server_timestamp: Date.now() / 1000, presence_last_update_id: lastUpdateId };
    },
  },
  // Feature level 390.
  later('navigation_view', 'navigation_views', (ctx) => listViews(ctx.shard, ctx.realm, me(ctx).id).map(navigationView)),
  { when: on('saved_snippets'), build: (ctx) => ({ saved_snippets: listSnippets(ctx.shard, ctx.realm, me(ctx).id).map(snippetView) }) },
  { when: on('realm'), shared: () => 'realm', build: (ctx) => realmSection(ctx.shard, ctx.realm, { longpollTimeoutSecs: ctx.shard.config.heartbeatSeconds + 40 }) },
  { when: on('realm_user_settings_defaults'), shared: () => 'realm_user_settings_defaults', build: (ctx) => ({ realm_user_settings_defaults: realmUserSettingsDefaults(ctx.realm.realm) }) },
  { when: on('realm_domains'), shared: () => 'realm_domains', build: (ctx) => ({ realm_domains: domainsOf(ctx.realm).map(domainView) }) },
  { when: on('realm_emoji'), shared: () => 'realm_emoji', build: (ctx) => ({ realm_emoji: realmEmojiViews(ctx.realm) }) },
  // Clients without linkifier_url_template cannot read templates: the reference sends them none.
  { when: on('realm_linkifiers'), shared: (caps) => `realm_linkifiers:${caps.linkifier_url_template}`, build: (ctx, caps) => ({ realm_linkifiers: caps.linkifier_url_template ? linkifiersView(ctx.realm) : [] }) },
  { when: on('realm_filters'), build: () => ({ realm_filters: [] }) },
  { when: on('realm_playgrounds'), shared: () => 'realm_playgrounds', build: (ctx) => ({ realm_playgrounds: playgroundsView(ctx.realm) }) },
  { when: on('realm_user_groups'), shared: (caps) => `realm_user_groups:${caps.include_deactivated_groups}`, build: (ctx, caps) => ({ realm_user_groups: realmUserGroups(ctx.realm, caps.include_deactivated_groups) }) },
  { when: on('realm_user'), build: (ctx, caps) => realmUserSection(ctx.shard, ctx.realm, me(ctx), ctx.params.client_gravatar, caps.user_list_incomplete) },
  { when: on('realm_bot'), build: (ctx) => ({ realm_bots: realmBots(ctx.realm, me(ctx)) }) },
  { when: on('realm_embedded_bots'), shared: () => 'realm_embedded_bots', build: () => ({ realm_embedded_bots: realmEmbeddedBots() }) },
  { when: on('realm_incoming_webhook_bots'), shared: () => 'realm_incoming_webhook_bots', build: () => ({ realm_incoming_webhook_bots: realmIncomingWebhookBots() }) },
  { when: on('recent_private_conversations'), build: (ctx) => ({ recent_private_conversations: recentPrivateConversations(ctx.shard, ctx.realm, me(ctx).id) }) },
  {
    when: on('subscription'),
    build: (ctx, caps) =>
      subscriptionSection(ctx.shard, ctx.realm, me(ctx), {
        includeSubscribers: ctx.params.include_subscribers,
        archived: caps.archived_channels,
        notificationSettingsNull: caps.notification_settings_null,
      }),
  },
  // Keeping unread_msgs current takes both the message events and the flag changes.
  { when: (want) => want('update_message_flags') && want('message'), build: (ctx, caps) => ({ unread_msgs: unreadMsgs(ctx.shard, ctx.realm, me(ctx), caps.empty_topic_name) }) },
  { when: on('starred_messages'), build: (ctx) => ({ starred_messages: starredMessages(ctx.shard, ctx.realm, me(ctx).id) }) },
  { when: on('stream'), build: (ctx, caps) => streamSection(ctx.realm, me(ctx), caps.archived_channels) },
  { when: on('default_streams'), build: (ctx) => ({ realm_default_streams: defaultStreamIds(ctx.realm, me(ctx)) }) },
  { when: on('default_stream_groups'), build: (ctx) => ({ realm_default_stream_groups: groupsView(ctx.realm, me(ctx)) }) },
  // Feature levels 389 and 410. The reference asks for `channel_folders`, though its event is
  // channel_folder. A realm's folders are archived, never deleted: once it has one, it keeps them.
  later('channel_folders', 'channel_folders', (ctx) => channelFoldersView(ctx.realm, true)),
  // The folder limits (level 410) belong to the realm section, but a client that names only
  // `realm` may be of level 372: they come with the folders, named or in use.
  {
    when: (want, _caps, ctx) => (want.all ? usesChannelFolders(ctx.realm) : want('channel_folders') || (want('realm') && usesChannelFolders(ctx.realm))),
    build: () => ({ max_channel_folder_name_length: MAX_FOLDER_NAME_LENGTH, max_channel_folder_description_length: MAX_FOLDER_DESCRIPTION_LENGTH }),
  },
  // Search has no stop words: every word of a query counts.
  { when: on('stop_words'), build: () => ({ stop_words: [] }) },
  { when: (want, caps) => want('update_display_settings') && !caps.user_settings_object, build: (ctx) => legacyDisplaySettings(me(ctx)) },
  { when: (want, caps) => want('update_global_notifications') && !caps.user_settings_object, build: (ctx) => legacyNotificationSettings(me(ctx)) },
  { when: on('user_settings'), build: (ctx) => ({ user_settings: userSettingsObject(me(ctx)) }) },
  { when: on('user_status'), build: (ctx) => ({ user_status: userStatusSection(ctx.shard, ctx.realm, me(ctx)) }) },
  { when: on('user_topic'), build: (ctx, caps) => ({ user_topics: userTopicsView(ctx.realm, me(ctx).id, caps.empty_topic_name) }) },
  { when: on('video_calls'), build: () => ({ has_zoom_token: false }) },
  { when: on('giphy'), build: () => ({ giphy_api_key: '' }) },
];

/**
 * The state for the sections the client asked for (all when it names none). Sections the same
 * for every user come as their realm's serialised copy (RawFields, register-shared.ts); with
 * the config's registerCacheCheck (tests), every such copy is built afresh too and the whole
 * state, serialised both ways, must be the same text.
 */
export function initialState(ctx: Ctx, queue: EventQueue): Record<string, unknown> {
  const named = ctx.params.fetch_event_types ?? ctx.params.event_types;
  const types = named ? new Set(named) : null;
  const want = Object.assign((type: string) => types === null || types.has(type), { all: types === null });
  const caps = queue.opts.capabilities;
  const check = ctx.shard.config.registerCacheCheck === true;
  // Shown whatever was asked: what every client reads before anything else.
  const out: Record<string, unknown> = { zulip_version: ZULIP_VERSION, zulip_feature_level: ZULIP_FEATURE_LEVEL, zulip_merge_base: ZULIP_MERGE_BASE };
  const fresh: Record<string, unknown> | null = check ? { ...out } : null;
  for (const section of sections) {
    if (!section.when(want, caps, ctx)) continue;
    if (section.shared) {
      const key = section.shared(caps);
      out[`\0${key}`] = sharedFields(ctx.shard, ctx.realm, key, () => section.build(ctx, caps, want));
      if (fresh) Object.assign(fresh, section.build(ctx, caps, want));
      continue;
    }
    const part = section.build(ctx, caps, want);
    Object.assign(out, part);
    if (fresh) Object.assign(fresh, part);
  }
  if (fresh) {
    const cached = stringifyWithRaw(out);
    const built = stringifyWithRaw(fresh);
    if (cached !== built) throw new Error(`register's shared sections differ from a fresh build at ${firstDifference(cached, built)}`);
  }
  return out;
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `${i}: ${a.slice(Math.max(0, i - 80), i + 80)} / ${b.slice(Math.max(0, i - 80), i + 80)}`;
}
