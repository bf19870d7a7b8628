import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { pack, type Pack } from 'tar-stream';
import { Slice } from '../../lib/slices.js';
import type { MessageRecord } from '../../model/message.js';
import type { RealmState } from '../../model/realm-state.js';
import type { StreamRecord, UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { getMessage, idsUnder } from '../../store/messages.js';
import { attachmentByPath } from '../../store/uploads.js';
import { userSetting } from '../events/register-settings.js';
import { linkedPathIds } from '../uploads/attachments.js';
import { uploadPath } from '../uploads/files.js';
import { ZULIP_FEATURE_LEVEL } from '../../version.js';

/**
 * The organization's data as a gzipped tar: Stoa's own format, JSON files a reader can take
 * apart with any tool (the reference's importer reads its own dump, which holds Django rows).
 *
 *   stoa-export/manifest.json        format, version, export type, when, what is in it
 *   stoa-export/realm.json           the organization and its settings
 *   stoa-export/users.json           people and bots: no API keys, no password hashes
 *   stoa-export/channels.json        the exported channels, with subscribers
 *   stoa-export/user_groups.json     groups, members and subgroups
 *   stoa-export/messages-000001.json the exported messages, 1,000 to a file, oldest first
 *   stoa-export/uploads/<path id>    the files those messages link to
 *
 * What is exported follows the reference's two kinds:
 * - public (1): public channels and their messages; a user whose email address nobody may see
 *   (email_address_visibility 4) is listed under a placeholder address;
 * - standard (2): also the private channels and direct messages of the users who consented
 *   (allow_private_data_export): a private channel when one of them is subscribed, a direct
 *   message when one of them took part.
 *
 * The archive is built by the realm's shard in slices (lib/slices.ts), so the realm's requests
 * go on while it is written; it is written under a temporary name and renamed when complete.
 */

export const EXPORT_PUBLIC = 1;
export const EXPORT_STANDARD = 2;

const MESSAGES_PER_FILE = 1000;
const ROOT = 'stoa-export';

/** <dataDir>/exports/<realm id>: each export in a directory named by a random secret. */
export const exportsDir = (dataDir: string, realmId: number) => join(dataDir, 'exports', String(realmId));

/** Users who consented to the export of their private data (active humans only). */
export function consentingUsers(realm: RealmState): UserRecord[] {
  return [...realm.activeUsers()].filter((u) => !u.isBot && userSetting(u, 'allow_private_data_export') === true);
}

interface Selection {
  channels: StreamRecord[];
  messageIds: number[];
}

/** The channels and message ids an export of this type holds. */
export function selectContent(shard: Shard, realm: RealmState, type: number): Selection {
  const consenting = type === EXPORT_STANDARD ? consentingUsers(realm) : [];
  const consentingIds = new Set(consenting.map((u) => u.id));
  const channels = [...realm.streams.values()].filter(
    (s) => !s.inviteOnly || [...realm.subscriberIds(s.id)].some((id) => consentingIds.has(id)),
  );
  const ids = new Set<number>();
  // Each range is read to its end at once: a cursor left open across slices would pin a snapshot.
  for (const s of channels) for (const id of [...idsUnder(shard.store.byStream, [realm.id, s.id])]) ids.add(id);
  for (const u of consenting) for (const id of [...idsUnder(shard.store.byUserDm, [realm.id, u.id])]) ids.add(id);
  return { channels: channels.sort((a, b) => a.id - b.id), messageIds: [...ids].sort((a, b) => a - b) };
}

function realmJson(realm: RealmState): unknown {
  const r = realm.realm;
  return {
    id: r.id,
    subdomain: r.subdomain,
    url: realm.url,
    name: r.name,
    description: r.description,
    date_created: r.dateCreated,
    settings: r.settings,
    linkifiers: r.linkifiers ?? [],
    code_playgrounds: r.playgrounds ?? [],
    user_settings_defaults: r.userSettingsDefaults ?? {},
  };
}

function usersJson(realm: RealmState, type: number): unknown {
  const host = new URL(realm.url).host;
  return [...realm.users.values()]
    .filter((u) => !u.isSystemBot)
    .sort((a, b) => a.id - b.id)
    .map((u) => ({
      id: u.id,
      email: type === EXPORT_PUBLIC && userSetting(u, 'email_address_visibility') === 4 ? `user${u.id}@${host}` : u.email,
      full_name: u.fullName,
      role: u.role,
      is_active: u.isActive,
      is_bot: u.isBot,
      bot_type: u.botType,
      bot_owner_id: u.botOwnerId,
      timezone: u.timezone,
      date_joined: u.dateJoined,
      profile_data: Object.fromEntries(Object.entries(u.profileData ?? {}).map(([id, v]) => [id, v.value])),
    }));
}

function channelsJson(realm: RealmState, channels: StreamRecord[]): unknown {
  return channels.map((s) => ({
    id: s.id,
    name: s.name,
    description: s.description,
    invite_only: s.inviteOnly,
    history_public_to_subscribers: s.historyPublicToSubscribers,
    is_web_public: s.isWebPublic,
    is_archived: s.isArchived,
    is_default: s.isDefault,
    date_created: s.dateCreated,
    creator_id: s.creatorId,
    folder_id: s.folderId ?? null,
    subscribers: [...realm.subscriberIds(s.id)].sort((a, b) => a - b),
  }));
}

function groupsJson(realm: RealmState): unknown {
  return [...realm.groups.values()]
    .sort((a, b) => a.id - b.id)
    .map((g) => ({ id: g.id, name: g.name, description: g.description, is_system_group: g.isSystemGroup, deactivated: g.deactivated, members: g.members, subgroups: g.subgroups }));
}

function messageJson(m: MessageRecord): unknown {
  return {
    id: m.id,
    sender_id: m.senderId,
    type: m.kind === 'stream' ? 'stream' : 'private',
    channel_id: m.streamId,
    topic: m.topic,
    dm_user_ids: m.dm,
    content: m.content,
    rendered_content: m.rendered,
    client: m.client,
    timestamp: m.timestamp,
    last_edit_timestamp: m.lastEditTs,
    edit_history: m.edits,
    reactions: m.reactions.map((r) => ({ user_id: r.userId, emoji_name: r.emojiName, emoji_code: r.emojiCode, reaction_type: r.reactionType })),
  };
}

function addEntry(tar: Pack, name: string, data: Buffer): Promise<void> {
  return new Promise((resolve, reject) => tar.entry({ name: `${ROOT}/${name}`, size: data.length, mtime: new Date() }, data, (err) => (err ? reject(err) : resolve())));
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value, null, 1));

/**
 * Writes the archive of `type` for the realm; resolves with its path below exportsDir
 * (`<secret>/<file name>`) and size. A failure leaves no file behind.
 */
export async function buildArchive(shard: Shard, realm: RealmState, type: number, exportId: number): Promise<{ path: string; size: number }> {
  const secret = randomBytes(12).toString('base64url');
  const stamp = new Date().toISOString().replace(/[-:]/g, '').slice(0, 15);
  const fileName = `stoa-export-${realm.realm.subdomain || 'root'}-${stamp}-${exportId}.tar.gz`;
  const dir = join(exportsDir(shard.config.dataDir, realm.id), secret);
  await mkdir(dir, { recursive: true });
  const partial = join(dir, `${fileName}.partial`);
  const tar = pack();
  const written = pipeline(tar, createGzip(), createWriteStream(partial));
  try {
    const { channels, messageIds } = selectContent(shard, realm, type);
    const uploads = new Set<string>();
    let files = 0;
    const slice = new Slice();
    for (let i = 0; i < messageIds.length; i += MESSAGES_PER_FILE) {
      const batch: unknown[] = [];
      for (const id of messageIds.slice(i, i + MESSAGES_PER_FILE)) {
        const msg = getMessage(shard, realm, id);
        if (!msg) continue; // deleted since the selection
        batch.push(messageJson(msg));
        for (const pathId of linkedPathIds(realm, msg.content)) uploads.add(pathId);
        if (slice.spent()) await slice.next();
      }
      await addEntry(tar, `messages-${String(++files).padStart(6, '0')}.json`, json(batch));
      await slice.next();
    }
    let uploaded = 0;
    for (const pathId of uploads) {
      const rec = attachmentByPath(shard, realm.id, pathId);
      if (!rec) continue;
      const bytes = await readFile(uploadPath(shard.config.dataDir, rec.pathId)).catch(() => null);
      if (!bytes) continue;
      await addEntry(tar, `uploads/${rec.pathId}`, bytes);
      uploaded++;
    }
    // The tables last, as they are once the messages are written.
    await addEntry(tar, 'realm.json', json(realmJson(realm)));
    await addEntry(tar, 'users.json', json(usersJson(realm, type)));
    await addEntry(tar, 'channels.json', json(channelsJson(realm, channels)));
    await addEntry(tar, 'user_groups.json', json(groupsJson(realm)));
    const manifest = { format: 'stoa-export', format_version: 1, api_feature_level: ZULIP_FEATURE_LEVEL, export_type: type, exported_at: Date.now() / 1000, realm_id: realm.id, messages: messageIds.length, message_files: files, uploads: uploaded };
    await addEntry(tar, 'manifest.json', json(manifest));
    tar.finalize();
    await written;
    await rename(partial, join(dir, fileName));
    return { path: `${secret}/${fileName}`, size: (await stat(join(dir, fileName))).size };
  } catch (err) {
    tar.destroy();
    await written.catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/** Removes an export's file (its secret's directory). */
export async function removeArchive(dataDir: string, realmId: number, path: string): Promise<void> {
  const secret = path.split('/')[0];
  if (!secret || secret.includes('..')) return;
  await rm(join(exportsDir(dataDir, realmId), secret), { recursive: true, force: true });
}
