import { directMembers } from '../../../model/groups.js';
import type { RealmState } from '../../../model/realm-state.js';
import { NOTIFICATION_BOT_EMAIL, type GroupSetting, type StreamRecord, type UserRecord } from '../../../model/types.js';
import type { UserTopicRecord } from '../../../model/user-topics.js';
import type { StoreView } from '../../../store/shard-store.js';
import { AnonymousGroups, personalRows, realmRow, Recipients, subscriptionRow, userRow, type Row } from './tables.js';

/**
 * realm.json of a reference-format export: every table the reference's import reads, from the
 * realm's in-memory model and its shard's tables. Built after the message files, so the group
 * DMs those found are in zerver_huddle.
 */
export interface RealmJsonInput {
  shard: StoreView;
  realm: RealmState;
  users: UserRecord[];
  channels: StreamRecord[];
  recipients: Recipients;
  /** Each exported user's address (a public export hides some). */
  emailOf: (u: UserRecord) => string;
  clients: Map<string, number>;
  /** Reactions and submessages of the exported messages. */
  reactions: Row[];
  submessages: Row[];
  /** Which people's private data goes in (a public export: nobody's). */
  privateData: (userId: number) => boolean;
}

export const SYSTEM_BOT_EMAILS = new Set([NOTIFICATION_BOT_EMAIL, 'welcome-bot@zulip.com', 'emailgateway@zulip.com']);

export function realmJson(input: RealmJsonInput): Record<string, unknown> {
  const { shard, realm, users, channels, recipients, privateData } = input;
  const r = realm.id;
  const anonymous = new AnonymousGroups(Math.max(0, ...realm.groups.keys()));
  const people = users.filter((u) => !u.isSystemBot);
  const bots = users.filter((u) => u.isSystemBot);
  const groupSetting = (v: GroupSetting) => anonymous.value(v);

  const zerver_stream = channels.map((s) => ({
    id: s.id,
    realm: r,
    name: s.name,
    description: s.description,
    rendered_description: s.renderedDescription,
    invite_only: s.inviteOnly,
    history_public_to_subscribers: s.historyPublicToSubscribers,
    is_web_public: s.isWebPublic,
    deactivated: s.isArchived,
    date_created: s.dateCreated,
    creator: s.creatorId,
    message_retention_days: s.messageRetentionDays,
    first_message_id: s.firstMessageId ?? null,
    // Channel folders are newer than 10.2, whose Stream has no such field: only where set.
    ...(s.folderId ? { folder: s.folderId } : {}),
    recipient: recipients.ofChannel(s.id),
    ...Object.fromEntries(Object.entries(s.groups).map(([name, value]) => [name, groupSetting(value)])),
  }));

  let subId = 0;
  const zerver_subscription: Row[] = [];
  for (const u of people) {
    zerver_subscription.push({ id: ++subId, user_profile: u.id, recipient: recipients.ofUser(u.id), active: true, is_user_active: u.isActive, color: '#c2c2c2' });
    for (const s of channels) {
      const sub = realm.subscription(u.id, s.id);
      const former = realm.formerSubscription(u.id, s.id);
      if (sub) zerver_subscription.push(subscriptionRow(++subId, sub, recipients.ofChannel(s.id), true, u.isActive));
      else if (former) zerver_subscription.push(subscriptionRow(++subId, former, recipients.ofChannel(s.id), false, u.isActive));
    }
  }

  const groupRows = [...realm.groups.values()].sort((a, b) => a.id - b.id);
  const zerver_namedusergroup = groupRows.map((g) => ({
    usergroup_ptr: g.id,
    realm_for_sharding: r,
    name: g.name,
    description: g.description,
    is_system_group: g.isSystemGroup,
    deactivated: g.deactivated,
    date_created: g.dateCreated,
    creator: g.creatorId,
    ...Object.fromEntries(Object.entries(g.settings).map(([name, value]) => [name, groupSetting(value)])),
  }));
  const memberships: Row[] = [];
  const subgroupRows: Row[] = [];
  for (const g of groupRows) {
    // System groups' members are derived from roles here; the reference stores them.
    // The reference keeps members (role 400) in role:fullmembers too, Stoa derives it.
    const members = g.isSystemGroup && g.name === 'role:fullmembers' ? directMembers(realm, realm.groups.get(realm.systemGroupId('role:members'))!) : directMembers(realm, g);
    for (const m of members) if (!realm.users.get(m)?.isSystemBot) memberships.push({ id: memberships.length + 1, user_group: g.id, user_profile: m });
    for (const s of g.subgroups) subgroupRows.push({ id: subgroupRows.length + 1, supergroup: g.id, subgroup: s });
  }
  const realmRowValue = realmRow(realm, anonymous);

  const userTopics: Row[] = [];
  for (const u of people) {
    if (!privateData(u.id)) continue;
    for (const s of channels) {
      for (const t of shardUserTopics(shard, r, u.id, s.id)) userTopics.push({ id: userTopics.length + 1, user_profile: u.id, stream: s.id, recipient: recipients.ofChannel(s.id), topic_name: t.topic, visibility_policy: t.policy, last_updated: t.lastUpdated });
    }
  }
  const personal = personalRows(shard, realm, people.filter((u) => privateData(u.id)), recipients, (name) => input.clients.get(name) ?? 1);

  const tables: Record<string, unknown> = {
    zerver_realm: [realmRowValue],
    zerver_userprofile: people.map((u) => userRow(u, input.emailOf(u))),
    zerver_userprofile_mirrordummy: [],
    zerver_userprofile_crossrealm: bots.map((b) => ({ id: b.id, email: SYSTEM_BOT_EMAILS.has(b.email) ? b.email : NOTIFICATION_BOT_EMAIL, recipient_id: recipients.ofUser(b.id) })),
    zerver_stream,
    zerver_recipient: recipients.rows,
    zerver_subscription,
    zerver_usergroup: [...groupRows.map((g) => ({ id: g.id, realm: r })), ...anonymous.groups.map((g) => ({ ...g, realm: r }))],
    zerver_namedusergroup,
    zerver_usergroupmembership: [...memberships, ...anonymous.members.map((m, i) => ({ ...m, id: memberships.length + i + 1 }))],
    zerver_groupgroupmembership: [...subgroupRows, ...anonymous.subgroups.map((m, i) => ({ ...m, id: subgroupRows.length + i + 1 }))],
    zerver_defaultstream: channels.filter((s) => s.isDefault).map((s, i) => ({ id: i + 1, realm: r, stream: s.id })),
    zerver_realmdomain: (realm.realm.domains ?? []).map((d) => ({ id: d.id, realm: r, domain: d.domain, allow_subdomains: d.allowSubdomains })),
    zerver_realmfilter: (realm.realm.linkifiers ?? []).map((l, i) => ({ id: l.id, realm: r, pattern: l.pattern, url_template: l.urlTemplate, order: i })),
    zerver_realmplayground: (realm.realm.playgrounds ?? []).map((p) => ({ id: p.id, realm: r, name: p.name, pygments_language: p.pygmentsLanguage, url_template: p.urlTemplate })),
    zerver_realmemoji: [...realm.realmEmoji.values()].sort((a, b) => a.id - b.id).map((e) => ({ id: e.id, realm: r, name: e.name, file_name: e.fileName, author: e.authorId, deactivated: e.deactivated, is_animated: e.isAnimated })),
    zerver_customprofilefield: realm.people.orderedFields().map((f) => ({ id: f.id, realm: r, name: f.name, hint: f.hint, field_type: f.type, field_data: f.fieldData, order: f.order, display_in_profile_summary: f.displayInProfileSummary, required: f.required, editable_by_user: f.editableByUser })),
    zerver_customprofilefieldvalue: people.flatMap((u) => Object.entries(u.profileData ?? {}).map(([field, v]) => ({ user_profile: u.id, field: Number(field), value: v.value, rendered_value: v.rendered ?? null }))).map((v, i) => ({ id: i + 1, ...v })),
    zerver_usertopic: userTopics,
    zerver_muteduser: people.filter((u) => privateData(u.id)).flatMap((u) => [...realm.people.mutesOf(u.id)].map(([muted, ts]) => ({ user_profile: u.id, muted_user: muted, date_muted: ts }))).map((m, i) => ({ id: i + 1, ...m })),
    zerver_userstatus: people.filter((u) => privateData(u.id) && realm.people.statuses.has(u.id)).map((u, i) => {
      const s = realm.people.statuses.get(u.id)!;
      return { id: i + 1, user_profile: u.id, status_text: s.statusText, emoji_name: s.emojiName, emoji_code: s.emojiCode, reaction_type: s.reactionType, timestamp: s.timestamp, client: 1 };
    }),
    zerver_alertword: people.filter((u) => privateData(u.id)).flatMap((u) => realm.people.alertWords(u.id).map((word) => ({ realm: r, user_profile: u.id, word }))).map((w, i) => ({ id: i + 1, ...w })),
    zerver_channelfolder: [...realm.channelFolders.values()].sort((a, b) => a.id - b.id).map((f) => ({ id: f.id, realm: r, name: f.name, description: f.description, rendered_description: f.renderedDescription, order: f.order, date_created: f.dateCreated, creator: f.creatorId, is_archived: f.isArchived })),
    zerver_realmuserdefault: [{ id: 1, realm: r, ...(realm.realm.userSettingsDefaults ?? {}) }],
    zerver_service: people.filter((u) => u.bot?.service).map((u, i) => ({ id: i + 1, user_profile: u.id, name: u.bot!.service!.name, base_url: u.bot!.service!.baseUrl, token: u.bot!.service!.token, interface: u.bot!.service!.interface })),
    zerver_botconfigdata: people.flatMap((u) => Object.entries(u.bot?.config ?? {}).map(([key, value]) => ({ bot_profile: u.id, key, value }))).map((c, i) => ({ id: i + 1, ...c })),
    zerver_botstoragedata: people.filter((u) => u.isBot).flatMap((u) => botStorage(shard, r, u.id)).map((b, i) => ({ id: i + 1, ...b })),
    zerver_reaction: input.reactions,
    zerver_submessage: input.submessages,
    zerver_client: [...input.clients].map(([name, id]) => ({ id, name })),
    zerver_realmauthenticationmethod: [{ id: 1, realm: r, name: 'Email' }],
    zerver_userpresence: [],
    zerver_useractivity: [],
    zerver_useractivityinterval: [],
    zerver_realmauditlog: [],
    zerver_onboardingstep: [],
    zerver_onboardingusermessage: [],
    zerver_realmexport: [],
    zerver_presencesequence: [{ id: 1, realm: r, last_update_id: 0 }],
    ...personal,
    zerver_huddle: [...recipients.huddles.values()].map(([, id, members]) => ({ id, huddle_hash: members.join(','), group_size: members.length })),
  };
  // Group DMs' members are their recipients' subscribers.
  for (const [recipient, , members] of recipients.huddles.values()) for (const m of members) zerver_subscription.push({ id: ++subId, user_profile: m, recipient, active: true, is_user_active: realm.users.get(m)?.isActive ?? false, color: '#c2c2c2' });
  return tables;
}

function shardUserTopics(shard: StoreView, realmId: number, userId: number, streamId: number): UserTopicRecord[] {
  return [...shard.store.userTopics.getRange({ start: [realmId, userId, streamId], end: [realmId, userId, streamId + 1] })].map(({ value }) => value as UserTopicRecord);
}

function botStorage(shard: StoreView, realmId: number, userId: number): Row[] {
  return [...shard.store.botStorage.getRange({ start: [realmId, userId], end: [realmId, userId + 1] })].map(({ value }) => {
    const [key, v] = value as [string, string];
    return { bot_profile: userId, key, value: v };
  });
}
