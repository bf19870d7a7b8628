import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { emojiTables } from '../../markdown/emoji.js';
import { ImportError } from '../errors.js';
import type { Progress } from '../progress.js';
import { DATA_IMPORT_CLIENT, DATA_IMPORT_CLIENTS, ExportWriter, truncate, userMessageFlags } from '../writer.js';
import { SlackAttachments, type SlackLeftBehind } from './attach.js';
import type { SlackFetched } from './files.js';
import { blocksAndAttachments, slackFullName, toZulipMarkdown, type ConvertContext, type SlackUser } from './markdown.js';

/**
 * A Slack workspace export (the zip of users.json, channels.json, groups.json, mpims.json,
 * dms.json and a folder of daily files per conversation) converted into the reference's export
 * format, as the reference's zerver/data_import/slack.py converts it: the same users, roles and
 * addresses, channels and their members, group and direct messages, the Slack-to-Markdown
 * conversion, skipped subtypes, and threads either in the channel's one topic or, with
 * `threads`, each in a topic of its own named by date and snippet.
 *
 * What the reference asks Slack's API for with a token (the user list, custom emoji, the team
 * icon and the files) comes in `fetched` when the import has a token (files.ts); then the files
 * become uploads and the emoji the organization's (attach.ts). Without it the conversion works
 * on the export alone: users come from users.json, files Slack hosts stay links to Slack, and
 * custom emoji reactions are skipped; what stayed behind is counted in the result.
 */
type Json = Record<string, any>;

const SKIPPED_SUBTYPES = new Set(['pinned_item', 'unpinned_item', 'channel_join', 'channel_leave', 'channel_name']);
const TOPIC = 'imported from Slack';
const DEFAULT_CHANNELS = ['general', 'random'];

function read(root: string, name: string, optional = false): Json[] {
  const path = join(root, name);
  if (!existsSync(path)) {
    if (optional) return [];
    throw new ImportError(name, null, 'missing from the Slack export');
  }
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ImportError(name, null, `not valid JSON (${(err as Error).message})`);
  }
  if (!Array.isArray(data)) throw new ImportError(name, null, 'must be a list');
  return data as Json[];
}

const owner = (u: Json) => u.is_owner === true || u.is_primary_owner === true;
const guest = (u: Json) => u.is_restricted === true || u.is_ultra_restricted === true;
const isSlackbot = (u: Json) => slackFullName(u as SlackUser).toLowerCase() === 'slackbot';

function timezone(u: Json): string {
  const tz = u.tz as string | null | undefined;
  return tz && tz.includes('/') ? tz : 'America/New_York';
}

/** The reference's get_user_email, with a placeholder where it would fail. */
function email(u: Json, domain: string, bots: Map<string, string>): string {
  if (u.profile?.email) return u.profile.email as string;
  if (u.is_mirror_dummy && u.team_domain) return `${String(u.name)}@${String(u.team_domain)}.slack.com`;
  if (u.profile?.bot_id) {
    const id = u.profile.bot_id as string;
    if (!bots.has(id)) {
      const base = String(u.profile.real_name_normalized ?? u.profile.first_name ?? id).replaceAll('Bot', '').replace(/ /g, '').toLowerCase();
      let address = /^[a-z0-9._-]+$/.test(base) ? `${base}-bot@${domain}` : `${id.toLowerCase()}-bot@${domain}`;
      const taken = [...bots.values()].filter((e) => e === address || e.startsWith(address.replace('@', '-'))).length;
      if (taken > 0) address = address.replace('@', `-${taken + 1}@`);
      bots.set(id, address);
    }
    return bots.get(id)!;
  }
  if (isSlackbot(u)) return `imported-slackbot-bot@${domain}`;
  return `${String(u.name ?? u.id).toLowerCase().replace(/[^a-z0-9._-]/g, '')}-${String(u.id).toLowerCase()}@slack.invalid`;
}

/** The reference's thread topic name: date, snippet, and a counter for collisions. */
function threadTopic(content: string, ts: number, counter: Map<string, number>): string {
  const date = new Date(ts * 1000).toISOString().slice(0, 10);
  const base = truncate(`${date} ${content}`.trim(), 60);
  const collision = counter.get(base) ?? 0;
  counter.set(base, collision + 1);
  const count = collision > 0 ? ` (${collision + 1})` : '';
  return truncate(`${date} ${content}`.trim(), 60 - count.length) + count;
}

/**
 * The reference's user list: users.list's members (they carry the addresses), with each one's
 * custom profile fields from users.json, which only the export has; users.json's others after.
 */
function mergeUsers(fromFile: Json[], fromApi: Json[]): Json[] {
  const byId = new Map(fromFile.map((u) => [u.id, u]));
  const listed = new Set(fromApi.map((u) => u.id));
  const merged = fromApi.map((u) => ({ ...u, profile: { ...(u.profile ?? {}), fields: byId.get(u.id)?.profile?.fields ?? u.profile?.fields } }));
  return [...merged, ...fromFile.filter((u) => !listed.has(u.id))];
}

export async function convertSlack(
  root: string,
  out: string,
  opts: { threads: boolean; progress: Progress; domain?: string; fetched?: SlackFetched },
): Promise<{ dir: string; left: SlackLeftBehind }> {
  const domain = opts.domain ?? 'slack.invalid';
  const w = new ExportWriter(out);
  const files = new SlackAttachments(out, opts.fetched ?? null);
  const fromFile = read(root, 'users.json');
  const users = opts.fetched ? mergeUsers(fromFile, opts.fetched.users) : fromFile;
  users.forEach((u, i) => {
    if (typeof u.id !== 'string' || typeof u.name !== 'string') throw new ImportError('users.json', `[${i}]`, 'a user needs an id and a name');
  });
  // Users: the primary owner first, as the reference numbers them; one account per address.
  const ordered = [...users.filter((u) => u.is_primary_owner), ...users.filter((u) => !u.is_primary_owner)];
  const userIds = new Map<string, number>();
  const byEmail = new Map<string, number>();
  const botEmails = new Map<string, string>();
  const fieldIds = new Map<string, number>();
  for (const u of ordered) {
    u.is_mirror_dummy ??= false;
    const address = email(u, domain, botEmails);
    const existing = byEmail.get(address.toLowerCase());
    if (existing !== undefined) {
      userIds.set(u.id, existing);
      continue;
    }
    const id = w.next('user');
    byEmail.set(address.toLowerCase(), id);
    userIds.set(u.id, id);
    const bot = isSlackbot(u) || u.is_bot === true;
    w.add('zerver_userprofile', {
      id,
      email: address,
      delivery_email: address,
      full_name: slackFullName(u as SlackUser),
      role: guest(u) ? 600 : owner(u) ? 100 : u.is_admin ? 200 : 400,
      is_active: u.deleted !== true && !u.is_mirror_dummy,
      is_mirror_dummy: u.is_mirror_dummy,
      is_bot: bot,
      bot_type: bot ? 1 : null,
      bot_owner: null,
      date_joined: Math.floor(Date.now() / 1000),
      timezone: timezone(u),
      avatar_source: files.avatar(u.id as string, id),
      avatar_version: 1,
    });
    // Custom profile fields: phone, skype and the workspace's own fields, as short text.
    const fields: Record<string, string> = {};
    for (const name of ['phone', 'skype']) if (typeof u.profile?.[name] === 'string') fields[name] = u.profile[name];
    for (const [key, value] of Object.entries((u.profile?.fields ?? {}) as Record<string, { value?: string }>)) if (typeof value?.value === 'string') fields[key] = value.value;
    for (const [key, value] of Object.entries(fields)) {
      if (!fieldIds.has(key)) {
        const fieldId = w.next('field');
        fieldIds.set(key, fieldId);
        w.add('zerver_customprofilefield', { id: fieldId, name: ['phone', 'skype'].includes(key) ? key : `Slack custom field ${fieldId}`, hint: '', field_type: 1, field_data: '', order: fieldId });
      }
      if (value !== '') w.add('zerver_customprofilefieldvalue', { id: w.next('fieldvalue'), user_profile: id, field: fieldIds.get(key)!, value });
    }
  }
  for (const f of w.tables.zerver_customprofilefield ?? []) {
    if ((w.tables.zerver_customprofilefieldvalue ?? []).some((v) => v.field === f.id && String(v.value).length > 50)) f.field_type = 2;
  }
  for (const u of w.tables.zerver_userprofile ?? []) {
    const recipient = w.next('recipient');
    w.add('zerver_recipient', { id: recipient, type: 1, type_id: u.id });
    w.add('zerver_subscription', { id: w.next('subscription'), user_profile: u.id, recipient, active: true, color: '#c2c2c2' });
  }
  const personal = new Map((w.tables.zerver_recipient ?? []).map((r) => [r.type_id as number, r.id as number]));

  // Channels, private channels, group DMs; their members are subscribed.
  const channelIds = new Map<string, string>();
  const recipients = new Map<string, { recipient: number; members: number[]; direct: boolean }>();
  const subscribe = (members: string[], recipient: number) => {
    const ids = [...new Set(members.map((m) => userIds.get(m)).filter((id): id is number => id !== undefined))];
    for (const id of ids) w.add('zerver_subscription', { id: w.next('subscription'), user_profile: id, recipient, active: true, color: '#76ce90' });
    return ids;
  };
  const realm: Json = { id: 1, string_id: '', name: 'Slack', description: 'Organization imported from Slack!', date_created: Math.floor(Date.now() / 1000) };
  for (const [file, inviteOnly] of [['channels.json', false], ['groups.json', true]] as const) {
    read(root, file, file === 'groups.json').forEach((c, i) => {
      if (typeof c.name !== 'string' || !Array.isArray(c.members)) throw new ImportError(file, `[${i}]`, 'a channel needs a name and members');
      const id = w.next('stream');
      const deactivated = c.is_archived === true;
      w.add('zerver_stream', { id, name: c.name, description: String(c.purpose?.value ?? '').replace(/\n/g, ' '), invite_only: inviteOnly, history_public_to_subscribers: !inviteOnly, deactivated, date_created: Number(c.created ?? 0) });
      if (DEFAULT_CHANNELS.includes(c.name) && !deactivated) w.add('zerver_defaultstream', { id: w.next('defaultstream'), stream: id });
      if (c.name === 'general') realm.new_stream_announcements_stream = realm.zulip_update_announcements_stream = id;
      const recipient = w.next('recipient');
      w.add('zerver_recipient', { id: recipient, type: 2, type_id: id });
      recipients.set(c.name, { recipient, members: subscribe(c.members, recipient), direct: false });
      channelIds.set(c.name, c.id);
    });
  }
  for (const m of read(root, 'mpims.json', true)) {
    const id = w.next('huddle');
    w.add('zerver_huddle', { id, group_size: m.members.length });
    const recipient = w.next('recipient');
    w.add('zerver_recipient', { id: recipient, type: 3, type_id: id });
    recipients.set(m.name, { recipient, members: subscribe(m.members, recipient), direct: true });
  }
  const dms = new Map(read(root, 'dms.json', true).map((d) => [d.id as string, d.members as string[]]));
  files.addEmojiAndIcon(w, realm);
  w.add('zerver_realm', realm);
  for (const c of DATA_IMPORT_CLIENTS) w.add('zerver_client', c);

  // Messages, day by day across every conversation, in time order.
  const ctx: ConvertContext = { users: users as SlackUser[], channels: channelIds, userIds };
  const days = new Map<string, string[]>();
  for (const dir of [...recipients.keys(), ...dms.keys()]) {
    if (!existsSync(join(root, dir))) continue;
    for (const file of readdirSync(join(root, dir))) if (file.endsWith('.json')) days.set(file, [...(days.get(file) ?? []), dir]);
  }
  const dayNames = [...days.keys()].sort();
  opts.progress.phase('converting', dayNames.length);
  const threadOwners = new Map<string, string>();
  const threadTopics = new Map<string, string>();
  const counter = new Map<string, number>();
  const { nameToCode, codeToName } = emojiTables();
  dayNames.forEach((day, n) => {
    const batch: Json[] = [];
    for (const dir of days.get(day)!) {
      const messages = read(root, join(dir, day));
      for (const m of messages) {
        if (m.user === 'U00' || m.mimetype === 'application/vnd.slack-docs') continue;
        batch.push({ ...m, conversation: dir });
      }
    }
    batch.sort((a, b) => Number(a.ts) - Number(b.ts));
    for (const m of batch) {
      const slackSender = (m.user ?? m.file?.user ?? m.bot_id) as string | undefined;
      if (!slackSender || SKIPPED_SUBTYPES.has(m.subtype)) continue;
      const sender = userIds.get(slackSender);
      if (sender === undefined) continue;
      const formatted = blocksAndAttachments(m);
      const converted = toZulipMarkdown(formatted !== '' ? formatted : String(m.text ?? ''), ctx);
      let content = converted.text;
      if (['bot_add', 'sh_room_created', 'me_message'].includes(m.subtype)) content = `/me ${content}`;
      const shared = files.links(m, sender, w.messageCount + 1);
      const links = shared.links;
      if (links.length > 0) content = [content, ...links].filter((p) => p !== '').join('\n');
      const channel = recipients.get(m.conversation);
      const dm = dms.get(m.conversation);
      const isDirect = dm !== undefined || channel?.direct === true;
      let topic = isDirect ? '' : TOPIC;
      if (opts.threads && !isDirect && m.thread_ts) {
        const ts = Number(m.thread_ts);
        const parent = m.subtype === 'thread_broadcast' ? (m.root?.user ?? m.root?.bot_id) : m.thread_ts === m.ts ? (m.user ?? m.bot_id) : (m.parent_user_id ?? m.bot_id ?? threadOwners.get(m.thread_ts));
        if (m.thread_ts === m.ts) threadOwners.set(m.thread_ts, parent);
        const key = `${new Date(ts * 1000).toISOString()}-${String(parent)}`;
        if (!threadTopics.has(key)) threadTopics.set(key, threadTopic(content, ts, counter));
        topic = threadTopics.get(key)!;
      }
      let recipient: number;
      let readers: number[];
      if (dm) {
        const [a, b] = dm.map((u) => userIds.get(u));
        if (a === undefined || b === undefined) continue;
        recipient = personal.get(slackSender === dm[0] ? b : a)!;
        readers = [...new Set([a, b])];
      } else {
        recipient = channel!.recipient;
        readers = channel!.members;
      }
      const id = w.message(
        { sender, recipient, subject: topic, content: content.replace(/\0/g, ''), rendered_content: null, date_sent: Number(m.ts), sending_client: DATA_IMPORT_CLIENT, has_link: converted.hasLink || links.length > 0, has_image: shared.hasImage, has_attachment: shared.hasAttachment },
        readers.map((u) => [u, userMessageFlags(converted.mentioned.includes(u), isDirect)]),
      );
      // Reactions: skin tones dropped and merged, names mapped to the reference's emoji.
      const merged = new Map<string, Set<string>>();
      for (const r of (m.reactions ?? []) as Json[]) {
        const name = String(r.name).split('::')[0];
        merged.set(name, new Set([...(merged.get(name) ?? []), ...(r.users ?? [])]));
      }
      for (const [name, reactors] of merged) {
        const code = nameToCode.get(name);
        const custom = code ? undefined : files.customEmoji(name);
        if (!code && custom === undefined) continue;
        const emoji = code ? { emoji_name: codeToName.get(code) ?? name, emoji_code: code, reaction_type: 'unicode_emoji' } : { emoji_name: custom!.name, emoji_code: String(custom!.id), reaction_type: 'realm_emoji' };
        const seen = new Set<number>();
        for (const u of reactors) {
          const uid = userIds.get(u);
          if (uid === undefined || seen.has(uid)) continue;
          seen.add(uid);
          w.add('zerver_reaction', { id: w.next('reaction'), message: id, user_profile: uid, ...emoji });
        }
      }
    }
    opts.progress.tick(n + 1);
  });
  w.finish('slack', files.attachments, files.uploads, files.emojiRecords, files.iconRecords, files.avatarRecords);
  return { dir: out, left: files.left };
}
