/** Stored records. Field names are ours; the views in src/api/<resource>/ give the reference shapes. */

export const ROLE = { owner: 100, administrator: 200, moderator: 300, member: 400, guest: 600 } as const;
export type Role = (typeof ROLE)[keyof typeof ROLE];
export const ROLES: readonly number[] = Object.values(ROLE);

/** Bot types, as the reference numbers them. */
export const BOT_TYPE = { generic: 1, incomingWebhook: 2, outgoingWebhook: 3, embedded: 4 } as const;

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
  isActive: boolean;
  timezone: string;
  /** Seconds. */
  dateJoined: number;
  avatarSource: 'G' | 'U';
  avatarVersion: number;
  apiKey: string;
  passwordHash: string | null;
  /** Personal settings that differ from the realm's defaults for new users. */
  settings: Record<string, unknown>;
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
  /** Seconds. */
  dateCreated: number;
  creatorId: number | null;
  messageRetentionDays: number | null;
  /** Permission group settings of the channel: a group id or an anonymous group. */
  groups: Record<string, GroupSetting>;
}

export interface SubscriptionRecord {
  userId: number;
  streamId: number;
  color: string;
  isMuted: boolean;
  pinToTop: boolean;
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

export interface DeviceRecord {
  kind: 'apns' | 'gcm';
  token: string;
  appid: string | null;
  dateCreated: number;
}
