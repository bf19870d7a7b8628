import type { Draft, Message, RealmEmoji, ServerEvent, Stream, Subscription, User } from '../types.js';
import { Groups, type GroupSettingValue } from './groups.js';
import type { MessageList } from './message-list.js';
import { conversationKey } from './narrow.js';
import { Unreads } from './unreads.js';

/**
 * The web app's state (shared/style.md 12): built from one POST /register and changed only by
 * the events of its queue, in handleEvent, then one "changed" notification. Screens read it and
 * listen; they never fetch to patch it. What /register sends is what the app knows of the
 * organization's rules: permissions, limits and settings are read here, never written twice.
 */
export interface UserStatus {
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
  away?: boolean;
}

export interface Conversation {
  key: string;
  maxId: number;
  streamId?: number;
  topic?: string;
  dmIds?: number[];
}

/** Events that can change how a message already on screen is drawn (ui/MessageView.tsx). */
const DISPLAY_EVENTS = new Set(['realm_user', 'realm', 'user_settings', 'user_topic', 'muted_users', 'realm_emoji', 'user_status', 'subscription', 'stream', 'user_group']);

const MENTION_FLAGS = ['mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned'];

export class Store {
  readonly selfId: number;
  readonly users = new Map<number, User>();
  readonly subs = new Map<number, Subscription>();
  readonly streams = new Map<number, Stream>();
  readonly unreads: Unreads;
  /** Every realm_* field of /register, by its name without the prefix, kept by realm events. */
  readonly realm: Record<string, any> = {};
  readonly settings: Record<string, any>;
  /** `${streamId}:${lower(topic)}` -> visibility policy (1 muted, 2 unmuted, 3 followed). */
  readonly topicPolicies = new Map<string, number>();
  readonly mutedUsers = new Set<number>();
  readonly presence = new Map<number, { active: number; idle: number }>();
  readonly realmEmoji = new Map<string, RealmEmoji>();
  /** Conversation key -> who is typing there, with when their notice lapses. */
  readonly typing = new Map<string, Map<number, number>>();
  /** Topics seen per channel: lower(topic) -> name and newest message id. */
  readonly topics = new Map<number, Map<string, { name: string; maxId: number }>>();
  /** Conversations by newest message, for the DM list and recent conversations. */
  readonly conversations = new Map<string, Conversation>();
  /** User groups, kept by user_group events: mentions, and every group-valued permission. */
  readonly groups: Groups;
  /** Each person's status (text, emoji, away), kept by user_status events. */
  readonly statuses = new Map<number, UserStatus>();
  drafts: Draft[] = [];
  scheduled: any[] = [];
  /** The open view's message list; events reach it through here. */
  list: MessageList | null = null;
  serverTimestamp = 0;
  version = 0;
  /** Bumped by the events that change how messages are drawn (names, settings, rules, emoji). */
  displayVersion = 0;
  private listeners = new Set<() => void>();
  /** Called with each new message (browser notifications). */
  onMessage: ((msg: Message) => void) | null = null;

  constructor(readonly snapshot: Record<string, any>) {
    const s = snapshot;
    this.selfId = s.user_id;
    for (const u of [...(s.realm_users ?? []), ...(s.realm_non_active_users ?? []), ...(s.cross_realm_bots ?? [])]) this.users.set(u.user_id, u);
    for (const sub of s.subscriptions ?? []) this.subs.set(sub.stream_id, sub);
    for (const st of s.streams ?? []) this.streams.set(st.stream_id, st);
    for (const sub of s.subscriptions ?? []) if (!this.streams.has(sub.stream_id)) this.streams.set(sub.stream_id, sub);
    this.unreads = new Unreads(s.unread_msgs);
    for (const [k, v] of Object.entries(s)) if (k.startsWith('realm_') && !['realm_users', 'realm_non_active_users', 'realm_emoji'].includes(k)) this.realm[k.slice(6)] = v;
    this.settings = { ...(s.user_settings ?? {}) };
    for (const t of s.user_topics ?? []) this.topicPolicies.set(`${t.stream_id}:${t.topic_name.toLowerCase()}`, t.visibility_policy);
    for (const m of s.muted_users ?? []) this.mutedUsers.add(m.id);
    this.serverTimestamp = s.server_timestamp ?? Date.now() / 1000;
    for (const [id, p] of Object.entries<any>(s.presences ?? {})) this.presence.set(Number(id), { active: p.active_timestamp ?? 0, idle: p.idle_timestamp ?? 0 });
    for (const e of Object.values<RealmEmoji>(s.realm_emoji ?? {})) this.realmEmoji.set(e.id, e);
    for (const c of s.recent_private_conversations ?? []) {
      const ids = (c.user_ids as number[]).filter((id) => id !== this.selfId).sort((a, b) => a - b);
      const key = `d:${ids.join(',')}`;
      this.conversations.set(key, { key, maxId: c.max_message_id, dmIds: ids });
    }
    this.groups = new Groups(s.realm_user_groups ?? []);
    for (const [id, st] of Object.entries<UserStatus>(s.user_status ?? {})) this.statuses.set(Number(id), st);
    this.drafts = s.drafts ?? [];
    this.scheduled = s.scheduled_messages ?? [];
  }

  get self(): User {
    return this.users.get(this.selfId)!;
  }
  get isAdmin(): boolean {
    return this.self.role <= 200;
  }
  /** Whether this person is in a group-valued setting (the realm's, or one given). */
  can(value: GroupSettingValue | string): boolean {
    return this.groups.allows(typeof value === 'string' ? this.realm[value] : value, this.selfId);
  }
  /** Whether this person may change a channel's settings (its administrators, and the organization's). */
  canAdminister(streamId: number): boolean {
    const s = this.streams.get(streamId) ?? this.subs.get(streamId);
    return this.isAdmin || (!!s && this.can((s as any).can_administer_channel_group ?? 0));
  }
  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
  changed(): void {
    this.version++;
    for (const fn of this.listeners) fn();
  }
  streamName(id: number): string {
    return this.streams.get(id)?.name ?? this.subs.get(id)?.name ?? `channel ${id}`;
  }
  userName(id: number): string {
    return this.users.get(id)?.full_name ?? `user ${id}`;
  }
  isTopicMuted(streamId: number, topic: string): boolean {
    const policy = this.topicPolicies.get(`${streamId}:${topic.toLowerCase()}`);
    if (policy === 1) return true;
    if (policy === 2 || policy === 3) return false;
    return this.subs.get(streamId)?.is_muted ?? false;
  }

  /** Files a message's conversation (topics, DM list, recent conversations). */
  private noteConversation(msg: Message): void {
    const key = conversationKey(msg, this.selfId);
    const had = this.conversations.get(key);
    if (had && had.maxId >= msg.id) return;
    if (msg.type === 'stream') {
      this.conversations.set(key, { key, maxId: msg.id, streamId: msg.stream_id, topic: msg.subject });
      let topics = this.topics.get(msg.stream_id!);
      if (!topics) this.topics.set(msg.stream_id!, (topics = new Map()));
      const t = topics.get(msg.subject.toLowerCase());
      if (!t || t.maxId < msg.id) topics.set(msg.subject.toLowerCase(), { name: msg.subject, maxId: msg.id });
    } else {
      const ids = (msg.display_recipient as { id: number }[]).map((r) => r.id).filter((id) => id !== this.selfId).sort((a, b) => a - b);
      this.conversations.set(key, { key, maxId: msg.id, dmIds: ids });
    }
  }

  /** Messages fetched for a view also tell the sidebar about their conversations. */
  noteMessages(messages: Message[]): void {
    for (const m of messages) this.noteConversation(m);
  }

  setTopics(streamId: number, topics: { name: string; max_id: number }[]): void {
    const map = this.topics.get(streamId) ?? new Map();
    for (const t of topics) {
      const had = map.get(t.name.toLowerCase());
      if (!had || had.maxId < t.max_id) map.set(t.name.toLowerCase(), { name: t.name, maxId: t.max_id });
    }
    this.topics.set(streamId, map);
    this.changed();
  }

  handleEvents(events: ServerEvent[]): void {
    for (const ev of events) this.handleEvent(ev);
    this.changed();
  }

  /** The one place state changes: each event to the model that owns it. */
  private handleEvent(ev: ServerEvent): void {
    if (DISPLAY_EVENTS.has(ev.type)) this.displayVersion++;
    switch (ev.type) {
      case 'message': {
        const msg: Message = { ...ev.message, flags: ev.flags ?? [] };
        this.noteConversation(msg);
        if (!msg.flags.includes('read')) {
          if (msg.type === 'stream') this.unreads.addStream(msg.id, msg.stream_id!, msg.subject);
          else this.unreads.addDm(msg.id, (msg.display_recipient as { id: number }[]).map((r) => r.id).filter((id) => id !== this.selfId));
          if (msg.flags.some((f) => MENTION_FLAGS.includes(f))) this.unreads.addMention(msg.id);
        }
        this.list?.add(msg);
        this.onMessage?.(msg);
        const typing = this.typing.get(conversationKey(msg, this.selfId));
        typing?.delete(msg.sender_id);
        break;
      }
      case 'update_message': {
        const ids: number[] = ev.message_ids ?? [ev.message_id];
        if (ev.new_stream_id !== undefined || ev.subject !== undefined) {
          const streamId = ev.new_stream_id ?? ev.stream_id;
          const topic = ev.subject ?? ev.orig_subject ?? ev.topic;
          if (streamId !== undefined && topic !== undefined) this.unreads.move(ids, streamId, topic);
          if (ev.stream_id !== undefined && ev.orig_subject !== undefined && ev.propagate_mode !== 'change_one') this.topics.get(ev.stream_id)?.delete(String(ev.orig_subject).toLowerCase());
          if (streamId !== undefined && topic !== undefined) {
            const topics = this.topics.get(streamId) ?? new Map();
            const maxId = Math.max(...ids, topics.get(topic.toLowerCase())?.maxId ?? 0);
            topics.set(topic.toLowerCase(), { name: topic, maxId });
            this.topics.set(streamId, topics);
          }
        }
        this.list?.update(ev);
        break;
      }
      case 'delete_message': {
        const ids: number[] = ev.message_ids ?? [ev.message_id];
        for (const id of ids) this.unreads.remove(id);
        this.list?.remove(ids);
        break;
      }
      case 'reaction':
        this.list?.reaction(ev);
        break;
      case 'submessage':
        this.list?.submessage(ev);
        break;
      case 'update_message_flags':
        this.flags(ev);
        break;
      case 'subscription':
        this.subscription(ev);
        break;
      case 'stream':
        if (ev.op === 'create') for (const s of ev.streams) this.streams.set(s.stream_id, s);
        if (ev.op === 'delete') for (const s of ev.streams) this.streams.delete(s.stream_id), this.subs.delete(s.stream_id);
        if (ev.op === 'update')
          for (const target of [this.streams.get(ev.stream_id), this.subs.get(ev.stream_id)]) {
            if (!target) continue;
            (target as any)[ev.property] = ev.value;
            // A privacy change carries the history and web-public flags beside invite_only.
            for (const k of ['rendered_description', 'history_public_to_subscribers', 'is_web_public'] as const) if (ev[k] !== undefined) (target as any)[k] = ev[k];
          }
        break;
      case 'typing': {
        const key = ev.message_type === 'stream' ? `s:${ev.stream_id}:${String(ev.topic).toLowerCase()}` : `d:${(ev.recipients as { user_id: number }[]).map((r) => r.user_id).filter((id) => id !== this.selfId).sort((a, b) => a - b).join(',')}`;
        let who = this.typing.get(key);
        if (!who) this.typing.set(key, (who = new Map()));
        if (ev.op === 'start') who.set(ev.sender.user_id, Date.now() + 15_000);
        else who.delete(ev.sender.user_id);
        break;
      }
      case 'presence': {
        const had = this.presence.get(ev.user_id) ?? { active: 0, idle: 0 };
        for (const p of Object.values<any>(ev.presence ?? {})) {
          if (p.status === 'active') had.active = Math.max(had.active, p.timestamp);
          else had.idle = Math.max(had.idle, p.timestamp);
        }
        this.presence.set(ev.user_id, had);
        this.serverTimestamp = ev.server_timestamp ?? this.serverTimestamp;
        break;
      }
      case 'realm_user':
        if (ev.op === 'add') this.users.set(ev.person.user_id, ev.person);
        if (ev.op === 'update') {
          const u = this.users.get(ev.person.user_id);
          // An address change comes as delivery_email, then new_email: the address shown.
          const { new_email: newEmail, ...change } = ev.person;
          if (u) Object.assign(u, change, newEmail !== undefined ? { email: newEmail } : {});
        }
        if (ev.op === 'remove') this.users.delete(ev.person.user_id);
        break;
      case 'realm':
        if (ev.op === 'update') this.realm[ev.property] = ev.value;
        if (ev.op === 'update_dict') Object.assign(this.realm, ev.data);
        break;
      case 'user_settings':
        if (ev.op === 'update') this.settings[ev.property] = ev.value;
        break;
      case 'user_topic': {
        const key = `${ev.stream_id}:${String(ev.topic_name).toLowerCase()}`;
        if (ev.visibility_policy === 0) this.topicPolicies.delete(key);
        else this.topicPolicies.set(key, ev.visibility_policy);
        break;
      }
      case 'muted_users':
        this.mutedUsers.clear();
        for (const m of ev.muted_users) this.mutedUsers.add(m.id);
        break;
      case 'user_group':
        this.groups.apply(ev);
        break;
      case 'user_status': {
        const had = this.statuses.get(ev.user_id) ?? {};
        const next: UserStatus = { ...had };
        for (const k of ['status_text', 'emoji_name', 'emoji_code', 'reaction_type', 'away'] as const) if (ev[k] !== undefined) (next as any)[k] = ev[k];
        // An empty emoji name clears the emoji, as an empty text clears the text.
        if (next.emoji_name === '') delete next.emoji_name, delete next.emoji_code, delete next.reaction_type;
        if (next.status_text === '') delete next.status_text;
        this.statuses.set(ev.user_id, next);
        break;
      }
      case 'realm_emoji':
        this.realmEmoji.clear();
        for (const e of Object.values<RealmEmoji>(ev.realm_emoji)) this.realmEmoji.set(e.id, e);
        break;
      case 'drafts':
        if (ev.op === 'add') this.drafts = [...this.drafts, ...ev.drafts];
        if (ev.op === 'update') this.drafts = this.drafts.map((d) => (d.id === ev.draft.id ? ev.draft : d));
        if (ev.op === 'remove') this.drafts = this.drafts.filter((d) => d.id !== ev.draft_id);
        break;
      case 'scheduled_messages':
        if (ev.op === 'add') this.scheduled = [...this.scheduled, ...ev.scheduled_messages];
        if (ev.op === 'update') this.scheduled = this.scheduled.map((m) => (m.scheduled_message_id === ev.scheduled_message.scheduled_message_id ? { ...m, ...ev.scheduled_message } : m));
        if (ev.op === 'remove') this.scheduled = this.scheduled.filter((m) => m.scheduled_message_id !== ev.scheduled_message_id);
        break;
      default:
        break;
    }
  }

  private flags(ev: ServerEvent): void {
    const add = ev.op === 'add';
    const ids: number[] = ev.messages ?? [];
    if (ev.flag === 'read') {
      if (add && ev.all) this.unreads.clear();
      else if (add) for (const id of ids) this.unreads.remove(id);
      else
        for (const id of ids) {
          const d = ev.message_details?.[id];
          if (!d) continue;
          if (d.type === 'stream') this.unreads.addStream(id, d.stream_id, d.topic);
          else this.unreads.addDm(id, (d.user_ids ?? []).filter((u: number) => u !== this.selfId));
          if (d.mentioned) this.unreads.addMention(id);
        }
    }
    this.list?.flag(ev.all ? 'all' : ids, ev.flag, add);
  }

  private subscription(ev: ServerEvent): void {
    if (ev.op === 'add') for (const s of ev.subscriptions) this.subs.set(s.stream_id, s), this.streams.set(s.stream_id, s);
    if (ev.op === 'remove') for (const s of ev.subscriptions) this.subs.delete(s.stream_id);
    if (ev.op === 'update') {
      const sub = this.subs.get(ev.stream_id);
      if (!sub) return;
      const prop = ev.property === 'in_home_view' ? 'is_muted' : ev.property;
      (sub as any)[prop] = ev.property === 'in_home_view' ? !ev.value : ev.value;
    }
  }
}
