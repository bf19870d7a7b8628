import { request as httpRequest } from 'node:http';
import t from 'tap';
import { stoa, tempDir } from '../cli/run.js';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.js';
import { buildReferenceTarball, EXPECTED, PASSWORDS } from './reference-export.js';

/**
 * `stoa realm import` of a reference-format export that uses every table Stoa models: people
 * log in with their old passwords (argon2, PBKDF2 and bcrypt-SHA256 hashes made by Python's
 * libraries), and the organization, through the API, is the one exported: settings, people,
 * groups and group-valued permissions, channels and subscriptions, messages with their HTML,
 * edits, reactions, polls, each person's flags, topic visibility, mutes, statuses, alert words,
 * profile fields, linkifiers, playgrounds, default channels, domains, emoji, folders, snippets,
 * navigation views, drafts, scheduled messages, uploads and the links to them.
 */

async function login(ts: TestServer, host: string, email: string, password: string): Promise<Credentials | null> {
  const res = await ts.request('POST', '/fetch_api_key', { auth: null, host, params: { username: email, password }, unchecked: true });
  return res.status === 200 ? { email, apiKey: res.body.api_key as string } : null;
}

function getBytes(port: number, host: string, path: string, auth: Credentials): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host, authorization: `Basic ${Buffer.from(`${auth.email}:${auth.apiKey}`).toString('base64')}` }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('importing a reference export', async (t) => {
  t.setTimeout(240_000);
  const work = tempDir(t, 'stoa-import-ref-');
  const dataDir = tempDir(t, 'stoa-import-data-');
  // A server that made its root realm first: the import adds an organization beside it.
  await (await startTestServer(t, {}, { dataDir })).close();
  const tarball = await buildReferenceTarball(work);

  const run = await stoa(dataDir, ['realm', 'import', tarball, '--subdomain', 'acme']);
  t.equal(run.code, 0, `the import succeeds${run.stderr ? `: ${run.stderr}` : ''}`);
  t.match(run.stderr, /Imported zulip export into organization "acme"/, 'and says so');
  t.match(run.stdout, /3 people keep their passwords/, 'three people keep their passwords');
  t.match(run.stdout, /guest@acme\.test/, 'the one with an unusable hash is listed for a password reset');

  const ts = await startTestServer(t, {}, { dataDir });
  const host = `acme.${ts.server.config.externalHost}`;
  const owner = await login(ts, host, PASSWORDS.owner.email, PASSWORDS.owner.password);
  const admin = await login(ts, host, PASSWORDS.admin.email, PASSWORDS.admin.password);
  const member = await login(ts, host, PASSWORDS.member.email, PASSWORDS.member.password);
  t.ok(owner, 'the owner logs in with the old password (argon2)');
  t.ok(admin, 'the administrator too (PBKDF2-SHA256)');
  t.ok(member, 'and the member (bcrypt-SHA256)');
  t.equal(await login(ts, host, PASSWORDS.owner.email, 'wrong-password'), null, 'a wrong password is refused');
  t.equal(await login(ts, host, 'guest@acme.test', '!unusable'), null, 'an unusable hash lets nobody in');
  const as = (c: Credentials | null) => (method: string, path: string, params?: Record<string, unknown>) => ts.request(method, path, { auth: c!, host, params });
  const o = as(owner);
  const m = as(member);

  t.test('the organization and its settings', async (t) => {
    const reg = (await o('POST', '/register', { fetch_event_types: ['realm', 'realm_domains', 'realm_playgrounds', 'realm_linkifiers', 'default_streams', 'realm_emoji', 'custom_profile_fields', 'realm_user_settings_defaults'], client_capabilities: { linkifier_url_template: true } })).body;
    t.equal(reg.realm_name, EXPECTED.realmName, 'name');
    t.equal(reg.realm_description, 'Imported organization', 'description');
    t.equal(reg.realm_allow_message_editing, false, 'a boolean setting');
    t.equal(reg.realm_waiting_period_threshold, 3, 'a number setting');
    t.equal(reg.realm_message_content_edit_limit_seconds, 1200, 'a limit');
    t.equal(reg.realm_video_chat_provider, 0, 'an enum setting');
    t.equal(reg.realm_message_edit_history_visibility_policy, 'all', 'a policy');
    t.same(reg.realm_domains.map((d: { domain: string }) => d.domain), ['acme.test'], 'realm domains');
    t.same(reg.realm_playgrounds.map((p: { name: string }) => p.name), ['Python'], 'code playgrounds');
    t.same(reg.realm_linkifiers.map((l: { pattern: string }) => l.pattern), ['#(?P<id>[0-9]+)'], 'linkifiers');
    t.same(Object.values(reg.realm_emoji).map((e: any) => e.name), ['party'], 'custom emoji');
    t.same(reg.custom_profile_fields.map((f: { name: string }) => f.name), ['Phone', 'Manager'], 'profile fields');
    t.equal(reg.realm_user_settings_defaults.twenty_four_hour_time, true, 'defaults for new users');
    const streams = (await o('GET', '/streams')).body.streams as { stream_id: number; name: string }[];
    const general = streams.find((s) => s.name === 'general')!;
    t.equal(reg.realm_new_stream_announcements_stream_id, general.stream_id, 'a channel-valued setting names the new channel');
    t.same(reg.realm_default_streams, [general.stream_id], 'default channels');
    const groups = (await o('GET', '/user_groups')).body.user_groups as { id: number; name: string; members: number[]; direct_subgroup_ids: number[]; is_system_group: boolean }[];
    const support = groups.find((g) => g.name === 'support')!;
    t.ok(support, 'the named group');
    t.equal(reg.realm_can_add_custom_emoji_group, support.id, 'a group-valued permission names it');
    t.same(reg.realm_can_create_groups.direct_subgroups, [support.id], 'an anonymous group keeps its subgroups');
    t.equal(reg.realm_can_create_groups.direct_members.length, 1, 'and its members');
    t.equal(support.direct_subgroup_ids.length, 1, 'the named group keeps its subgroup');
  });

  t.test('people', async (t) => {
    const users = (await o('GET', '/users', { include_custom_profile_fields: true })).body.members as any[];
    const byEmail = new Map(users.map((u) => [u.email, u]));
    for (const email of EXPECTED.users) t.ok(byEmail.has(email), `${email} is there`);
    t.equal(byEmail.get('iago@acme.test').role, 100, 'roles');
    t.equal(byEmail.get('guest@acme.test').role, 600, 'guest role');
    t.equal(byEmail.get('gone@acme.test').is_active, false, 'a deactivated user stays deactivated');
    t.equal(byEmail.get('helper-bot@acme.test').is_bot, true, 'bots');
    t.equal(byEmail.get('helper-bot@acme.test').bot_owner_id, byEmail.get('iago@acme.test').user_id, 'with their owner');
    t.equal(byEmail.get('iago@acme.test').timezone, 'Europe/Paris', 'time zones');
    const cordelia = byEmail.get('cordelia@acme.test');
    const fields = Object.values(cordelia.profile_data) as { value: string }[];
    t.ok(fields.some((f) => f.value === '555-0100'), 'a profile field value');
    t.ok(fields.some((f) => f.value === JSON.stringify([byEmail.get('hamlet@acme.test').user_id])), 'a users field names the new ids');
    const hamlet = byEmail.get('hamlet@acme.test');
    t.match(hamlet.avatar_url, /\/user_avatars\//, 'an uploaded avatar');
    const avatar = await getBytes(ts.port, host, new URL(hamlet.avatar_url, 'http://x').pathname, owner!);
    t.equal(avatar.status, 200, 'which is served');
    const settings = (await m('POST', '/register', { fetch_event_types: ['user_settings', 'muted_users', 'alert_words', 'user_topic'] })).body;
    t.equal(settings.user_settings.emojiset, 'text', 'personal settings');
    t.same(settings.muted_users.map((u: { id: number }) => u.id), [byEmail.get('guest@acme.test').user_id], 'muted users');
    t.same(settings.user_topics.map((u: { topic_name: string; visibility_policy: number }) => [u.topic_name, u.visibility_policy]), [['links', 1]], 'topic visibility');
    t.same((await o('POST', '/register', { fetch_event_types: ['alert_words'] })).body.alert_words, ['lunch'], 'alert words');
    const status = (await o('GET', `/users/${hamlet.user_id}/status`)).body.status;
    t.equal(status.status_text, 'In a meeting', 'statuses');
  });

  t.test('channels and subscriptions', async (t) => {
    const subs = (await as(admin)('GET', '/users/me/subscriptions')).body.subscriptions as any[];
    const general = subs.find((s) => s.name === 'general');
    t.equal(general.color, '#e79ab5', 'subscription colors');
    t.equal(general.desktop_notifications, true, 'notification settings');
    t.equal(subs.find((s) => s.name === 'secret').is_muted, true, 'muted channels');
    t.equal(subs.find((s) => s.name === 'secret').invite_only, true, 'private channels');
    t.equal(subs.find((s) => s.name === 'secret').history_public_to_subscribers, false, 'with protected history');
    const every = (await o('GET', '/streams', { exclude_archived: false })).body.streams as any[];
    t.equal(every.find((s) => s.name === 'old').is_archived, true, 'archived channels');
    const mine = (await o('GET', '/users/me/subscriptions')).body.subscriptions as any[];
    t.equal(mine.find((s) => s.name === 'general').pin_to_top, true, 'pinned channels');
    const members = (await o('GET', `/streams/${general.stream_id}/members`)).body.subscribers as number[];
    t.equal(members.length, 4, 'subscribers');
  });

  t.test('messages, flags, reactions, edits, polls, uploads', async (t) => {
    const all = (await o('GET', '/messages', { anchor: 'oldest', num_before: 0, num_after: 100, narrow: [] })).body.messages as any[];
    t.equal(all.length, 8, 'the owner sees the messages they received (not the archived channel they never joined)');
    const welcome = all.find((x) => x.subject === 'welcome' && /Hello/.test(x.content));
    const users = (await o('GET', '/users')).body.members as any[];
    const cordeliaId = users.find((u) => u.email === 'cordelia@acme.test').user_id;
    t.match(welcome.content, new RegExp(`data-user-id="${cordeliaId}"`), 'rendered mentions name the new user id');
    t.same(welcome.reactions.map((r: any) => [r.emoji_name, r.user_id]), [['+1', cordeliaId]], 'reactions');
    const notes = all.find((x) => /Notes/.test(x.content));
    const link = /href="(\/user_uploads\/[^"]+)"/.exec(notes.content)![1];
    t.notMatch(link, /Xy12AbCdEfGhIjKlMnOpQrSt/, 'upload links point to the new file');
    const file = await getBytes(ts.port, host, link, owner!);
    t.equal(file.body.toString(), EXPECTED.uploadBytes, 'which is served');
    t.equal(notes.reactions[0].emoji_name, 'party', 'a custom emoji reaction');
    const links = all.find((x) => x.subject === 'links');
    t.match(links.content, new RegExp(`near/${welcome.id}`), 'narrow links name the new message id');
    t.match(links.content, new RegExp(`near/${notes.id}`), 'message links too');
    const raw = (await o('GET', `/messages/${links.id}`, { apply_markdown: false })).body.message;
    t.match(raw.content, new RegExp(`#\\*\\*general>welcome@${notes.id}\\*\\*`), 'and the Markdown');
    const plan = all.find((x) => x.subject === 'plans');
    t.equal(plan.content, '<p>The secret plan, revised</p>', 'rendered content as exported');
    const history = (await o('GET', `/messages/${plan.id}/history`)).body.message_history as any[];
    t.same(history.map((h) => h.content), ['The secret plan', 'The secret plan, revised'], 'edit history');
    const poll = all.find((x) => x.subject === 'poll');
    t.equal(poll.submessages.length, 2, 'poll submessages');
    t.equal(poll.submessages[1].sender_id, cordeliaId, 'votes keep their voter');
    const notice = all.find((x) => x.subject === 'moved');
    t.equal(notice.sender_email, 'notification-bot@zulip.com', 'the reference\'s Notification Bot is the realm\'s');
    const dm = all.filter((x) => x.type === 'private');
    t.equal(dm.length, 2, 'direct and group direct messages');

    const cordelia = (await m('GET', '/messages', { anchor: 'oldest', num_before: 0, num_after: 100, narrow: [] })).body.messages as any[];
    const flags = new Map(cordelia.map((x) => [x.id, x.flags]));
    t.same(flags.get(welcome.id).sort(), ['mentioned', 'read', 'starred'], 'flags: read, mentioned, starred');
    t.same(flags.get(links.id), [], 'unread stays unread');
    const unread = (await m('POST', '/register', { fetch_event_types: ['message', 'update_message_flags'] })).body.unread_msgs;
    t.same(unread.pms.map((p: { sender_id: number }) => p.sender_id), [users.find((u) => u.email === 'iago@acme.test').user_id], 'unread direct messages');
    t.equal(unread.huddles.length, 1, 'an unread group direct message');
    t.same(unread.streams.map((s: { topic: string }) => s.topic), ['links'], 'an unread channel message (in a topic muted: not counted)');
    const starred = (await m('GET', '/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'is', operand: 'starred' }] })).body.messages as any[];
    t.same(starred.map((x) => x.subject).sort(), ['archive', 'welcome'], 'starred narrow, a historical star included');
    const search = (await o('GET', '/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'search', operand: 'revised' }] })).body.messages as any[];
    t.equal(search.length, 1, 'full-text search finds imported messages');
    const attachments = (await m('GET', '/attachments')).body.attachments as any[];
    t.same(attachments.map((a) => a.name), [EXPECTED.uploadName], 'the attachment');
    t.same(attachments[0].messages.map((x: { id: number }) => x.id), [notes.id], 'linked to its message');
  });

  t.test('what people keep for themselves', async (t) => {
    t.same((await o('GET', '/saved_snippets')).body.saved_snippets.map((s: any) => s.title), ['Greeting'], 'saved snippets');
    const scheduled = (await o('GET', '/scheduled_messages')).body.scheduled_messages as any[];
    t.same(scheduled.map((s) => s.content), ['Scheduled hello'], 'scheduled messages');
    t.same((await m('GET', '/drafts')).body.drafts.map((d: any) => d.content), ['Unsent thoughts'], 'drafts');
    const views = (await o('GET', '/navigation_views')).body.navigation_views as any[];
    const streams = (await o('GET', '/streams')).body.streams as { stream_id: number; name: string }[];
    t.same(views.map((v) => v.fragment), [`narrow/channel/${streams.find((s) => s.name === 'general')!.stream_id}-general`], 'navigation views name the new channel');
  });

  t.test('a second import of the same file into the same subdomain is refused', async (t) => {
    await ts.close();
    const again = await stoa(dataDir, ['realm', 'import', tarball, '--subdomain', 'acme']);
    t.equal(again.code, 1, 'refused');
    t.match(again.stderr, /already in use/, 'the subdomain is taken');
  });
});
