import { readFile } from 'node:fs/promises';
import type { RealmState } from '../../../model/realm-state.js';
import type { UserRecord } from '../../../model/types.js';
import { avatarFileName } from '../../../store/avatars.js';
import type { StoreView } from '../../../store/shard-store.js';
import { getAttachment, messageAttachmentIds, type AttachmentRecord } from '../../../store/uploads.js';
import { uploadPath } from '../../uploads/files.js';
import type { Row } from './tables.js';

/**
 * The files of a reference-format export, each folder with its records.json as
 * zerver/lib/export.py writes them for local storage: uploads/ (by path id), avatars/ (the
 * original and the 100-pixel PNG), emoji/ (the image and its .original), realm_icons/ (icon,
 * logo and night logo, original and PNG). Files are handed to `add` as they are read.
 */
export type AddFile = (path: string, bytes: Buffer) => Promise<void>;

/** The attachments the exported messages link, with those messages (ascending). */
export function exportedAttachments(shard: StoreView, realm: RealmState, messageIds: number[]): Map<number, { rec: AttachmentRecord; messages: number[] }> {
  const out = new Map<number, { rec: AttachmentRecord; messages: number[] }>();
  for (const id of messageIds) {
    for (const a of messageAttachmentIds(shard, realm.id, id)) {
      let entry = out.get(a);
      if (!entry) {
        const rec = getAttachment(shard, realm.id, a);
        if (!rec) continue;
        out.set(a, (entry = { rec, messages: [] }));
      }
      entry.messages.push(id);
    }
  }
  return out;
}

export async function writeUploads(dataDir: string, attachments: Map<number, { rec: AttachmentRecord; messages: number[] }>, add: AddFile): Promise<{ rows: Row[]; records: Row[] }> {
  const rows: Row[] = [];
  const records: Row[] = [];
  for (const { rec, messages } of [...attachments.values()].sort((a, b) => a.rec.id - b.rec.id)) {
    const bytes = await readFile(uploadPath(dataDir, rec.pathId)).catch(() => null);
    if (!bytes) continue;
    await add(`uploads/${rec.pathId}`, bytes);
    rows.push({ id: rec.id, file_name: rec.name, path_id: rec.pathId, owner: rec.ownerId, realm: rec.realmId, size: rec.size, create_time: rec.createTime / 1000, content_type: rec.contentType, is_realm_public: true, is_web_public: false, messages, scheduled_messages: [] });
    records.push({ realm_id: rec.realmId, user_profile_id: rec.ownerId, s3_path: rec.pathId, path: rec.pathId, size: bytes.length, last_modified: rec.createTime / 1000, content_type: rec.contentType });
  }
  return { rows, records };
}

export async function writeAvatars(shard: StoreView, realm: RealmState, users: UserRecord[], add: AddFile): Promise<Row[]> {
  const records: Row[] = [];
  for (const u of users) {
    if (u.avatarSource !== 'U' || !u.avatarKey) continue;
    const small = shard.read<Uint8Array>(shard.store.avatars, [realm.id, avatarFileName(u.avatarKey, 'small')]);
    const medium = shard.read<Uint8Array>(shard.store.avatars, [realm.id, avatarFileName(u.avatarKey, 'medium')]);
    if (!small || !medium) continue;
    for (const [suffix, bytes] of [['.original', medium], ['.png', small]] as const) {
      const path = `${realm.id}/${u.avatarKey}${suffix}`;
      await add(`avatars/${path}`, Buffer.from(bytes));
      records.push({ realm_id: realm.id, user_profile_id: u.id, avatar_version: u.avatarVersion, s3_path: path, path, size: bytes.length, last_modified: u.dateJoined, content_type: null });
    }
  }
  return records;
}

export async function writeEmoji(shard: StoreView, realm: RealmState, add: AddFile): Promise<Row[]> {
  const records: Row[] = [];
  for (const e of [...realm.realmEmoji.values()].sort((a, b) => a.id - b.id)) {
    const bytes = shard.read<Uint8Array>(shard.store.emojiImages, [realm.id, e.fileName]);
    if (!bytes) continue;
    for (const suffix of ['', '.original']) {
      const path = `${realm.id}/emoji/images/${e.fileName}${suffix}`;
      await add(`emoji/${path}`, Buffer.from(bytes));
      records.push({ realm_id: realm.id, author: e.authorId, path, s3_path: path, file_name: e.fileName, name: e.name, deactivated: e.deactivated });
    }
  }
  return records;
}

export async function writeRealmIcons(shard: StoreView, realm: RealmState, add: AddFile): Promise<Row[]> {
  const records: Row[] = [];
  for (const image of ['icon', 'logo', 'night_logo']) {
    const bytes = shard.read<Uint8Array>(shard.store.avatars, [realm.id, `realm/${image}.png`]);
    if (!bytes) continue;
    for (const suffix of ['.original', '.png']) {
      const path = `${realm.id}/${image}${suffix}`;
      await add(`realm_icons/${path}`, Buffer.from(bytes));
      records.push({ realm_id: realm.id, path, s3_path: path });
    }
  }
  return records;
}
