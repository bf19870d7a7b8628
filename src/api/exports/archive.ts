import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
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
import { userSetting } from '../../model/user-settings.js';
import { exportMessages } from './zulip/messages.js';
import { exportedAttachments, writeAvatars, writeEmoji, writeRealmIcons, writeUploads } from './zulip/files.js';
import { realmJson } from './zulip/realm-json.js';
import { Recipients, type Row } from './zulip/tables.js';
import migrationStatus from './zulip/migration-status.json' with { type: 'json' };

/**
 * The organization's data as the reference's export tarball (zerver/lib/export.py), so that
 * the reference's `manage.py import` and this server's `stoa realm import` take it:
 *
 *   zulip-export-.../realm.json            every organization table (zulip/realm-json.ts)
 *   zulip-export-.../messages-000001.json  1,000 messages a file, with their UserMessage rows
 *   zulip-export-.../attachment.json       the uploads the exported messages link
 *   zulip-export-.../uploads/ avatars/ emoji/ realm_icons/   files, each with its records.json
 *   zulip-export-.../migration_status.json the reference version this format is (10.2)
 *
 * Passwords and API keys stay out, as the reference leaves them out. Drafts, which the
 * reference does not export, go in as a table of their own (zerver_draft) that its import
 * ignores, so that a round trip through this server keeps them.
 *
 * What is exported follows the reference's kinds:
 * - public (1): public channels and their messages, nobody's private data (flags, topic
 *   settings, mutes...); a user whose email address nobody may see (email_address_visibility 4)
 *   is listed under a placeholder address;
 * - standard (2): also the private channels and direct messages of the users who consented
 *   (allow_private_data_export), and their private data;
 * - full (3, `stoa realm export` only, as the reference's `manage.py export` without consent):
 *   everything.
 *
 * The archive is built by the realm's shard in slices (lib/slices.ts), so the realm's requests
 * go on while it is written; it is written under a temporary name and renamed when complete.
 */

export const EXPORT_PUBLIC = 1;
export const EXPORT_STANDARD = 2;
export const EXPORT_FULL = 3;

const MESSAGES_PER_FILE = 1000;

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
  const consenting = type === EXPORT_FULL ? [...realm.users.values()] : type === EXPORT_STANDARD ? consentingUsers(realm) : [];
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

function addEntry(tar: Pack, root: string, name: string, data: Buffer): Promise<void> {
  return new Promise((resolve, reject) => tar.entry({ name: `${root}/${name}`, size: data.length, mtime: new Date() }, data, (err) => (err ? reject(err) : resolve())));
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value, null, 1));

/** Who received each message (model/read-state.ts): the DM's participants, or the channel's subscribers at the time. */
function receivers(realm: RealmState): (m: MessageRecord) => number[] {
  const byStream = new Map<number, [number, [number, number | null][]][]>();
  for (const [userId, streams] of realm.subHistory) {
    for (const [streamId, intervals] of streams) {
      const list = byStream.get(streamId) ?? [];
      list.push([userId, intervals]);
      byStream.set(streamId, list);
    }
  }
  return (m) => {
    if (m.receivers) return m.receivers;
    if (m.kind === 'direct') return m.dm!;
    const out = new Set<number>([m.senderId]);
    for (const [userId, intervals] of byStream.get(m.streamId!) ?? []) {
      if (intervals.some(([first, last]) => m.id >= first && (last === null || m.id <= last))) out.add(userId);
    }
    return [...out];
  };
}

/**
 * Writes the export of `type` as the reference's tarball into `dir` (a directory named after it
 * inside, as `manage.py export` makes it); resolves with the file's name.
 */
export async function writeExport(shard: Shard, realm: RealmState, type: number, dir: string, fileName: string): Promise<void> {
  const root = fileName.replace(/\.tar\.gz$/, '');
  const partial = join(dir, `${fileName}.partial`);
  const tar = pack();
  const written = pipeline(tar, createGzip(), createWriteStream(partial));
  try {
    const { channels, messageIds } = selectContent(shard, realm, type);
    const users = [...realm.users.values()].sort((a, b) => a.id - b.id);
    const consenting = new Set(type === EXPORT_STANDARD ? consentingUsers(realm).map((u) => u.id) : type === EXPORT_FULL ? users.map((u) => u.id) : []);
    const host = new URL(realm.url).host;
    const emailOf = (u: UserRecord) => (type === EXPORT_PUBLIC && userSetting(u, 'email_address_visibility') === 4 ? `user${u.id}@${host}` : u.email);
    const recipients = new Recipients(users, channels.map((s) => s.id));
    const clients = new Map<string, number>([['Internal', 1]]);
    const received = receivers(realm);
    // A public export carries nobody's flags; the others those of whom they carry private data.
    const flagUsers = users.filter((u) => consenting.has(u.id)).map((u) => u.id);
    const reactions: Row[] = [];
    const submessages: Row[] = [];
    let files = 0;
    const slice = new Slice();
    for (let i = 0; i < messageIds.length; i += MESSAGES_PER_FILE) {
      const msgs: MessageRecord[] = [];
      for (const id of messageIds.slice(i, i + MESSAGES_PER_FILE)) {
        const msg = getMessage(shard, realm, id);
        if (msg) msgs.push(msg); // else deleted since the selection
        if (slice.spent()) await slice.next();
      }
      const out = exportMessages(shard, realm, msgs, recipients, clients, flagUsers, received);
      reactions.push(...out.reactions);
      submessages.push(...out.submessages);
      await addEntry(tar, root, `messages-${String(++files).padStart(6, '0')}.json`, json({ zerver_message: out.messages, zerver_usermessage: out.usermessages }));
      await slice.next();
    }
    const add = (path: string, bytes: Buffer) => addEntry(tar, root, path, bytes);
    const uploads = await writeUploads(shard.config.dataDir, exportedAttachments(shard, realm, messageIds), add);
    await addEntry(tar, root, 'uploads/records.json', json(uploads.records));
    await addEntry(tar, root, 'attachment.json', json({ zerver_attachment: uploads.rows }));
    await addEntry(tar, root, 'avatars/records.json', json(await writeAvatars(shard, realm, users, add)));
    await addEntry(tar, root, 'emoji/records.json', json(await writeEmoji(shard, realm, add)));
    await addEntry(tar, root, 'realm_icons/records.json', json(await writeRealmIcons(shard, realm, add)));
    // The tables last, as they are once the messages are written.
    const tables = realmJson({ shard, realm, users, channels, recipients, emailOf, clients, reactions: reactions.map((r, n) => ({ id: n + 1, ...r })), submessages, privateData: (id) => consenting.has(id) });
    await addEntry(tar, root, 'realm.json', json({ ...tables, import_source: 'zulip' }));
    await addEntry(tar, root, 'analytics.json', json({ analytics_realmcount: [], analytics_usercount: [], analytics_streamcount: [] }));
    await addEntry(tar, root, 'migration_status.json', json(migrationStatus));
    tar.finalize();
    await written;
    await rename(partial, join(dir, fileName));
  } catch (err) {
    tar.destroy();
    await written.catch(() => undefined);
    await rm(partial, { force: true });
    throw err;
  }
}

/**
 * Writes the archive of `type` for the realm; resolves with its path below exportsDir
 * (`<secret>/<file name>`) and size. A failure leaves no file behind.
 */
export async function buildArchive(shard: Shard, realm: RealmState, type: number, exportId: number): Promise<{ path: string; size: number }> {
  const secret = randomBytes(12).toString('base64url');
  const fileName = exportFileName(realm, exportId);
  const dir = join(exportsDir(shard.config.dataDir, realm.id), secret);
  await mkdir(dir, { recursive: true });
  try {
    await writeExport(shard, realm, type, dir, fileName);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return { path: `${secret}/${fileName}`, size: (await stat(join(dir, fileName))).size };
}

/** The reference's name: zulip-export-<random>, here with the subdomain and time in it. */
export function exportFileName(realm: RealmState, exportId: number): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').slice(0, 15);
  return `zulip-export-${realm.realm.subdomain || 'root'}-${stamp}-${exportId}.tar.gz`;
}

/** Removes an export's file (its secret's directory). */
export async function removeArchive(dataDir: string, realmId: number, path: string): Promise<void> {
  const secret = path.split('/')[0];
  if (!secret || secret.includes('..')) return;
  await rm(join(exportsDir(dataDir, realmId), secret), { recursive: true, force: true });
}
