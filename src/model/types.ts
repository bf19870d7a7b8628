/** Stored records. Field names are ours; the views in src/api/<resource>/ give the reference shapes. */

export const ROLE = { owner: 100, administrator: 200, moderator: 300, member: 400, guest: 600 } as const;
export type Role = (typeof ROLE)[keyof typeof ROLE];
export const ROLES: readonly number[] = Object.values(ROLE);

/** Bot types, as the reference numbers them. */
export const BOT_TYPE = { generic: 1, incomingWebhook: 2, outgoingWebhook: 3, embedded: 4 } as const;

/** The reference's address for its Notification Bot, which each realm's system bot keeps. */
export const NOTIFICATION_BOT_EMAIL = 'notification-bot@zulip.com';

export interface RealmRecord {
  id: number;
  /** '' for the root realm, answering at the external host itself. */
  subdomain: string;
  name: string;
  description: string;
  dateCreated: number;
  deactivated: boolean;
  /** Realm settings by their reference names (realm_ prefix dropped); see model/realm-settings.ts. */
  settings: Record<string, unknown>;
  /** Realm linkifiers in the order they apply (api/linkifiers/); absent until the first is added. */
  linkifiers?: { id: number; pattern: string; urlTemplate: string }[];
  /** Code playgrounds by id (api/playgrounds/); absent until the first is added. */
  playgrounds?: { id: number; name: string; pygmentsLanguage: string; urlTemplate: string }[];
  /**
   * The realm's defaults for new users (PATCH /realm/user_settings_defaults), by setting name:
   * only those that differ from the server's (api/user-defaults/); absent until one is changed.
   */
  userSettingsDefaults?: Record<string, unknown>;
  /**
   * Default channel groups (api/default-streams/groups.ts): named sets of channels offered
   * together to people joining; absent until the first is made.
   */
  defaultChannelGroups?: { id: number; name: string; description: string; streamIds: number[] }[];
  /**
   * The domains whose addresses may join when emails_restricted_to_domains is on
   * (api/realm-domains/); absent until the first is added.
   */
  domains?: { id: number; domain: string; allowSubdomains: boolean }[];
  /**
   * How many times the uploaded icon, logo and night logo changed (api/realm-images/): their
   * URLs carry it, so clients fetch a new image. Which is in use is settings.icon_source etc.
   */
  imageVersions?: Partial<Record<RealmImage, number>>;
}

/** The organization's images an administrator uploads. */
export type RealmImage = 'icon' | 'logo' | 'night_logo';

/**
 * A custom (realm) emoji: the reference's RealmEmoji. Deactivating keeps the row (old messages
 * and reactions still show it); the image bytes live in the `emojiImages` table under the file
 * names below (api/emoji/).
 */
export interface RealmEmojiRecord {
  id: number;
  realmId: number;
  name: string;
  authorId: number | null;
  /** `<8 random hex><ext>`: the image is served at /user_avatars/<realmId>/emoji/images/<fileName>. */
  fileName: string;
  contentType: string;
  isAnimated: boolean;
  /** For animated emoji: the first frame, served under .../emoji/images/still/<stillFileName>. */
  stillFileName: string | null;
  deactivated: boolean;
  /** Milliseconds. */
  dateCreated: number;
}

export interface UserRecord {
  id: number;
  realmId: number;
  email: string;
  fullName: string;
  role: Role;
  isBot: boolean;
  botType: number | null;
  botOwnerId: number | null;
  /**
   * A bot the server itself runs (Notification Bot): listed in cross_realm_bots, never in
   * realm_users, GET /users, groups or subscriber lists, and not managed by administrators.
   */
  isSystemBot?: boolean;
  isActive: boolean;
  timezone: string;
  /** Seconds. */
  dateJoined: number;
  avatarSource: 'G' | 'U';
  avatarVersion: number;
  /**
   * Random hex naming an uploaded avatar's files (store/avatars.ts), new with each upload, so
   * that avatar URLs can be neither guessed nor enumerated (the reference salts a hash).
   */
  avatarKey?: string;
  apiKey: string;
  passwordHash: string | null;
  /** Personal settings that differ from the realm's defaults for new users. */
  settings: Record<string, unknown>;
  /**
   * Custom profile field values by field id (api/profile-fields/): the value as the API shows it
   * (text; a user list as JSON text) and, for the text types, its rendered HTML.
   */
  profileData?: Record<string, { value: string; rendered?: string }>;
  /** A bot's own settings (api/bots/); absent for humans and system bots. */
  bot?: BotProfile;
}

/** Outgoing webhook interfaces, as the reference numbers them (its Service.interface). */
export const BOT_INTERFACE = { generic: 1, slack: 2 } as const;

/** What the reference keeps on a bot beyond a user's fields: default channels and its service. */
export interface BotProfile {
  defaultSendingStreamId: number | null;
  defaultEventsRegisterStreamId: number | null;
  defaultAllPublicStreams: boolean;
  /**
   * Outgoing webhook bots: where messages are posted and the token that authenticates them;
   * embedded bots: which bot runs (name) with baseUrl '' (the reference's Service row).
   */
  service?: { name: string; baseUrl: string; interface: number; token: string };
  /** Incoming webhook and embedded bots: configuration strings (the reference's BotConfigData). */
  config?: Record<string, string>;
}

export interface StreamRecord {
  id: number;
  realmId: number;
  name: string;
  description: string;
  renderedDescription: string;
  inviteOnly: boolean;
  historyPublicToSubscribers: boolean;
  isWebPublic: boolean;
  isArchived: boolean;
  /** A realm default channel: new users are subscribed to it (the reference's DefaultStream). */
  isDefault: boolean;
  /** Seconds. */
  dateCreated: number;
  creatorId: number | null;
  /** null: the realm's setting; -1: forever. */
  messageRetentionDays: number | null;
  /**
   * The channel's permission group settings by reference name (can_add_subscribers_group,
   * can_administer_channel_group, can_remove_subscribers_group, can_send_message_group,
   * can_subscribe_group): a group id, or an anonymous group stored inline.
   */
  groups: Record<string, GroupSetting>;
  /**
   * The reference's first_message_id: set by the channel's first message, reset when that
   * message is deleted; null while the channel has none. Not stored by older versions (the
   * shard derives it at load).
   */
  firstMessageId?: number | null;
  /** The channel folder it is in (api/channel-folders/); absent or null: none. */
  folderId?: number | null;
}

/** One user's subscription to one channel; deleted on unsubscribe. */
export interface SubscriptionRecord {
  userId: number;
  streamId: number;
  /** '#rrggbb'. */
  color: string;
  isMuted: boolean;
  pinToTop: boolean;
  /** null: inherit the user's setting (enable_stream_desktop_notifications, ...). */
  desktopNotifications: boolean | null;
  audibleNotifications: boolean | null;
  pushNotifications: boolean | null;
  emailNotifications: boolean | null;
  wildcardMentionsNotify: boolean | null;
}

/** A permission setting names a group, or an anonymous group of users and subgroups. */
export type GroupSetting = number | { direct_members: number[]; direct_subgroups: number[] };

export interface GroupRecord {
  id: number;
  name: string;
  description: string;
  isSystemGroup: boolean;
  /** Direct members; for role groups these are derived from roles and not stored. */
  members: number[];
  subgroups: number[];
  dateCreated: number | null;
  creatorId: number | null;
  deactivated: boolean;
  settings: Record<string, GroupSetting>;
}

/**
 * A mobile push device token, stored under [realmId, userId, kind, token] (store/shard-store.ts;
 * a token too long for an LMDB key is keyed by its digest, see api/devices/actions.ts).
 * Tokens are per user: two users may register the same token, each removes only their own.
 */
export interface DeviceRecord {
  userId: number;
  kind: 'apns' | 'gcm';
  token: string;
  /** The iOS app's bundle id; required for APNs since feature level 223, null for FCM. */
  appid: string | null;
  /** Seconds. */
  dateCreated: number;
  /** Seconds; bumped when the device registers the same token again. */
  lastUpdated: number;
}

/** A realm's custom profile field (api/profile-fields/), stored under [realmId, fieldId]. */
export interface ProfileFieldRecord {
  id: number;
  name: string;
  hint: string;
  /** The reference's numbering: 1 short text, 2 long text, 3 list of options, 4 date, 5 link, 6 users, 7 external account, 8 pronouns. */
  type: number;
  /** JSON text: a list of options' choices, an external account's subtype (and URL pattern); '' for the other types. */
  fieldData: string;
  order: number;
  displayInProfileSummary: boolean;
  required: boolean;
  editableByUser: boolean;
}

/**
 * A user's status (api/user-status/), stored under [realmId, userId] from the first time it is
 * set; cleared fields are empty strings, as the reference keeps its row.
 */
export interface UserStatusRecord {
  statusText: string;
  emojiName: string;
  emojiCode: string;
  reactionType: string;
  /** Seconds. */
  timestamp: number;
}
