import { dmKey } from '../../../model/message.js';
import type { RealmState } from '../../../model/realm-state.js';
import { DEFAULT_SETTINGS, REALM_GROUP_SETTINGS, realmSetting } from '../../../model/realm-settings.js';
import type { DraftRecord, NavigationViewRecord, SavedSnippetRecord, ScheduledMessageRecord } from '../../../model/personal.js';
import type { GroupSetting, SubscriptionRecord, UserRecord } from '../../../model/types.js';
import type { StoreView } from '../../../store/shard-store.js';
import { userRows } from '../../../store/personal.js';
import { USER_SETTING_DEFAULTS, userSetting } from '../../../model/user-settings.js';
import { subscriptionProperties } from '../../subscriptions/views.js';

/**
 * The organization's tables in the reference's export format (zerver/lib/export.py): Django's
 * model_to_dict of each row, a foreign key under its field's name, dates as float seconds. The
 * ids are Stoa's; recipients (the reference's zerver_recipient, which Stoa has no table for)
 * are numbered here: people first, then channels, then group DMs.
 */
export type Row = Record<string, unknown>;

export class Recipients {
  readonly rows: Row[] = [];
  private readonly personal = new Map<number, number>();
  private readonly channel = new Map<number, number>();
  /** dmKey of a group DM -> [recipient id, huddle id, members]. */
  readonly huddles = new Map<string, [number, number, number[]]>();

  private add(type: number, typeId: number): number {
    const id = this.rows.length + 1;
    this.rows.push({ id, type, type_id: typeId });
    return id;
  }

  constructor(users: UserRecord[], streamIds: number[]) {
    for (const u of users) this.personal.set(u.id, this.add(1, u.id));
    for (const s of streamIds) this.channel.set(s, this.add(2, s));
  }

  ofUser(id: number): number {
    return this.personal.get(id)!;
  }

  ofChannel(id: number): number {
    return this.channel.get(id)!;
  }

  /** A direct message's recipient: the other person's, one's own for a note to self, or the group's. */
  ofDm(senderId: number, participants: number[]): number {
    if (participants.length <= 2) return this.ofUser(participants.find((id) => id !== senderId) ?? senderId);
    const key = dmKey(participants);
    let h = this.huddles.get(key);
    if (!h) {
      const huddleId = this.huddles.size + 1;
      h = [0, huddleId, participants];
      h[0] = this.add(3, huddleId);
      this.huddles.set(key, h);
    }
    return h[0];
  }
}

const EDIT_HISTORY_POLICY: Record<string, number> = { all: 1, moves: 2, none: 3 };
const CHANNEL_SETTINGS: Record<string, string> = {
  new_stream_announcements_stream_id: 'new_stream_announcements_stream',
  signup_announcements_stream_id: 'signup_announcements_stream',
  zulip_update_announcements_stream_id: 'zulip_update_announcements_stream',
  moderation_request_channel_id: 'moderation_request_channel',
};

/** A group setting's value: its group's id, or the id of the anonymous group written for it. */
export class AnonymousGroups {
  readonly groups: Row[] = [];
  readonly members: Row[] = [];
  readonly subgroups: Row[] = [];

  constructor(private next: number) {}

  value(setting: GroupSetting): number {
    if (typeof setting === 'number') return setting;
    const id = ++this.next;
    this.groups.push({ id, realm: 0 });
    for (const m of setting.direct_members) this.members.push({ id: this.members.length + 1, user_group: id, user_profile: m });
    for (const s of setting.direct_subgroups) this.subgroups.push({ id: this.subgroups.length + 1, supergroup: id, subgroup: s });
    return id;
  }
}

export function realmRow(realm: RealmState, anonymous: AnonymousGroups): Row {
  const r = realm.realm;
  const row: Row = { id: r.id, string_id: r.subdomain, name: r.name, description: r.description, date_created: r.dateCreated, deactivated: r.deactivated };
  for (const name of Object.keys(DEFAULT_SETTINGS)) {
    const value = realmSetting(realm, name);
    if (CHANNEL_SETTINGS[name]) row[CHANNEL_SETTINGS[name]] = value === -1 ? null : value;
    else if (name === 'message_edit_history_visibility_policy') row[name] = EDIT_HISTORY_POLICY[String(value)] ?? 1;
    else row[name] = value;
  }
  for (const name of Object.keys(REALM_GROUP_SETTINGS)) row[name] = anonymous.value(realmSetting(realm, name) as GroupSetting);
  for (const image of ['icon', 'logo', 'night_logo'] as const) row[`${image}_version`] = r.imageVersions?.[image] ?? 1;
  return row;
}

export function userRow(u: UserRecord, email: string): Row {
  const row: Row = {
    id: u.id,
    realm: u.realmId,
    email,
    delivery_email: email,
    full_name: u.fullName,
    role: u.role,
    is_active: u.isActive,
    is_bot: u.isBot,
    bot_type: u.botType,
    bot_owner: u.botOwnerId,
    is_mirror_dummy: false,
    date_joined: u.dateJoined,
    timezone: u.timezone,
    avatar_source: u.avatarSource,
    avatar_version: u.avatarVersion,
    default_sending_stream: u.bot?.defaultSendingStreamId ?? null,
    default_events_register_stream: u.bot?.defaultEventsRegisterStreamId ?? null,
    default_all_public_streams: u.bot?.defaultAllPublicStreams ?? false,
    // Django's many-to-many fields, empty: the reference's import deletes them unconditionally.
    groups: [],
    user_permissions: [],
  };
  for (const name of Object.keys(USER_SETTING_DEFAULTS)) row[name] = userSetting(u, name);
  return row;
}

export function subscriptionRow(id: number, sub: SubscriptionRecord, recipient: number, active: boolean, userActive: boolean): Row {
  return { id, user_profile: sub.userId, recipient, active, is_user_active: userActive, ...subscriptionProperties(sub) };
}

/** What each person keeps for themself: snippets, navigation views, drafts, scheduled messages. */
export function personalRows(shard: StoreView, realm: RealmState, users: UserRecord[], recipients: Recipients, clientId: (name: string) => number): Record<string, Row[]> {
  const out: Record<string, Row[]> = { zerver_savedsnippet: [], zerver_navigationview: [], zerver_draft: [], zerver_scheduledmessage: [] };
  const { store } = shard;
  for (const u of users) {
    for (const s of userRows<SavedSnippetRecord>(store.snippets, realm.id, u.id)) out.zerver_savedsnippet.push({ id: s.id, realm: realm.id, user_profile: u.id, title: s.title, content: s.content, date_created: s.dateCreated });
    userRows<NavigationViewRecord>(store.navigationViews, realm.id, u.id)
      .sort((a, b) => a.id - b.id)
      .forEach((v) => out.zerver_navigationview.push({ id: v.id, user: u.id, fragment: v.fragment, is_pinned: v.isPinned, name: v.name }));
    for (const d of userRows<DraftRecord>(store.drafts, realm.id, u.id)) {
      const recipient = d.type === 'stream' ? recipients.ofChannel(d.to[0]) : d.type === 'private' ? recipients.ofDm(u.id, [...new Set([u.id, ...d.to])].sort((a, b) => a - b)) : null;
      out.zerver_draft.push({ id: d.id, user_profile: u.id, recipient, topic: d.topic, content: d.content, last_edit_time: d.timestamp });
    }
    for (const s of userRows<ScheduledMessageRecord>(store.scheduled, realm.id, u.id)) {
      const recipient = s.type === 'stream' ? recipients.ofChannel(s.streamId!) : recipients.ofDm(u.id, [...new Set([u.id, ...s.to])].sort((a, b) => a - b));
      out.zerver_scheduledmessage.push({
        id: s.id,
        realm: realm.id,
        sender: u.id,
        recipient,
        subject: s.topic,
        content: s.content,
        rendered_content: s.rendered,
        sending_client: clientId(s.client),
        stream: s.streamId,
        scheduled_timestamp: s.deliverAt,
        request_timestamp: s.deliverAt,
        delivered: s.deliveredMessageId !== null,
        delivered_message: s.deliveredMessageId || null,
        has_attachment: false,
        delivery_type: s.kind === 'remind' ? 2 : 1,
        failed: s.failed,
        failure_message: s.failureMessage,
        read_by_sender: s.readBySender,
        // Reminders are newer than 10.2, whose ScheduledMessage has no such fields: only for them.
        ...(s.kind === 'remind' ? { reminder_target_message: s.reminderTargetMessageId ?? null, reminder_note: s.reminderNote ?? null } : {}),
      });
    }
  }
  return out;
}
