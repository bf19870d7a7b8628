/**
 * A client's view of the server: a POST /register snapshot, kept current by applying events the
 * way Zulip clients do (the reference's own test does this server-side, apply_events). The
 * convergence tests apply an action's events to a snapshot taken before it and compare the
 * result with a fresh snapshot.
 */
type State = Record<string, any>;
type Event = Record<string, any>;

interface Unread {
  pms: { other_user_id: number; sender_id?: number; unread_message_ids: number[] }[];
  streams: { stream_id: number; topic: string; unread_message_ids: number[] }[];
  huddles: { user_ids_string: string; unread_message_ids: number[] }[];
  mentions: number[];
  count: number;
}

function dropIds(unread: Unread, ids: Set<number>): void {
  for (const list of [unread.pms, unread.streams, unread.huddles]) {
    for (const bucket of list) bucket.unread_message_ids = bucket.unread_message_ids.filter((id) => !ids.has(id));
  }
  unread.pms = unread.pms.filter((b) => b.unread_message_ids.length > 0);
  unread.streams = unread.streams.filter((b) => b.unread_message_ids.length > 0);
  unread.huddles = unread.huddles.filter((b) => b.unread_message_ids.length > 0);
  unread.mentions = unread.mentions.filter((id) => !ids.has(id));
}

function addUnread(unread: Unread, me: number, id: number, where: { type: string; stream_id?: number; topic?: string; user_ids?: number[]; sender_id?: number }, mentioned: boolean): void {
  const push = <T extends { unread_message_ids: number[] }>(list: T[], match: (b: T) => boolean, make: () => T) => {
    let bucket = list.find(match);
    if (!bucket) list.push((bucket = make()));
    if (!bucket.unread_message_ids.includes(id)) bucket.unread_message_ids.push(id);
    bucket.unread_message_ids.sort((a, b) => a - b);
  };
  if (where.type === 'stream') {
    push(unread.streams, (b) => b.stream_id === where.stream_id && b.topic.toLowerCase() === where.topic!.toLowerCase(), () => ({ stream_id: where.stream_id!, topic: where.topic!, unread_message_ids: [] }));
  } else {
    const others = where.user_ids!.filter((u) => u !== me);
    if (others.length <= 1) {
      const other = others[0] ?? me;
      push(unread.pms, (b) => b.other_user_id === other, () => ({ other_user_id: other, sender_id: other, unread_message_ids: [] }));
    } else {
      const key = [...where.user_ids!].sort((a, b) => a - b).join(',');
      push(unread.huddles, (b) => b.user_ids_string === key, () => ({ user_ids_string: key, unread_message_ids: [] }));
    }
  }
  if (mentioned && !unread.mentions.includes(id)) unread.mentions.push(id);
}

/**
 * Whether a topic is muted for the client, from its subscriptions' is_muted and its user_topics
 * (the reference's is_row_muted): muted topics, and muted channels but for unmuted and followed
 * topics. Without user_topics in the snapshot, only channel muting counts.
 */
function topicMuted(state: State, streamId: number, topic: string): boolean {
  const channelMuted = (state.subscriptions as { stream_id: number; is_muted: boolean }[] | undefined)?.find((s) => s.stream_id === streamId)?.is_muted === true;
  const entry = (state.user_topics as { stream_id: number; topic_name: string; visibility_policy: number }[] | undefined)?.find(
    (t) => t.stream_id === streamId && t.topic_name.toLowerCase() === topic.toLowerCase(),
  );
  const policy = entry?.visibility_policy ?? 0;
  return channelMuted ? policy !== 2 && policy !== 3 : policy === 1;
}

/** unread_msgs.count: every unread message but those of muted channels and topics. */
function recount(unread: Unread, state?: State): void {
  const streams = state ? unread.streams.filter((b) => !topicMuted(state, b.stream_id, b.topic)) : unread.streams;
  unread.count = [...unread.pms, ...streams, ...unread.huddles].reduce((n, b) => n + b.unread_message_ids.length, 0);
}

function applyMessage(state: State, me: number, event: Event): void {
  const msg = event.message;
  if ('max_message_id' in state) state.max_message_id = Math.max(state.max_message_id, msg.id);
  const flags: string[] = event.flags ?? [];
  if (state.unread_msgs && !flags.includes('read')) {
    const where = msg.type === 'stream' ? { type: 'stream', stream_id: msg.stream_id, topic: msg.subject } : { type: 'private', user_ids: msg.display_recipient.map((r: { id: number }) => r.id) };
    addUnread(state.unread_msgs, me, msg.id, where, flags.some((f) => /mentioned/.test(f)));
    recount(state.unread_msgs, state);
  }
  if (state.starred_messages && flags.includes('starred')) state.starred_messages.push(msg.id);
  if (state.recent_private_conversations && msg.type === 'private') {
    const ids = msg.display_recipient.map((r: { id: number }) => r.id).filter((id: number) => id !== me).sort((a: number, b: number) => a - b);
    const key = ids.join(',');
    const list = state.recent_private_conversations as { user_ids: number[]; max_message_id: number }[];
    const found = list.find((c) => c.user_ids.join(',') === key);
    if (found) found.max_message_id = Math.max(found.max_message_id, msg.id);
    else list.push({ user_ids: ids, max_message_id: msg.id });
    list.sort((a, b) => b.max_message_id - a.max_message_id);
  }
}

function applyFlags(state: State, me: number, event: Event): void {
  const ids = new Set<number>(event.messages);
  if (event.flag === 'read' && state.unread_msgs) {
    if (event.op === 'add') {
      if (event.all) state.unread_msgs = { ...state.unread_msgs, pms: [], streams: [], huddles: [], mentions: [] };
      else dropIds(state.unread_msgs, ids);
    } else {
      // message_details names the other participants of a direct message; the unread
      // buckets are keyed by all of them, the user included.
      for (const id of ids) {
        const d = event.message_details[id];
        const where = d.type === 'stream' ? { type: 'stream', stream_id: d.stream_id, topic: d.topic } : { type: 'private', user_ids: [...d.user_ids, me] };
        addUnread(state.unread_msgs, me, id, where, d.mentioned === true);
      }
    }
    recount(state.unread_msgs, state);
  }
  if (event.flag === 'starred' && state.starred_messages) {
    if (event.op === 'add') state.starred_messages = [...new Set([...state.starred_messages, ...ids])].sort((a, b) => a - b);
    else state.starred_messages = state.starred_messages.filter((id: number) => !ids.has(id));
  }
}

function applyUpdateMessage(state: State, event: Event): void {
  if (!state.unread_msgs) return;
  // An edit that changes mentions carries the user's new flags: an unread message joins or
  // leaves `mentions` with them.
  if (Array.isArray(event.flags) && event.message_id !== undefined) {
    const unread = state.unread_msgs as Unread;
    const isUnread = [...unread.pms, ...unread.streams, ...unread.huddles].some((b) => b.unread_message_ids.includes(event.message_id));
    const mentioned = event.flags.some((f: string) => /mentioned/.test(f));
    unread.mentions = unread.mentions.filter((id) => id !== event.message_id);
    if (isUnread && mentioned) unread.mentions.push(event.message_id);
  }
  if (event.new_stream_id === undefined && event.subject === undefined) return;
  const ids = new Set<number>(event.message_ids);
  for (const bucket of state.unread_msgs.streams as Unread['streams']) {
    const moving = bucket.unread_message_ids.filter((id) => ids.has(id));
    if (moving.length === 0) continue;
    bucket.unread_message_ids = bucket.unread_message_ids.filter((id) => !ids.has(id));
    for (const id of moving) addUnread(state.unread_msgs, -1, id, { type: 'stream', stream_id: event.new_stream_id ?? bucket.stream_id, topic: event.subject ?? bucket.topic }, false);
  }
  state.unread_msgs.streams = state.unread_msgs.streams.filter((b: { unread_message_ids: number[] }) => b.unread_message_ids.length > 0);
  // A move can take unread messages into or out of a muted topic.
  recount(state.unread_msgs, state);
}

function applySubscription(state: State, me: number, event: Event): void {
  const subs = state.subscriptions as any[] | undefined;
  if (!subs) return;
  switch (event.op) {
    case 'add':
      for (const sub of event.subscriptions) {
        state.unsubscribed = (state.unsubscribed ?? []).filter((s: any) => s.stream_id !== sub.stream_id);
        state.never_subscribed = (state.never_subscribed ?? []).filter((s: any) => s.stream_id !== sub.stream_id);
        subs.push(sub);
      }
      break;
    case 'remove':
      // The user leaves the subscriber list (no peer event tells them that), and the channel's
      // unread messages stop counting.
      for (const gone of event.subscriptions) {
        const i = subs.findIndex((s) => s.stream_id === gone.stream_id);
        if (i < 0) continue;
        const [sub] = subs.splice(i, 1);
        if (sub.subscribers) sub.subscribers = sub.subscribers.filter((id: number) => id !== me);
        state.unsubscribed?.push(sub);
        const unread = state.unread_msgs as Unread | undefined;
        if (unread) {
          const ids = new Set(unread.streams.filter((b) => b.stream_id === gone.stream_id).flatMap((b) => b.unread_message_ids));
          dropIds(unread, ids);
          recount(unread, state);
        }
      }
      break;
    case 'update':
      for (const sub of subs) if (sub.stream_id === event.stream_id) sub[event.property] = event.value;
      // Muting a channel takes its unread messages out of the count.
      if (event.property === 'is_muted' && state.unread_msgs) recount(state.unread_msgs, state);
      break;
    case 'peer_add':
    case 'peer_remove':
      for (const list of [subs, state.unsubscribed ?? [], state.never_subscribed ?? []]) {
        for (const sub of list) {
          if (!event.stream_ids.includes(sub.stream_id) || !sub.subscribers) continue;
          const set = new Set<number>(sub.subscribers);
          for (const u of event.user_ids) event.op === 'peer_add' ? set.add(u) : set.delete(u);
          sub.subscribers = [...set].sort((a, b) => a - b);
        }
      }
      break;
  }
}

function applyStream(state: State, event: Event): void {
  if (event.op === 'create') {
    for (const stream of event.streams) {
      state.streams?.push(stream);
      if (state.never_subscribed && !state.subscriptions?.some((s: any) => s.stream_id === stream.stream_id)) {
        state.never_subscribed.push({ ...stream, subscribers: [] });
      }
    }
  } else if (event.op === 'delete') {
    const ids = new Set<number>(event.stream_ids ?? event.streams.map((s: { stream_id: number }) => s.stream_id));
    for (const key of ['streams', 'subscriptions', 'unsubscribed', 'never_subscribed']) {
      if (state[key]) state[key] = state[key].filter((s: any) => !ids.has(s.stream_id));
    }
  } else if (event.op === 'update') {
    for (const key of ['streams', 'subscriptions', 'unsubscribed', 'never_subscribed']) {
      for (const s of state[key] ?? []) {
        if (s.stream_id !== event.stream_id) continue;
        s[event.property] = event.value;
        // The fields an update carries beside its property, and the ones clients derive.
        if (event.property === 'description') s.rendered_description = event.rendered_description;
        if (event.property === 'invite_only') {
          s.history_public_to_subscribers = event.history_public_to_subscribers;
          s.is_web_public = event.is_web_public;
        }
        if (event.property === 'stream_post_policy') s.is_announcement_only = event.value === 2;
      }
    }
    if (event.property === 'is_archived' && event.value === true && state.user_topics) {
      state.user_topics = state.user_topics.filter((t: { stream_id: number }) => t.stream_id !== event.stream_id);
    }
  }
}

/** A topic's visibility policy changed: the entry is replaced (or, for 0, dropped), the count redone. */
function applyUserTopic(state: State, event: Event): void {
  if (!state.user_topics) return;
  const same = (t: { stream_id: number; topic_name: string }) => t.stream_id === event.stream_id && t.topic_name.toLowerCase() === String(event.topic_name).toLowerCase();
  state.user_topics = state.user_topics.filter((t: { stream_id: number; topic_name: string }) => !same(t));
  if (event.visibility_policy !== 0) {
    state.user_topics.push({ stream_id: event.stream_id, topic_name: event.topic_name, visibility_policy: event.visibility_policy, last_updated: event.last_updated });
  }
  if (state.unread_msgs) recount(state.unread_msgs, state);
}

function applyChannelFolder(state: State, event: Event): void {
  // A register that named no event types leaves folders out until the realm has one (a level 372
  // client knows nothing of them); a client that follows them starts from none, and from then on
  // every channel names its folder.
  if (!state.channel_folders) {
    state.channel_folders = [];
    for (const key of ['streams', 'subscriptions', 'unsubscribed', 'never_subscribed']) for (const s of (state[key] as Record<string, any>[] | undefined) ?? []) s.folder_id ??= null;
  }
  const folders = state.channel_folders as Record<string, any>[];
  if (event.op === 'add') folders.push(event.channel_folder);
  if (event.op === 'update') Object.assign(folders.find((f) => f.id === event.channel_folder_id) ?? {}, event.data);
  if (event.op === 'reorder') {
    const order: number[] = event.order;
    for (const f of folders) if (order.includes(f.id)) f.order = order.lastIndexOf(f.id);
    folders.sort((a, b) => a.order - b.order || a.id - b.id);
  }
}

/**
 * A deactivated user leaves the anonymous group-setting values too (the realm's, the groups'
 * and the channels'): they list active users only.
 */
function dropFromAnonymousSettings(state: State, userId: number): void {
  const drop = (holder: Record<string, any>) => {
    for (const [key, value] of Object.entries(holder)) {
      if (!/_groups?$/.test(key) || value === null || typeof value !== 'object' || !Array.isArray(value.direct_members)) continue;
      holder[key] = { ...value, direct_members: value.direct_members.filter((id: number) => id !== userId) };
    }
  };
  drop(state);
  for (const g of state.realm_user_groups ?? []) drop(g);
  for (const key of ['streams', 'subscriptions', 'unsubscribed', 'never_subscribed']) for (const s of state[key] ?? []) drop(s);
}

/** user_group events, as the reference's apply_event applies them to realm_user_groups. */
function applyUserGroup(state: State, event: Event): void {
  if (!state.realm_user_groups) return;
  if (event.op === 'add') {
    state.realm_user_groups.push(structuredClone(event.group));
    return;
  }
  if (event.op === 'remove') {
    state.realm_user_groups = state.realm_user_groups.filter((g: any) => g.id !== event.group_id);
    return;
  }
  const group = state.realm_user_groups.find((g: any) => g.id === event.group_id);
  if (!group) return;
  const sorted = (ids: Iterable<number>) => [...new Set(ids)].sort((a, b) => a - b);
  switch (event.op) {
    case 'update':
      Object.assign(group, event.data);
      return;
    case 'add_members':
      group.members = sorted([...group.members, ...event.user_ids]);
      return;
    case 'remove_members':
      group.members = group.members.filter((id: number) => !event.user_ids.includes(id));
      return;
    case 'add_subgroups':
      group.direct_subgroup_ids = sorted([...group.direct_subgroup_ids, ...event.direct_subgroup_ids]);
      return;
    case 'remove_subgroups':
      group.direct_subgroup_ids = group.direct_subgroup_ids.filter((id: number) => !event.direct_subgroup_ids.includes(id));
      return;
  }
}

/** The reference's "Unknown user" placeholder, as /register lists it (is_active left out). */
function unknownUser(state: State, userId: number): Record<string, unknown> {
  return {
    email: `user${userId}@${new URL(state.realm_url).hostname}`,
    user_id: userId,
    avatar_version: 1,
    is_admin: false,
    is_owner: false,
    is_guest: false,
    role: 400,
    is_bot: false,
    full_name: 'Unknown user',
    timezone: '',
    date_joined: '1970-01-01T00:00:00+00:00',
    delivery_email: null,
    avatar_url: '/static/images/unknown-user-avatar.png',
    profile_data: {},
  };
}

function applyRealmUser(state: State, me: number, event: Event, opts: ApplyOptions): void {
  if (event.op === 'update' && event.person.user_id === me && event.person.full_name !== undefined && 'full_name' in state) state.full_name = event.person.full_name;
  // An address change: the reference's apply_event copies delivery_email and takes new_email as the email.
  if (event.op === 'update' && event.person.user_id === me && event.person.delivery_email !== undefined && 'delivery_email' in state) state.delivery_email = event.person.delivery_email;
  if (event.op === 'update' && event.person.user_id === me && event.person.new_email !== undefined && 'email' in state) state.email = event.person.new_email;
  if (event.op === 'update' && 'avatar_url' in event.person) {
    // The reference's apply_event: the user's own avatar fields are always URLs; realm_users
    // keeps no avatar_source or medium URL, and a client_gravatar client nulls Gravatar URLs.
    const { avatar_source, avatar_url_medium, ...person } = event.person;
    if (person.user_id === me && 'avatar_url' in state) Object.assign(state, { avatar_source, avatar_url: person.avatar_url, avatar_url_medium });
    if (opts.clientGravatar && String(person.avatar_url).startsWith('https://secure.gravatar.com')) person.avatar_url = null;
    event = { ...event, person };
  }
  if (!state.realm_users) return;
  const drop = (userId: number) => {
    state.realm_users = state.realm_users.filter((u: any) => u.user_id !== userId);
    if (state.realm_non_active_users) state.realm_non_active_users = state.realm_non_active_users.filter((u: any) => u.user_id !== userId);
  };
  if (event.op === 'add') {
    // Which list a person is in says whether they are active; /register leaves is_active out.
    // An add may replace an "Unknown user" placeholder: a guest met the user.
    const { is_active: active, ...person } = event.person;
    drop(person.user_id);
    (active === false && state.realm_non_active_users ? state.realm_non_active_users : state.realm_users).push(person);
  } else if (event.op === 'update') {
    const { user_id, ...change } = event.person;
    const person = state.realm_users.find((u: any) => u.user_id === user_id) ?? state.realm_non_active_users?.find((u: any) => u.user_id === user_id);
    if (!person) return;
    const { is_active: active, custom_profile_field: field, new_email: newEmail, ...rest } = change;
    Object.assign(person, rest);
    if (newEmail !== undefined) person.email = newEmail;
    // A custom profile field's new value, or null when it was removed (the reference's apply_event).
    if (field && person.profile_data) {
      if (field.value === null) delete person.profile_data[String(field.id)];
      else person.profile_data[String(field.id)] = 'rendered_value' in field ? { value: field.value, rendered_value: field.rendered_value } : { value: field.value };
    }
    // The role event carries the role only; clients derive the flags from it.
    if (rest.role !== undefined) Object.assign(person, { is_owner: rest.role === 100, is_admin: rest.role <= 200, is_guest: rest.role === 600 });
    if (active !== undefined) {
      state.realm_users = state.realm_users.filter((u: any) => u.user_id !== user_id);
      state.realm_non_active_users = (state.realm_non_active_users ?? []).filter((u: any) => u.user_id !== user_id);
      (active ? state.realm_users : state.realm_non_active_users).push(person);
      // "Clients must remove deactivated users from their group records", and from subscriber
      // lists (at this feature level no peer_remove says so).
      if (!active) {
        // /register lists active users' statuses only.
        if (state.user_status) delete state.user_status[String(user_id)];
        for (const g of state.realm_user_groups ?? []) g.members = g.members.filter((id: number) => id !== user_id);
        dropFromAnonymousSettings(state, user_id);
        for (const key of ['subscriptions', 'unsubscribed', 'never_subscribed']) {
          for (const s of state[key] ?? []) if (s.subscribers) s.subscribers = s.subscribers.filter((id: number) => id !== user_id);
        }
      }
    }
  } else if (event.op === 'remove') {
    // A guest lost access: gone for clients with user_list_incomplete, else an "Unknown user"
    // (the reference's apply_event).
    drop(event.person.user_id);
    if (!opts.userListIncomplete) state.realm_users.push(unknownUser(state, event.person.user_id));
  }
}

/** A user_status event, as the reference's apply_event takes it: what is empty is dropped. */
function applyUserStatus(statuses: Record<string, Record<string, unknown>>, event: Event): void {
  const key = String(event.user_id);
  const status = (statuses[key] ??= {});
  if (event.away !== undefined) {
    if (event.away) status.away = true;
    else delete status.away;
  }
  if (event.status_text !== undefined) {
    if (event.status_text === '') delete status.status_text;
    else status.status_text = event.status_text;
  }
  if (event.emoji_name !== undefined) {
    for (const name of ['emoji_name', 'emoji_code', 'reaction_type']) {
      if (event.emoji_name === '') delete status[name];
      else status[name] = event[name];
    }
  }
  if (Object.keys(status).length === 0) delete statuses[key];
}

/** realm_bot: the bots this user administers, as the reference's web app keeps them. */
function applyRealmBot(state: State, event: Event): void {
  if (!state.realm_bots) return;
  const id = event.bot.user_id;
  if (event.op === 'add') state.realm_bots = [...state.realm_bots.filter((b: any) => b.user_id !== id), event.bot];
  else if (event.op === 'delete' || event.op === 'remove') state.realm_bots = state.realm_bots.filter((b: any) => b.user_id !== id);
  else if (event.op === 'update') Object.assign(state.realm_bots.find((b: any) => b.user_id === id) ?? {}, event.bot);
}

export interface ApplyOptions {
  /** The snapshot was registered with the user_list_incomplete client capability. */
  userListIncomplete?: boolean;
  /** The snapshot was registered with client_gravatar (the reference's default). */
  clientGravatar?: boolean;
}

/** Applies one event to `state` (a /register snapshot of user `me`), in place. */
export function applyEvent(state: State, me: number, event: Event, opts: ApplyOptions = {}): void {
  switch (event.type) {
    case 'message':
      return applyMessage(state, me, event);
    case 'update_message_flags':
      return applyFlags(state, me, event);
    case 'delete_message':
      if (state.unread_msgs) {
        dropIds(state.unread_msgs, new Set(event.message_ids ?? [event.message_id]));
        recount(state.unread_msgs, state);
      }
      if (state.starred_messages) state.starred_messages = state.starred_messages.filter((id: number) => !(event.message_ids ?? [event.message_id]).includes(id));
      // A conversation whose newest message is gone: its previous one is unknown here, so the
      // conversation is dropped, as the reference's own apply_events does.
      if (state.recent_private_conversations && event.message_type === 'private') {
        const gone = new Set(event.message_ids ?? [event.message_id]);
        state.recent_private_conversations = state.recent_private_conversations.filter((c: { max_message_id: number }) => !gone.has(c.max_message_id));
      }
      return;
    case 'update_message':
      return applyUpdateMessage(state, event);
    case 'subscription':
      return applySubscription(state, me, event);
    case 'stream':
      return applyStream(state, event);
    case 'realm_user':
      return applyRealmUser(state, me, event, opts);
    case 'realm':
      if (event.op === 'update') state[`realm_${event.property}`] = event.value;
      if (event.op === 'update_dict') for (const [k, v] of Object.entries(event.data)) state[`realm_${k}`] = v;
      return;
    case 'user_group':
      return applyUserGroup(state, event);
    case 'realm_linkifiers':
      state.realm_linkifiers = event.realm_linkifiers;
      return;
    case 'user_status':
      if (state.user_status) applyUserStatus(state.user_status, event);
      return;
    case 'custom_profile_fields': {
      // The fields, and no value of a field that is gone (the reference sends nothing else).
      state.custom_profile_fields = event.fields;
      const ids = new Set(event.fields.map((f: { id: number }) => String(f.id)));
      for (const person of [...(state.realm_users ?? []), ...(state.realm_non_active_users ?? [])]) {
        for (const id of Object.keys(person.profile_data ?? {})) if (!ids.has(id)) delete person.profile_data[id];
      }
      return;
    }
    case 'realm_user_settings_defaults':
      if (event.op === 'update' && state.realm_user_settings_defaults) state.realm_user_settings_defaults[event.property] = event.value;
      return;
    case 'alert_words':
      if ('alert_words' in state) state.alert_words = event.alert_words;
      return;
    case 'muted_users':
      if ('muted_users' in state) state.muted_users = event.muted_users;
      return;
    case 'realm_emoji':
      if (event.op === 'update') state.realm_emoji = event.realm_emoji;
      return;
    case 'realm_playgrounds':
      if ('realm_playgrounds' in state) state.realm_playgrounds = event.realm_playgrounds;
      return;
    case 'user_topic':
      return applyUserTopic(state, event);
    case 'muted_topics':
      if ('muted_topics' in state) state.muted_topics = event.muted_topics;
      return;
    case 'channel_folder':
      return applyChannelFolder(state, event);
    // No state in /register: a client showing invitations fetches GET /invites again.
    case 'invites_changed':
      return;
    case 'realm_bot':
      return applyRealmBot(state, event);
    case 'realm_domains':
      if (!('realm_domains' in state)) return;
      if (event.op === 'add') state.realm_domains.push(event.realm_domain);
      else if (event.op === 'change') state.realm_domains = state.realm_domains.map((d: { domain: string }) => (d.domain === event.realm_domain.domain ? event.realm_domain : d));
      else if (event.op === 'remove') state.realm_domains = state.realm_domains.filter((d: { domain: string }) => d.domain !== event.domain);
      return;
    case 'default_stream_groups':
      if ('realm_default_stream_groups' in state) state.realm_default_stream_groups = event.default_stream_groups;
      return;
    case 'default_streams':
      if ('realm_default_streams' in state) state.realm_default_streams = event.default_streams;
      return;
    // A client keeps the settings in the form it registered for: the user_settings object, or
    // (without user_settings_object) flat top-level keys, which the legacy events update.
    case 'user_settings':
      if (event.op === 'update' && state.user_settings) state.user_settings[event.property] = event.value;
      return;
    case 'update_display_settings':
      if (event.setting_name in state) state[event.setting_name] = event.setting;
      return;
    case 'update_global_notifications':
      if (event.notification_name in state) state[event.notification_name] = event.setting;
      return;
    case 'drafts':
      if (state.drafts) state.drafts = applyById(state.drafts, 'id', event.op === 'add' ? event.drafts : event.draft ? [event.draft] : [], event.draft_id);
      return;
    case 'navigation_view':
      // Absent from a register that named no types while the user had none (level 390).
      state.navigation_views ??= [];
      if (event.op === 'add') state.navigation_views = [...state.navigation_views, event.navigation_view];
      else if (event.op === 'update') state.navigation_views = state.navigation_views.map((v: any) => (v.fragment === event.fragment ? { ...v, ...event.data } : v));
      else if (event.op === 'remove') state.navigation_views = state.navigation_views.filter((v: any) => v.fragment !== event.fragment);
      return;
    case 'saved_snippets':
      if (state.saved_snippets) state.saved_snippets = applyById(state.saved_snippets, 'id', event.saved_snippet ? [event.saved_snippet] : [], event.saved_snippet_id);
      return;
    case 'scheduled_messages':
      if (state.scheduled_messages) {
        const added = event.scheduled_messages ?? (event.scheduled_message ? [event.scheduled_message] : []);
        state.scheduled_messages = applyById(state.scheduled_messages, 'scheduled_message_id', added, event.scheduled_message_id);
      }
      return;
    case 'reminders':
      // Absent from a register that named no types while the user had none (level 399).
      state.reminders = applyById(state.reminders ?? [], 'reminder_id', event.reminders ?? [], event.reminder_id);
      return;
  }
}

/** add (appended) / update (replaced in place) / remove, as clients keep these lists. */
function applyById(list: any[], key: string, items: any[], removed: number | undefined): any[] {
  let out = removed === undefined ? list : list.filter((x) => x[key] !== removed);
  for (const item of items) {
    const at = out.findIndex((x) => x[key] === item[key]);
    if (at >= 0) out = out.map((x, i) => (i === at ? item : x));
    else out = [...out, item];
  }
  return out;
}

/** Sorts the lists whose order carries no meaning, so that two snapshots compare as sets. */
export function normalized(state: State): State {
  const copy = structuredClone(state);
  const byId = (key: string) => (a: any, b: any) => a[key] - b[key];
  for (const key of ['subscriptions', 'unsubscribed', 'never_subscribed', 'streams']) copy[key]?.sort(byId('stream_id'));
  for (const key of ['realm_users', 'realm_non_active_users', 'realm_bots']) copy[key]?.sort(byId('user_id'));
  const unread = copy.unread_msgs as Unread | undefined;
  if (unread) {
    unread.streams.sort((a, b) => a.stream_id - b.stream_id || a.topic.localeCompare(b.topic));
    unread.pms.sort((a, b) => a.other_user_id - b.other_user_id);
    unread.huddles.sort((a, b) => a.user_ids_string.localeCompare(b.user_ids_string));
    unread.mentions.sort((a, b) => a - b);
    for (const b of [...unread.streams, ...unread.pms, ...unread.huddles]) b.unread_message_ids.sort((x, y) => x - y);
  }
  copy.starred_messages?.sort((a: number, b: number) => a - b);
  // Lists a client keeps in its own order (drafts by edit time, newest first; the others by id or time).
  copy.drafts?.sort(byId('id'));
  copy.saved_snippets?.sort(byId('id'));
  copy.scheduled_messages?.sort((a: any, b: any) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a.scheduled_message_id - b.scheduled_message_id);
  copy.reminders?.sort((a: any, b: any) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a.reminder_id - b.reminder_id);
  copy.realm_user_groups?.sort(byId('id'));
  copy.user_topics?.sort((a: any, b: any) => a.stream_id - b.stream_id || (a.topic_name < b.topic_name ? -1 : a.topic_name > b.topic_name ? 1 : 0));
  copy.channel_folders?.sort((a: any, b: any) => a.order - b.order || a.id - b.id);
  for (const g of copy.realm_user_groups ?? []) g.members?.sort((a: number, b: number) => a - b);
  delete copy.queue_id;
  delete copy.last_event_id;
  return copy;
}
