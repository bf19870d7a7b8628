import type { Credentials, TestServer } from '../helpers/server.js';

/**
 * An organization as one user sees it through the API, with every id replaced by what it names
 * (an address, a channel name, a message's place in the history, a file's name), so that two
 * organizations with the same content compare equal whatever their ids.
 */
type Json = any;

export async function snapshot(ts: TestServer, host: string, me: Credentials): Promise<Json> {
  const call = async (method: string, path: string, params?: Record<string, unknown>) => {
    const res = await ts.request(method, path, { auth: me, host, params });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const users = (await call('GET', '/users', { include_custom_profile_fields: true })).members as Json[];
  const bots = (await call('POST', '/register', { fetch_event_types: ['realm_user'] })).cross_realm_bots as Json[];
  const emailOf = new Map<number, string>([...users, ...bots].map((u) => [u.user_id, u.email]));
  const streams = (await call('GET', '/streams', { exclude_archived: false, include_all: true })).streams as Json[];
  const streamOf = new Map<number, string>(streams.map((s) => [s.stream_id, s.name]));
  const reg = await call('POST', '/register', {
    fetch_event_types: ['realm', 'realm_user_groups', 'user_topic', 'muted_users', 'alert_words', 'custom_profile_fields', 'realm_emoji', 'realm_linkifiers', 'realm_playgrounds', 'realm_domains', 'default_streams', 'channel_folders', 'user_settings', 'realm_user_settings_defaults', 'update_message_flags', 'message', 'drafts', 'saved_snippets', 'navigation_view', 'scheduled_messages', 'subscription', 'user_status'],
    client_capabilities: { linkifier_url_template: true, archived_channels: true, user_settings_object: true },
  });
  const groupOf = new Map<number, string>((reg.realm_user_groups as Json[]).map((g) => [g.id, g.name]));
  const fieldOf = new Map<number, string>((reg.custom_profile_fields as Json[]).map((f) => [f.id, f.name]));
  const folderOf = new Map<number, string>((reg.channel_folders ?? [] as Json[]).map((f: Json) => [f.id, f.name]));
  const messages = (await call('GET', '/messages', { anchor: 'oldest', num_before: 0, num_after: 5000, narrow: [], apply_markdown: false })).messages as Json[];
  const rendered = (await call('GET', '/messages', { anchor: 'oldest', num_before: 0, num_after: 5000, narrow: [] })).messages as Json[];
  const place = new Map<number, number>(messages.map((m, i) => [m.id, i]));
  const group = (v: Json) => (typeof v === 'number' ? groupOf.get(v) : { members: v.direct_members.map((id: number) => emailOf.get(id)).sort(), subgroups: v.direct_subgroups.map((id: number) => groupOf.get(id)).sort() });
  // Ids inside text: users, channels, groups, messages, uploads, custom emoji images.
  const text = (s: string) =>
    String(s)
      .replace(/data-user-id="(\d+)"/g, (_a, id) => `data-user="${emailOf.get(Number(id))}"`)
      .replace(/data-stream-id="(\d+)"/g, (_a, id) => `data-stream="${streamOf.get(Number(id))}"`)
      .replace(/data-user-group-id="(\d+)"/g, (_a, id) => `data-group="${groupOf.get(Number(id))}"`)
      .replace(/(channel|stream)\/(\d+)-/g, (_a, op, id) => `${op}/${streamOf.get(Number(id))}-`)
      .replace(/(near|with|id)\/(\d+)/g, (_a, op, id) => `${op}/#${place.get(Number(id))}`)
      .replace(/@(\d+)\*\*/g, (_a, id) => `@#${place.get(Number(id))}**`)
      .replace(/\/user_uploads\/\d+\/[^/]+\/[^/]+\/([^\s)"']+)/g, '/user_uploads/…/$1')
      .replace(/\/user_avatars\/\d+\/emoji\/images\/[^"'\s]+/g, '/user_avatars/…/emoji')
      .replace(/\|(\d+)\*\*/g, (_a, id) => `|${emailOf.get(Number(id))}**`);
  const realmSettings = Object.fromEntries(
    Object.entries(reg)
      .filter(([k]) => k.startsWith('realm_') && !['realm_url', 'realm_uri', 'realm_icon_url', 'realm_logo_url', 'realm_night_logo_url', 'realm_bot_domain', 'realm_users', 'realm_non_active_users', 'realm_user_groups', 'realm_emoji', 'realm_linkifiers', 'realm_playgrounds', 'realm_domains', 'realm_default_streams', 'realm_user_settings_defaults', 'realm_date_created'].includes(k))
      .map(([k, v]) => [k, /^realm_(can_|create_multiuse_invite_group|direct_message_)/.test(k) ? group(v) : k.endsWith('_stream_id') || k.endsWith('_channel_id') ? (v === -1 ? -1 : (streamOf.get(v as number) ?? 'a channel not shown')) : v]),
  );
  const history = async (id: number) => ((await call('GET', `/messages/${id}/history`)).message_history as Json[]).map((h) => ({ content: h.content, topic: h.topic, user: emailOf.get(h.user_id) }));
  return {
    realm: realmSettings,
    icon: /user_avatars/.test(reg.realm_icon_url),
    users: users.map((u) => ({ email: u.email, name: u.full_name, role: u.role, active: u.is_active, bot: u.is_bot, owner: emailOf.get(u.bot_owner_id), tz: u.timezone, uploadedAvatar: /user_avatars/.test(u.avatar_url ?? ''), profile: Object.fromEntries(Object.entries(u.profile_data ?? {}).map(([f, v]: [string, Json]) => [fieldOf.get(Number(f)), fieldOf.get(Number(f)) === 'Manager' ? JSON.parse(v.value).map((id: number) => emailOf.get(id)) : v])) })).sort((a, b) => a.email.localeCompare(b.email)),
    groups: (reg.realm_user_groups as Json[]).map((g) => ({ name: g.name, system: g.is_system_group, members: g.members.map((id: number) => emailOf.get(id)).sort(), subgroups: g.direct_subgroup_ids.map((id: number) => groupOf.get(id)).sort(), settings: Object.fromEntries(Object.entries(g).filter(([k]) => k.startsWith('can_')).map(([k, v]) => [k, group(v)])) })).sort((a, b) => a.name.localeCompare(b.name)),
    streams: streams.map((s) => ({ name: s.name, description: s.description, rendered: s.rendered_description, private: s.invite_only, history: s.history_public_to_subscribers, webPublic: s.is_web_public, archived: s.is_archived, folder: folderOf.get(s.folder_id), first: place.get(s.first_message_id) ?? null, settings: Object.fromEntries(Object.entries(s).filter(([k]) => k.startsWith('can_')).map(([k, v]) => [k, group(v)])) })).sort((a, b) => a.name.localeCompare(b.name)),
    subscriptions: (reg.subscriptions as Json[]).map((s) => ({ name: s.name, color: s.color, muted: s.is_muted, pinned: s.pin_to_top, desktop: s.desktop_notifications, audible: s.audible_notifications, push: s.push_notifications, email: s.email_notifications, wildcard: s.wildcard_mentions_notify, subscribers: s.subscribers?.map((id: number) => emailOf.get(id)).sort() })).sort((a, b) => a.name.localeCompare(b.name)),
    unsubscribed: (reg.unsubscribed as Json[]).map((s) => s.name).sort(),
    messages: await Promise.all(
      messages.map(async (m, i) => ({
        sender: m.sender_email,
        to: m.type === 'stream' ? streamOf.get(m.stream_id) : (m.display_recipient as Json[]).map((r) => r.email).sort(),
        topic: m.subject,
        content: text(m.content),
        rendered: text(rendered[i].content),
        flags: [...m.flags].sort(),
        timestamp: m.timestamp,
        edited: m.last_edit_timestamp ?? null,
        reactions: m.reactions.map((r: Json) => [r.emoji_name, r.reaction_type, emailOf.get(r.user_id)]).sort(),
        submessages: m.submessages.map((s: Json) => [emailOf.get(s.sender_id), s.msg_type, s.content]),
        history: m.last_edit_timestamp ? await history(m.id) : null,
      })),
    ),
    unread: { count: reg.unread_msgs.count, streams: (reg.unread_msgs.streams as Json[]).map((s) => [streamOf.get(s.stream_id), s.topic, s.unread_message_ids.map((id: number) => place.get(id))]) },
    userTopics: (reg.user_topics as Json[]).map((t) => [streamOf.get(t.stream_id), t.topic_name, t.visibility_policy]).sort(),
    mutedUsers: (reg.muted_users as Json[]).map((m) => emailOf.get(m.id)).sort(),
    alertWords: reg.alert_words,
    profileFields: (reg.custom_profile_fields as Json[]).map((f) => ({ name: f.name, hint: f.hint, type: f.type, data: f.field_data, summary: f.display_in_profile_summary, required: f.required, editable: f.editable_by_user })),
    emoji: Object.values(reg.realm_emoji as Json).map((e: Json) => ({ name: e.name, deactivated: e.deactivated, author: emailOf.get(e.author_id), animated: Boolean(e.still_url) })).sort((a, b) => a.name.localeCompare(b.name)),
    linkifiers: (reg.realm_linkifiers as Json[]).map((l) => [l.pattern, l.url_template]),
    playgrounds: (reg.realm_playgrounds as Json[]).map((p) => [p.name, p.pygments_language, p.url_template]),
    domains: reg.realm_domains,
    defaultStreams: (reg.realm_default_streams as number[]).map((id) => streamOf.get(id)).sort(),
    folders: (reg.channel_folders ?? [] as Json[]).map((f: Json) => [f.name, f.description, f.is_archived]),
    settings: reg.user_settings,
    defaults: reg.realm_user_settings_defaults,
    drafts: (reg.drafts as Json[]).map((d) => [d.type, d.to.map((id: number) => (d.type === 'stream' ? streamOf.get(id) : emailOf.get(id))), d.topic, d.content]),
    snippets: (reg.saved_snippets as Json[]).map((s) => [s.title, s.content]),
    navigationViews: ((reg.navigation_views ?? []) as Json[]).map((v) => [text(v.fragment), v.is_pinned, v.name]),
    scheduled: (reg.scheduled_messages as Json[]).map((s) => [s.type, s.type === 'stream' ? streamOf.get(s.to) : s.to.map((id: number) => emailOf.get(id)), s.topic, s.content, s.scheduled_delivery_timestamp, s.failed]),
    statuses: Object.fromEntries(Object.entries(reg.user_status as Json).map(([id, s]) => [emailOf.get(Number(id)), s])),
    attachments: ((await call('GET', '/attachments')).attachments as Json[]).map((a) => [a.name, a.size, a.messages.map((m: Json) => place.get(m.id))]),
  };
}
