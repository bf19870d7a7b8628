import { generateApiKey, DJANGO_PREFIX } from '../../lib/auth.js';
import { isDjangoHash } from '../../lib/django-hashers.js';
import { buildSystemGroups, GROUP_PERMISSION_SETTINGS } from '../../model/groups.js';
import { DEFAULT_SETTINGS, REALM_GROUP_SETTINGS } from '../../model/realm-settings.js';
import { USER_SETTING_DEFAULTS } from '../../model/user-settings.js';
import { BOT_TYPE, NOTIFICATION_BOT_EMAIL, ROLE, type GroupRecord, type GroupSetting, type RealmRecord, type Role, type StreamRecord, type SubscriptionRecord, type UserRecord } from '../../model/types.js';
import type { IdMap } from '../ids.js';
import type { Plan } from './plan.js';
import type { Row } from './read.js';
import { RECIPIENT } from './tables.js';

/**
 * The organization's own tables, turned into Stoa's records with their new ids: the realm and
 * its settings, groups, people, channels and subscriptions. (People's data and the other tables:
 * people.ts; messages: messages.ts.)
 */

export interface Ids {
  user: IdMap;
  stream: IdMap;
  group: IdMap;
  message: IdMap;
  attachment: IdMap;
  emoji: IdMap;
  submessage: IdMap;
  /** Ids kept for the system bots: Notification Bot, Welcome Bot, Email Gateway. */
  bots: { notification: number; welcome: number; gateway: number };
  /** The first id of the system groups' block (they are built anew, in SYSTEM_GROUPS order). */
  systemGroupBase: number;
  /** The first id of each small kind's block (linkifiers, profile fields...). */
  base: Record<string, number>;
}

export const SYSTEM_BOTS = [
  { key: 'notification', email: NOTIFICATION_BOT_EMAIL, name: 'Notification Bot' },
  { key: 'welcome', email: 'welcome-bot@zulip.com', name: 'Welcome Bot' },
  { key: 'gateway', email: 'emailgateway@zulip.com', name: 'Email Gateway' },
] as const;

export const rows = (plan: Plan, name: string): Row[] => plan.tables[name] ?? [];
const seconds = (value: unknown, fallback: number): number => (typeof value === 'number' ? Math.floor(value) : fallback);

/** An old user id to a new one, the reference's system bots included. */
export function userId(plan: Plan, ids: Ids, old: number): number {
  const bot = plan.crossRealm.get(old);
  if (bot !== undefined) {
    const known = SYSTEM_BOTS.find((b) => b.email === bot);
    return ids.bots[known?.key ?? 'notification'];
  }
  return ids.user.get(old);
}

/** A group setting's value: a named group's new id, or an anonymous group's members inline. */
export class GroupValues {
  private readonly named = new Map<number, number>();
  private readonly members = new Map<number, number[]>();
  private readonly subgroups = new Map<number, number[]>();

  constructor(plan: Plan, ids: Ids, systemGroups: GroupRecord[]) {
    const systemByName = new Map(systemGroups.map((g) => [g.name, g.id]));
    for (const g of rows(plan, 'zerver_namedusergroup')) {
      const old = g.usergroup_ptr as number;
      this.named.set(old, g.is_system_group ? (systemByName.get(g.name as string) ?? systemByName.get('role:nobody')!) : ids.group.get(old));
    }
    for (const m of rows(plan, 'zerver_usergroupmembership')) push(this.members, m.user_group as number, userId(plan, ids, m.user_profile as number));
    for (const m of rows(plan, 'zerver_groupgroupmembership')) push(this.subgroups, m.supergroup as number, m.subgroup as number);
  }

  isNamed(old: number): boolean {
    return this.named.has(old);
  }

  directMembers(old: number): number[] {
    return [...new Set(this.members.get(old) ?? [])].sort((a, b) => a - b);
  }

  directSubgroups(old: number): number[] {
    return (this.subgroups.get(old) ?? []).filter((s) => this.named.has(s)).map((s) => this.named.get(s)!);
  }

  value(old: unknown, fallback: number): GroupSetting {
    if (typeof old !== 'number') return fallback;
    const named = this.named.get(old);
    if (named !== undefined) return named;
    return { direct_members: this.directMembers(old), direct_subgroups: this.directSubgroups(old) };
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

const EDIT_HISTORY_POLICY: Record<number, string> = { 1: 'all', 2: 'moves', 3: 'none' };
const CHANNEL_SETTINGS: Record<string, string> = {
  new_stream_announcements_stream_id: 'new_stream_announcements_stream',
  signup_announcements_stream_id: 'signup_announcements_stream',
  zulip_update_announcements_stream_id: 'zulip_update_announcements_stream',
  moderation_request_channel_id: 'moderation_request_channel',
};

export function buildRealm(plan: Plan, ids: Ids, realmId: number, subdomain: string, groups: GroupValues, systemGroups: GroupRecord[], now: number): RealmRecord {
  const row = plan.tables.zerver_realm[0];
  const settings: Record<string, unknown> = {};
  for (const [name, fallback] of Object.entries(DEFAULT_SETTINGS)) {
    if (CHANNEL_SETTINGS[name]) settings[name] = ids.stream.opt(row[CHANNEL_SETTINGS[name]]) ?? -1;
    else if (name === 'message_edit_history_visibility_policy') settings[name] = EDIT_HISTORY_POLICY[row[name] as number] ?? fallback;
    else if (name === 'mandatory_topics' && !(name in row) && typeof row.topics_policy === 'number') settings[name] = row.topics_policy === 3;
    else settings[name] = name in row ? row[name] : fallback;
  }
  const byName = new Map(systemGroups.map((g) => [g.name, g.id]));
  for (const [name, rule] of Object.entries(REALM_GROUP_SETTINGS)) settings[name] = groups.value(row[name], byName.get(rule.defaultGroup)!);
  const realm: RealmRecord = {
    id: realmId,
    subdomain,
    name: String(row.name).slice(0, 40) || subdomain,
    description: String(row.description ?? ''),
    dateCreated: seconds(row.date_created, now),
    deactivated: false,
    settings,
  };
  const linkifiers = rows(plan, 'zerver_realmfilter').sort((a, b) => ((a.order as number) ?? 0) - ((b.order as number) ?? 0) || (a.id as number) - (b.id as number));
  if (linkifiers.length > 0) realm.linkifiers = linkifiers.map((l, i) => ({ id: ids.base.linkifier + i + 1, pattern: l.pattern as string, urlTemplate: l.url_template as string }));
  const playgrounds = rows(plan, 'zerver_realmplayground');
  if (playgrounds.length > 0) {
    realm.playgrounds = playgrounds.map((p, i) => ({ id: ids.base.playground + i + 1, name: p.name as string, pygmentsLanguage: p.pygments_language as string, urlTemplate: p.url_template as string }));
  }
  const domains = rows(plan, 'zerver_realmdomain');
  if (domains.length > 0) realm.domains = domains.map((d, i) => ({ id: ids.base.realmDomain + i + 1, domain: d.domain as string, allowSubdomains: d.allow_subdomains as boolean }));
  const defaults = rows(plan, 'zerver_realmuserdefault')[0];
  if (defaults) {
    const changed = differing(defaults);
    if (Object.keys(changed).length > 0) realm.userSettingsDefaults = changed;
  }
  const images = realm.imageVersions ?? {};
  for (const image of ['icon', 'logo', 'night_logo'] as const) if (settings[`${image}_source`] === 'U') images[image] = seconds(row[`${image}_version`], 1) || 1;
  if (Object.keys(images).length > 0) realm.imageVersions = images;
  return realm;
}

/** The personal settings of a row that differ from the server's defaults (what a UserRecord keeps). */
export function differing(row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, fallback] of Object.entries(USER_SETTING_DEFAULTS)) {
    if (name in row && row[name] !== null && row[name] !== fallback) out[name] = row[name];
  }
  return out;
}

export function buildSystemGroupRecords(ids: Ids, now: number): GroupRecord[] {
  let n = ids.systemGroupBase;
  return buildSystemGroups(() => ++n, now);
}

export function buildNamedGroups(plan: Plan, ids: Ids, groups: GroupValues, systemGroups: GroupRecord[], now: number): GroupRecord[] {
  const nobody = systemGroups.find((g) => g.name === 'role:nobody')!.id;
  const out: GroupRecord[] = [];
  for (const g of rows(plan, 'zerver_namedusergroup')) {
    if (g.is_system_group) continue;
    const old = g.usergroup_ptr as number;
    const creator = typeof g.creator === 'number' ? userId(plan, ids, g.creator) : null;
    const settings: Record<string, GroupSetting> = {};
    for (const name of Object.keys(GROUP_PERMISSION_SETTINGS)) settings[name] = groups.value(g[name], nobody);
    out.push({
      id: ids.group.get(old),
      name: g.name as string,
      description: String(g.description ?? ''),
      isSystemGroup: false,
      members: groups.directMembers(old),
      subgroups: groups.directSubgroups(old),
      dateCreated: seconds(g.date_created, now),
      creatorId: creator,
      deactivated: g.deactivated === true,
      settings,
    });
  }
  return out;
}

const ROLES = new Set<number>([ROLE.owner, ROLE.administrator, ROLE.moderator, ROLE.member, ROLE.guest]);

export function buildUsers(plan: Plan, ids: Ids, realmId: number, now: number, avatarKeys: Map<number, string>): UserRecord[] {
  const people = [...rows(plan, 'zerver_userprofile'), ...rows(plan, 'zerver_userprofile_mirrordummy')];
  const users: UserRecord[] = [];
  for (const u of people) {
    const id = ids.user.get(u.id as number);
    const password = u.password as string | null | undefined;
    const key = avatarKeys.get(id);
    const user: UserRecord = {
      id,
      realmId,
      email: (u.delivery_email as string | undefined) || (u.email as string),
      fullName: u.full_name as string,
      role: (ROLES.has(u.role as number) ? u.role : ROLE.member) as Role,
      isBot: u.is_bot as boolean,
      botType: u.is_bot ? ((u.bot_type as number | null) ?? BOT_TYPE.generic) : null,
      botOwnerId: u.is_bot && typeof u.bot_owner === 'number' ? userId(plan, ids, u.bot_owner) : null,
      isActive: (u.is_active as boolean) && u.is_mirror_dummy !== true,
      timezone: String(u.timezone ?? ''),
      dateJoined: seconds(u.date_joined, now),
      avatarSource: key ? 'U' : 'G',
      avatarVersion: seconds(u.avatar_version, 1) || 1,
      apiKey: generateApiKey(),
      passwordHash: isDjangoHash(password) ? DJANGO_PREFIX + password : null,
      settings: u.is_bot ? {} : differing(u),
    };
    if (key) user.avatarKey = key;
    if (user.isBot) {
      user.bot = {
        defaultSendingStreamId: ids.stream.opt(u.default_sending_stream),
        defaultEventsRegisterStreamId: ids.stream.opt(u.default_events_register_stream),
        defaultAllPublicStreams: u.default_all_public_streams === true,
      };
    }
    users.push(user);
  }
  for (const s of rows(plan, 'zerver_service')) {
    const bot = users.find((u) => u.id === ids.user.get(s.user_profile as number));
    if (bot?.bot) bot.bot.service = { name: s.name as string, baseUrl: s.base_url as string, interface: (s.interface as number) ?? 1, token: generateApiKey() };
  }
  for (const c of rows(plan, 'zerver_botconfigdata')) {
    const bot = users.find((u) => u.id === ids.user.get(c.bot_profile as number));
    if (bot?.bot) bot.bot.config = { ...(bot.bot.config ?? {}), [c.key as string]: c.value as string };
  }
  return users;
}

/** The realm's system bots, with the ids kept for them (the reference's cross-realm bots). */
export function buildSystemBots(ids: Ids, realmId: number, now: number): UserRecord[] {
  return SYSTEM_BOTS.map((b) => ({
    id: ids.bots[b.key],
    realmId,
    email: b.email,
    fullName: b.name,
    role: ROLE.member,
    isBot: true,
    botType: BOT_TYPE.generic,
    botOwnerId: null,
    isSystemBot: true,
    isActive: true,
    timezone: '',
    dateJoined: now,
    avatarSource: 'G',
    avatarVersion: 1,
    apiKey: generateApiKey(),
    passwordHash: null,
    settings: {},
  }));
}

const STREAM_GROUP_SETTINGS: Record<string, string> = {
  can_add_subscribers_group: 'role:nobody',
  can_administer_channel_group: 'role:nobody',
  can_remove_subscribers_group: 'role:administrators',
  can_send_message_group: 'role:everyone',
  can_subscribe_group: 'role:nobody',
};

export function buildStreams(plan: Plan, ids: Ids, realmId: number, groups: GroupValues, systemGroups: GroupRecord[], now: number, render: (text: string) => string): StreamRecord[] {
  const byName = new Map(systemGroups.map((g) => [g.name, g.id]));
  const defaults = new Set(rows(plan, 'zerver_defaultstream').map((d) => d.stream as number));
  return rows(plan, 'zerver_stream').map((s) => {
    const settings: Record<string, GroupSetting> = {};
    for (const [name, fallback] of Object.entries(STREAM_GROUP_SETTINGS)) settings[name] = groups.value(s[name], byName.get(fallback)!);
    const description = String(s.description ?? '');
    return {
      id: ids.stream.get(s.id as number),
      realmId,
      name: s.name as string,
      description,
      renderedDescription: typeof s.rendered_description === 'string' && s.rendered_description !== '' ? s.rendered_description : render(description),
      inviteOnly: s.invite_only as boolean,
      historyPublicToSubscribers: (s.history_public_to_subscribers as boolean | undefined) ?? !s.invite_only,
      isWebPublic: s.is_web_public === true,
      isArchived: s.deactivated === true,
      isDefault: defaults.has(s.id as number) && s.deactivated !== true,
      dateCreated: seconds(s.date_created, now),
      creatorId: typeof s.creator === 'number' ? userId(plan, ids, s.creator) : null,
      messageRetentionDays: (s.message_retention_days as number | null | undefined) ?? null,
      groups: settings,
      firstMessageId: null,
      folderId: typeof s.folder === 'number' ? ids.base.channelFolder + folderRank(plan, s.folder) : null,
    };
  });
}

export function folderRank(plan: Plan, old: number): number {
  return rows(plan, 'zerver_channelfolder').findIndex((f) => f.id === old) + 1;
}

export interface Subscriptions {
  active: SubscriptionRecord[];
  /** Channels people left, with their settings (RealmState.formerSubs). */
  former: SubscriptionRecord[];
}

export function buildSubscriptions(plan: Plan, ids: Ids): Subscriptions {
  const out: Subscriptions = { active: [], former: [] };
  for (const s of rows(plan, 'zerver_subscription')) {
    const recipient = plan.recipients.get(s.recipient as number)!;
    if (recipient.type !== RECIPIENT.stream || plan.crossRealm.has(s.user_profile as number)) continue;
    const bool = (v: unknown) => (typeof v === 'boolean' ? v : null);
    const sub: SubscriptionRecord = {
      userId: ids.user.get(s.user_profile as number),
      streamId: ids.stream.get(recipient.typeId),
      color: typeof s.color === 'string' && /^#[0-9a-fA-F]{6}$/.test(s.color) ? s.color : '#c2c2c2',
      isMuted: s.is_muted === true,
      pinToTop: s.pin_to_top === true,
      desktopNotifications: bool(s.desktop_notifications),
      audibleNotifications: bool(s.audible_notifications),
      pushNotifications: bool(s.push_notifications),
      emailNotifications: bool(s.email_notifications),
      wildcardMentionsNotify: bool(s.wildcard_mentions_notify),
    };
    (s.active ? out.active : out.former).push(sub);
  }
  return out;
}
