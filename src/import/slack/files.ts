import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_EMOJI_FILE_SIZE_MIB } from '../../api/emoji/actions.js';
import { sniffImage } from '../../api/emoji/image.js';
import { MAX_FILE_UPLOAD_BYTES, MAX_FILE_UPLOAD_SIZE_MIB } from '../../store/uploads.js';
import { ImportError } from '../errors.js';
import type { Progress } from '../progress.js';
import { shownUrl, SlackRequestError, type SlackClient } from './api.js';

/**
 * What an import with a Slack token fetches before the conversion, as the reference's
 * do_convert_directory does: the user list (users.list, which has the addresses an export may
 * lack), the custom emoji (emoji.list), the team's icon (team.info), people's avatars (Slack's
 * image CDN, as the reference's build_avatar_url names them) and every file Slack hosts
 * that a message shares (url_private, with the token). Each goes into a cache beside the job
 * (`<job>/slack-cache/`), written whole or not at all, so a run stopped half way and started
 * again downloads only what it lacks. A file that cannot be had (refused, missing, over the
 * server's upload limit, a login page instead of the file) is reported and its message keeps its
 * link to Slack; at most CONCURRENCY downloads run at once.
 */
type Json = Record<string, any>;

export const CONCURRENCY = 6;
const EMOJI_LIMIT = MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024;
/** The reference's MAX_AVATAR_FILE_SIZE_MIB default. */
const AVATAR_LIMIT = 5 * 1024 * 1024;
const imageOnly = (type: string) => (type.startsWith('image/') ? null : `not an image (${type})`);

export interface FetchedFile {
  path: string;
  size: number;
}

export interface SlackFetched {
  users: Json[];
  /** By url_private: the downloaded copy. */
  files: Map<string, FetchedFile>;
  /** Custom emoji by name: the downloaded image and its extension. */
  emoji: Map<string, { path: string; ext: string }>;
  /** emoji.list's aliases: alias name -> the emoji's name. */
  aliases: Map<string, string>;
  icon: string | null;
  /** By Slack user id: the downloaded avatar. */
  avatars: Map<string, string>;
  report: SlackFetchReport;
}

export interface SlackFetchReport {
  users: number;
  /** Users the export names whom Slack would not describe (left out, with their messages). */
  usersMissing: number;
  files: number;
  downloaded: number;
  failed: { name: string; url: string; reason: string }[];
  emoji: number;
  emojiFailed: { name: string; reason: string }[];
  icon: boolean;
  avatars: number;
  avatarsFailed: number;
}

function onHost(url: unknown, host: string): boolean {
  try {
    return new URL(String(url)).hostname === host;
  } catch {
    return false;
  }
}

/** The reference's test for a file Slack hosts (and so downloads): url_private on files.slack.com. */
export const slackHosted = (file: Json): boolean => onHost(file.url_private, 'files.slack.com');

/** A message's files as the reference's process_message_files takes them: no tombstones, no stubs. */
export function messageFiles(m: Json): Json[] {
  const files = (m.subtype === 'file_share' && m.file ? [m.file] : (m.files ?? [])) as Json[];
  return files.filter((f) => !['tombstone', 'hidden_by_limit'].includes(f.mode) && !['access_denied', 'file_not_found'].includes(f.file_access) && f.url_private);
}

function list(root: string, name: string): Json[] {
  try {
    const data = JSON.parse(readFileSync(join(root, name), 'utf8')) as unknown;
    return Array.isArray(data) ? (data as Json[]) : [];
  } catch {
    return [];
  }
}

/**
 * One pass over the export's conversations: every Slack-hosted file shared, once each; the users
 * who are members or senders (the reference's fetch_shared_channel_users looks up those Slack's
 * user list lacks: people of another workspace in a shared channel); the integration bots that
 * posted (a bot_message without a user).
 */
function scanExport(root: string): { files: Json[]; people: Set<string>; bots: Set<string> } {
  const conversations = ['channels.json', 'groups.json', 'mpims.json'].flatMap((f) => list(root, f).map((c) => ({ dir: String(c.name), members: c.members })));
  conversations.push(...list(root, 'dms.json').map((d) => ({ dir: String(d.id), members: d.members })));
  const files = new Map<string, Json>();
  const people = new Set<string>();
  const bots = new Set<string>();
  for (const { dir, members } of conversations) {
    if (Array.isArray(members)) for (const id of members) people.add(String(id));
    if (!existsSync(join(root, dir))) continue;
    for (const day of readdirSync(join(root, dir)).filter((f) => f.endsWith('.json')).sort()) {
      for (const m of list(join(root, dir), day)) {
        if (m.user === 'U00') continue;
        for (const f of messageFiles(m)) if (slackHosted(f) && !files.has(f.url_private)) files.set(f.url_private, f);
        if (m.subtype === 'bot_message' && !('user' in m) && m.bot_id) bots.add(String(m.bot_id));
        else if (m.user ?? m.file?.user ?? m.bot_id) people.add(String(m.user ?? m.file?.user ?? m.bot_id));
      }
    }
  }
  return { files: [...files.values()], people, bots };
}

/**
 * The users the export names but Slack's user list lacks, as the reference adds them: an
 * integration bot from bots.info (a placeholder when Slack no longer has it), and a person of
 * another workspace from users.info, a deactivated "mirror dummy" addressed at that workspace's
 * domain (team.info). One Slack does not describe is left out, with their messages, as without
 * a token.
 */
async function otherUsers(client: SlackClient, known: Set<string>, scan: { people: Set<string>; bots: Set<string> }): Promise<{ users: Json[]; missing: number }> {
  const users: Json[] = [];
  let missing = 0;
  for (const id of [...scan.bots].filter((b) => !known.has(b)).sort()) {
    known.add(id);
    let bot: Json | null = null;
    try {
      bot = (await client.api('bots.info', { bot: id })).body.bot as Json;
    } catch (err) {
      if (!(err instanceof SlackRequestError && err.message.endsWith(': bot_not_found'))) throw err;
    }
    const name = bot ? String(bot.name) : `Deleted Slack Bot ${id}`;
    const profile: Json = { bot_id: id, first_name: name };
    if (typeof bot?.icons?.image_72 === 'string') profile.image_72 = bot.icons.image_72;
    users.push({ id, name, deleted: bot ? bot.deleted === true : true, is_mirror_dummy: false, real_name: name, is_integration_bot: true, profile });
  }
  const domains = new Map<string, string>();
  for (const id of [...scan.people].filter((p) => !known.has(p)).sort()) {
    known.add(id);
    try {
      const user = (await client.api('users.info', { user: id })).body.user as Json;
      const team = String(user.team_id ?? '');
      if (!domains.has(team)) domains.set(team, String(((await client.api('team.info', { team })).body.team as Json).domain));
      users.push({ ...user, team_domain: domains.get(team), is_mirror_dummy: true });
    } catch (err) {
      if (!(err instanceof SlackRequestError) || err.status !== undefined) throw err;
      missing++;
    }
  }
  return { users, missing };
}

const key = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 40);

/** Runs `work` on every item, at most `limit` at once. */
async function pool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

const reason = (err: unknown) => (err instanceof SlackRequestError ? err.message : `failed (${(err as Error).name})`);

export async function fetchFromSlack(root: string, client: SlackClient, cache: string, progress: Progress): Promise<SlackFetched> {
  const apiCall = async <T>(what: () => Promise<T>): Promise<T> => {
    try {
      return await what();
    } catch (err) {
      throw new ImportError('Slack API', null, reason(err));
    }
  };
  await apiCall(() => client.checkToken());
  const users = await apiCall(() => client.usersList());
  const scan = scanExport(root);
  const others = await apiCall(() => otherUsers(client, new Set([...users, ...list(root, 'users.json')].map((u) => String(u.id))), scan));
  users.push(...others.users);
  const emojiList = (await apiCall(() => client.api('emoji.list'))).body.emoji as Record<string, string>;
  const team = (await apiCall(() => client.api('team.info'))).body.team as Json;
  for (const dir of ['files', 'emoji', 'avatars']) mkdirSync(join(cache, dir), { recursive: true });

  // Custom emoji: the reference takes those Slack serves from emoji.slack-edge.com; aliases name another.
  const emoji = new Map<string, { path: string; ext: string }>();
  const aliases = new Map<string, string>();
  const emojiFailed: SlackFetchReport['emojiFailed'] = [];
  const wanted: [string, string][] = [];
  for (const [name, url] of Object.entries(emojiList ?? {})) {
    if (typeof url !== 'string') continue;
    if (url.startsWith('alias:')) aliases.set(name, url.slice('alias:'.length));
    else if (!/^[0-9a-z_-]*[0-9a-z]$/.test(name)) emojiFailed.push({ name, reason: 'not a valid emoji name here' });
    else if (onHost(url, 'emoji.slack-edge.com')) wanted.push([name, url]);
  }
  progress.phase('emoji', wanted.length);
  let done = 0;
  await pool(wanted, CONCURRENCY, async ([name, url]) => {
    const path = join(cache, 'emoji', key(url));
    try {
      if (!existsSync(path)) await client.download(url, path, { limit: EMOJI_LIMIT, withToken: false, expect: imageOnly });
      const format = sniffImage(readFileSync(path).subarray(0, 64));
      if (!format) throw new SlackRequestError('not an image this server takes');
      emoji.set(name, { path, ext: format === 'jpeg' ? 'jpg' : format });
    } catch (err) {
      emojiFailed.push({ name, reason: reason(err) });
    }
    progress.tick(++done);
  });

  // The team's icon, unless Slack's default, as the reference's fetch_team_icons picks it.
  let icon: string | null = null;
  const icons = (team?.icon ?? {}) as Json;
  const iconUrl = icons.image_default ? undefined : ((icons.image_original ?? icons.image_230 ?? icons.image_132 ?? icons.image_102) as string | undefined);
  if (iconUrl) {
    const path = join(cache, 'icon');
    try {
      if (!existsSync(path)) await client.download(iconUrl, path, { limit: MAX_FILE_UPLOAD_BYTES, withToken: false, expect: imageOnly });
      icon = path;
    } catch {
      // An organization without its icon is still whole: the default one shows.
    }
  }

  // Avatars: a person's uploaded picture, or an integration bot's icon; the others keep the default.
  const avatars = new Map<string, string>();
  let avatarsFailed = 0;
  const pictures = users.map((u) => [String(u.id), avatarUrl(u)] as const).filter((p): p is [string, string] => p[1] !== null);
  progress.phase('avatars', pictures.length);
  done = 0;
  await pool(pictures, CONCURRENCY, async ([id, url]) => {
    const path = join(cache, 'avatars', key(url));
    try {
      if (!existsSync(path)) await client.download(url, path, { limit: AVATAR_LIMIT, withToken: false, expect: imageOnly });
      avatars.set(id, path);
    } catch {
      avatarsFailed++;
    }
    progress.tick(++done);
  });

  // Files: the ones over the server's upload limit are not asked for.
  const files = new Map<string, FetchedFile>();
  const failed: SlackFetchReport['failed'] = [];
  const shared = scan.files;
  progress.phase('downloading', shared.length);
  done = 0;
  await pool(shared, CONCURRENCY, async (f) => {
    const url = String(f.url_private);
    const path = join(cache, 'files', key(url));
    try {
      if (Number(f.size) > MAX_FILE_UPLOAD_BYTES) throw new SlackRequestError(`larger than the server's upload limit of ${MAX_FILE_UPLOAD_SIZE_MIB} MiB`);
      if (!existsSync(path)) {
        await client.download(url, path, {
          limit: MAX_FILE_UPLOAD_BYTES,
          withToken: true,
          // Slack answers a request it does not accept with its sign-in page, status 200.
          expect: (type) => (type === 'text/html' && !String(f.mimetype ?? '').startsWith('text/html') ? 'Slack answered with a web page, not the file (does the token have files:read?)' : null),
        });
      }
      files.set(url, { path, size: statSync(path).size });
    } catch (err) {
      failed.push({ name: String(f.name ?? f.title ?? ''), url: shownUrl(url), reason: reason(err) });
    }
    progress.tick(++done);
  });
  return {
    users,
    files,
    emoji,
    aliases,
    icon,
    avatars,
    report: { users: users.length, usersMissing: others.missing, files: shared.length, downloaded: files.size, failed, emoji: emoji.size, emojiFailed, icon: icon !== null, avatars: avatars.size, avatarsFailed },
  };
}

/** The reference's build_avatar_url: Slack's CDN by team, user and hash (512 pixels), or a bot's image_72. */
function avatarUrl(u: Json): string | null {
  if (u.profile?.avatar_hash && u.team_id) return `https://ca.slack-edge.com/${String(u.team_id)}-${String(u.id)}-${String(u.profile.avatar_hash)}-512`;
  if (u.is_integration_bot && typeof u.profile?.image_72 === 'string') return u.profile.image_72;
  return null;
}
