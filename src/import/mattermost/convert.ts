import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { convert as htmlToText } from 'html-to-text';
import { sanitizeName } from '../../api/uploads/files.js';
import { emojiTables } from '../../markdown/emoji.js';
import { ImportError } from '../errors.js';
import type { Progress } from '../progress.js';
import { DATA_IMPORT_CLIENT, DATA_IMPORT_CLIENTS, ExportWriter, truncate, userMessageFlags } from '../writer.js';

/**
 * A Mattermost bulk export (JSON lines: version, team, channel, user, post, direct_channel,
 * direct_post, emoji; attachments under data/, emoji images beside it) converted into the
 * reference's export format as its zerver/data_import/mattermost.py converts it: one team, its
 * members (and, as inactive mirror accounts, other people who posted in it), channels named by
 * their display names (cut to 60 characters, numbered on collision), direct and group direct
 * messages when the export holds one team, replies after the post they answer, @username
 * mentions, reactions, custom emoji and attachments. Message text goes through an HTML-to-text
 * conversion, as the reference's goes through html2text.
 */
type Json = Record<string, any>;

const TOPIC = 'imported from mattermost';
const ANNOUNCEMENTS = 'Town Square';
const IMAGE = /\.(bmp|gif|jpe?g|png|webp)$/i;
const MENTION = /(?<=^|[^a-zA-Z0-9\-_.])@(([A-Za-z0-9]+[_.]?)+)/g;

export interface MattermostData {
  team: Json[];
  channel: Json[];
  user: Json[];
  post: Json[];
  direct_channel: Json[];
  direct_post: Json[];
  emoji: Json[];
}

/** The export's records by type, from export.json or the *.jsonl file. */
export function readMattermost(root: string): MattermostData {
  const file = existsSync(join(root, 'export.json')) ? 'export.json' : readdirSync(root).find((n) => n.endsWith('.jsonl'))!;
  const data: MattermostData = { team: [], channel: [], user: [], post: [], direct_channel: [], direct_post: [], emoji: [] };
  readFileSync(join(root, file), 'utf8').split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let row: Json;
    try {
      row = JSON.parse(line);
    } catch (err) {
      throw new ImportError(file, `line ${i + 1}`, `not valid JSON (${(err as Error).message})`);
    }
    const type = row.type as keyof MattermostData | 'version';
    if (type === 'version') return;
    if (!(type in data) || typeof row[type] !== 'object' || row[type] === null) throw new ImportError(file, `line ${i + 1}`, `a record of unknown type ${JSON.stringify(row.type)}`);
    data[type].push(row[type]);
  });
  return data;
}

const inTeam = (user: Json, team: string) => Array.isArray(user.teams) && user.teams.some((t: Json) => t.name === team);

/** The reference's html2text step: Markdown with HTML in it, reduced to text; "\n\n" closes it, as there. */
function toText(content: string): string {
  return `${htmlToText(content, { wordwrap: 78, preserveNewlines: false })}\n\n`;
}

export async function convertMattermost(root: string, out: string, opts: { progress: Progress; team?: string }): Promise<string> {
  const data = readMattermost(root);
  if (data.team.length === 0) throw new ImportError('export.json', null, 'no team in the export');
  const team = data.team.find((t) => t.name === opts.team) ?? data.team[0];
  const single = data.team.length === 1;
  const w = new ExportWriter(out);
  const name = team.name as string;

  // People: the team's members, and as mirror accounts those who posted in it without being in it.
  const byName = new Map(data.user.map((u) => [u.username as string, u]));
  const dummies = new Set<string>();
  for (const p of [...data.post.filter((p) => p.team === name), ...(single ? data.direct_post : [])]) if (!inTeam(byName.get(p.user) ?? {}, name)) dummies.add(p.user);
  const userIds = new Map<string, number>();
  for (const u of data.user) {
    if (!inTeam(u, name) && !dummies.has(u.username)) continue;
    const id = w.next('user');
    userIds.set(u.username, id);
    const teamRoles = String(u.teams?.find((t: Json) => t.name === name)?.roles ?? '');
    const full = `${u.first_name ?? ''} ${u.last_name ?? ''}`;
    const dummy = dummies.has(u.username);
    w.add('zerver_userprofile', { id, email: u.email, delivery_email: u.email, full_name: full.trim() ? full : u.username, role: teamRoles.includes('team_admin') ? 100 : teamRoles.includes('team_guest') ? 600 : 400, is_active: !dummy, is_mirror_dummy: dummy, is_bot: false, bot_type: null, bot_owner: null, date_joined: Math.floor(Date.now() / 1000), timezone: 'UTC', avatar_source: 'G', avatar_version: 1 });
  }
  const realm: Json = { id: 1, string_id: name, name, description: 'Organization imported from Mattermost!', date_created: Math.floor(Date.now() / 1000) };
  w.add('zerver_realm', realm);
  for (const c of DATA_IMPORT_CLIENTS) w.add('zerver_client', c);
  const personal = new Map<number, number>();
  for (const [, id] of userIds) {
    const recipient = w.next('recipient');
    personal.set(id, recipient);
    w.add('zerver_recipient', { id: recipient, type: 1, type_id: id });
    w.add('zerver_subscription', { id: w.next('subscription'), user_profile: id, recipient, active: true, color: '#c2c2c2' });
  }

  // Channels, named by display name, with the members their users list.
  const channels = new Map<string, { recipient: number; members: number[] }>();
  const counts = new Map<string, number>();
  for (const c of data.channel.filter((c) => c.team === name)) {
    let display = truncate(String(c.display_name), 60);
    const seen = counts.get(display);
    if (seen !== undefined) {
      counts.set(display, seen + 1);
      display = truncate(display, 60 - ` (${seen + 1})`.length) + ` (${seen + 1})`;
    } else counts.set(display, 1);
    const id = w.next('stream');
    const inviteOnly = c.type === 'P';
    w.add('zerver_stream', { id, name: display, description: String(c.purpose || c.header || '').replace(/\n/g, ' '), invite_only: inviteOnly, history_public_to_subscribers: !inviteOnly, deactivated: false, date_created: Math.floor(Date.now() / 1000) });
    if (c.display_name === ANNOUNCEMENTS) realm.new_stream_announcements_stream = realm.zulip_update_announcements_stream = id;
    const recipient = w.next('recipient');
    w.add('zerver_recipient', { id: recipient, type: 2, type_id: id });
    const members: number[] = [];
    for (const [username, uid] of userIds) {
      const roles = byName.get(username)?.teams?.find((t: Json) => t.name === name)?.channels?.find((ch: Json) => ch.name === c.name)?.roles ?? '';
      if (/channel_(admin|user)/.test(roles)) members.push(uid);
    }
    for (const uid of members) w.add('zerver_subscription', { id: w.next('subscription'), user_profile: uid, recipient, active: true, color: '#76ce90' });
    channels.set(c.name, { recipient, members });
  }
  const huddles = new Map<string, { recipient: number; members: number[] }>();
  if (single) {
    for (const d of data.direct_channel) {
      const members = [...new Set((d.members as string[]).map((m) => userIds.get(m)).filter((v): v is number => v !== undefined))].sort((a, b) => a - b);
      if (members.length <= 2 || huddles.has(members.join(','))) continue;
      const id = w.next('huddle');
      w.add('zerver_huddle', { id, group_size: members.length });
      const recipient = w.next('recipient');
      w.add('zerver_recipient', { id: recipient, type: 3, type_id: id });
      for (const uid of members) w.add('zerver_subscription', { id: w.next('subscription'), user_profile: uid, recipient, active: true, color: '#c2c2c2' });
      huddles.set(members.join(','), { recipient, members });
    }
  }

  // Custom emoji, copied with the name as the file's.
  const emojiRecords: Json[] = [];
  const emojiIds = new Map<string, number>();
  for (const e of data.emoji) {
    const from = join(root, String(e.image));
    if (!existsSync(from)) throw new ImportError(String(e.image), `emoji ${String(e.name)}`, 'the image is missing from the export');
    const id = w.next('realmemoji');
    emojiIds.set(e.name, id);
    const path = `1/emoji/images/${e.name}`;
    mkdirSync(dirname(join(out, 'emoji', path)), { recursive: true });
    copyFileSync(from, join(out, 'emoji', path));
    emojiRecords.push({ path, s3_path: path, file_name: e.name, realm_id: 1, name: e.name });
    w.add('zerver_realmemoji', { id, name: e.name, file_name: e.name, author: null, deactivated: false });
  }

  // Posts, replies after the post they answer, in time order.
  const raw: Json[] = [];
  const take = (p: Json, direct: boolean) => {
    raw.push({ ...p, direct });
    for (const reply of (p.replies ?? []) as Json[]) raw.push({ ...reply, channel: p.channel, channel_members: p.channel_members, direct });
  };
  for (const p of data.post) if ((p.team ?? name) === name) take(p, false);
  if (single) for (const p of data.direct_post) take(p, true);
  raw.sort((a, b) => a.create_at - b.create_at);
  opts.progress.phase('converting', raw.length);
  const attachments: Json[] = [];
  const uploads: Json[] = [];
  const { nameToCode } = emojiTables();
  raw.forEach((p, n) => {
    const sender = userIds.get(p.user);
    if (sender === undefined) return;
    let content = String(p.message ?? '');
    const mentioned = new Set<number>();
    for (const m of content.matchAll(MENTION)) {
      const id = userIds.get(m[1]);
      if (id !== undefined) mentioned.add(id);
    }
    for (const id of mentioned) {
      const u = (w.tables.zerver_userprofile ?? []).find((x) => x.id === id)!;
      const username = [...userIds].find(([, v]) => v === id)![0];
      content = content.split(`@${username}`).join(`@**${String(u.full_name)}**`);
    }
    content = content.replaceAll('@channel', '@**all**').replaceAll('@all', '@**all**').replaceAll('@here', '@**all**');
    content = toText(content);
    let recipient: number;
    let readers: number[];
    const direct = p.direct || !p.channel;
    if (!direct) {
      const channel = channels.get(p.channel);
      if (!channel) return;
      recipient = channel.recipient;
      readers = channel.members;
    } else {
      const members = [...new Set((p.channel_members as string[]).map((m) => userIds.get(m)).filter((v): v is number => v !== undefined))].sort((a, b) => a - b);
      if (members.length > 2) {
        const huddle = huddles.get(members.join(','));
        if (!huddle) return;
        recipient = huddle.recipient;
      } else recipient = personal.get(members.find((m) => m !== sender) ?? sender)!;
      readers = members;
    }
    const files = (p.attachments ?? []) as Json[];
    const links: string[] = [];
    let hasImage = false;
    for (const a of files) {
      const from = join(root, 'data', String(a.path));
      if (!existsSync(from)) throw new ImportError(`data/${String(a.path)}`, `post of ${String(p.user)} at ${String(p.create_at)}`, 'the attachment is missing from the export');
      const fileName = basename(String(a.path));
      if (IMAGE.test(fileName)) hasImage = true;
      const mac = createHash('sha256').update(`${String(a.path)}\0${n}`).digest();
      const pathId = `1/${mac.subarray(0, 1).toString('hex')}/${mac.subarray(1, 19).toString('base64url')}/${sanitizeName(fileName)}`;
      mkdirSync(dirname(join(out, 'uploads', pathId)), { recursive: true });
      copyFileSync(from, join(out, 'uploads', pathId));
      const size = statSync(from).size;
      links.push(`[${fileName}](/user_uploads/${pathId})`);
      uploads.push({ realm_id: 1, user_profile_id: sender, s3_path: pathId, path: pathId, size, content_type: null });
      attachments.push({ id: attachments.length + 1, file_name: fileName, path_id: pathId, owner: sender, size, create_time: statSync(from).mtimeMs / 1000, content_type: null, messages: [w.messageCount + 1], scheduled_messages: [] });
    }
    content += links.join('\n');
    const id = w.message(
      { sender, recipient, subject: direct ? '' : TOPIC, content: content.replace(/\0/g, ''), rendered_content: null, date_sent: Math.floor(Number(p.create_at) / 1000), sending_client: DATA_IMPORT_CLIENT, has_attachment: files.length > 0, has_link: files.length > 0, has_image: hasImage },
      [...new Set([sender, ...readers])].map((u) => [u, userMessageFlags(mentioned.has(u), direct)]),
    );
    for (const r of (p.reactions ?? []) as Json[]) {
      const uid = userIds.get(r.user);
      if (uid === undefined) continue;
      const code = nameToCode.get(r.emoji_name);
      if (code) w.add('zerver_reaction', { id: w.next('reaction'), message: id, user_profile: uid, emoji_name: r.emoji_name, emoji_code: code, reaction_type: 'unicode_emoji' });
      else if (emojiIds.has(r.emoji_name)) w.add('zerver_reaction', { id: w.next('reaction'), message: id, user_profile: uid, emoji_name: r.emoji_name, emoji_code: String(emojiIds.get(r.emoji_name)), reaction_type: 'realm_emoji' });
    }
    opts.progress.tick(n + 1);
  });
  w.finish('mattermost', attachments, uploads, emojiRecords);
  return out;
}
