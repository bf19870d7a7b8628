import { createHmac } from 'node:crypto';
import { copyFile, mkdir } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { sanitizeName, uploadPath } from '../../api/uploads/files.js';
import { scaleAvatar, scaleRealmImage } from '../../api/avatars/image.js';
import { FORMAT_EXTENSIONS, FORMAT_TYPES, inspectImage } from '../../api/emoji/image.js';
import type { AvatarSize } from '../../store/avatars.js';
import type { AttachmentRecord } from '../../store/uploads.js';
import type { RealmEmojiRecord } from '../../model/types.js';
import { ImportError } from '../errors.js';
import { rows, userId, type Ids } from './org.js';
import type { Plan } from './plan.js';
import { join } from 'node:path';

/**
 * The export's files: uploads (attachment.json and uploads/records.json), avatars, custom emoji
 * and the organization's icon and logos. Uploads get new path ids, derived from the import's
 * secret so that a resumed import names each file as before and nobody can guess them.
 */

export function newUploadPaths(plan: Plan, realmId: number, secret: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const a of plan.attachments) {
    const old = a.path_id as string;
    const mac = createHmac('sha256', secret).update(old).digest();
    out.set(old, `${realmId}/${mac.subarray(0, 1).toString('hex')}/${mac.subarray(1, 19).toString('base64url')}/${sanitizeName(basename(old))}`);
  }
  return out;
}

export function attachmentRecords(plan: Plan, ids: Ids, realmId: number, paths: Map<string, string>, messages: Map<number, { id: number; dateSent: number }[]>, now: number): AttachmentRecord[] {
  return plan.attachments.map((a) => ({
    id: ids.attachment.get(a.id as number),
    realmId,
    ownerId: userId(plan, ids, a.owner as number),
    name: a.file_name as string,
    pathId: paths.get(a.path_id as string)!,
    size: a.size as number,
    contentType: (a.content_type as string | null) ?? 'application/octet-stream',
    createTime: typeof a.create_time === 'number' ? Math.floor(a.create_time * 1000) : now * 1000,
    messages: (messages.get(ids.attachment.get(a.id as number)) ?? []).sort((x, y) => x.id - y.id),
  }));
}

/** Old message id -> new attachment ids, from the attachments' message lists. */
export function messageLinks(plan: Plan, ids: Ids): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const a of plan.attachments) {
    for (const m of a.messages as number[]) {
      if (!ids.message.has(m)) continue;
      const list = out.get(m) ?? [];
      list.push(ids.attachment.get(a.id as number));
      out.set(m, list);
    }
  }
  return out;
}

/** Copies every upload into the data directory under its new path id (again, on a resume). */
export async function copyUploads(plan: Plan, dataDir: string, paths: Map<string, string>): Promise<void> {
  const records = new Map(plan.source.records('uploads').map((r) => [String(r.s3_path ?? r.path), String(r.path)]));
  for (const a of plan.attachments) {
    const old = a.path_id as string;
    const rel = records.get(old) ?? old;
    const from = join(plan.source.root, 'uploads', rel);
    const to = uploadPath(dataDir, paths.get(old)!);
    await mkdir(dirname(to), { recursive: true });
    try {
      await copyFile(from, to);
    } catch {
      throw new ImportError(`uploads/${rel}`, `zerver_attachment (id ${a.id as number})`, 'the file is missing from the export');
    }
  }
}

/** Each user's avatar images (100 and 500 pixels), from the export's original or its PNG. */
export async function avatarImages(plan: Plan, ids: Ids): Promise<Map<number, Record<AvatarSize, Uint8Array>>> {
  const byUser = new Map<number, { original?: string; png?: string }>();
  for (const r of plan.source.records('avatars')) {
    const old = r.user_profile_id as number;
    if (!ids.user.has(old)) continue;
    const path = String(r.path);
    const entry = byUser.get(old) ?? {};
    if (path.endsWith('.original')) entry.original = path;
    else if (path.endsWith('.png') && !path.endsWith('-medium.png')) entry.png = path;
    byUser.set(old, entry);
  }
  const out = new Map<number, Record<AvatarSize, Uint8Array>>();
  for (const [old, entry] of byUser) {
    const path = entry.original ?? entry.png;
    const bytes = path ? plan.source.file('avatars', path) : null;
    if (!bytes) continue;
    try {
      out.set(ids.user.get(old), await scaleAvatar(bytes));
    } catch {
      // An image that does not decode: the person keeps the default avatar, as the reference
      // falls back to Gravatar when it cannot thumbnail one.
    }
  }
  return out;
}

/** Each custom emoji's image bytes (and still frame), by its record. */
export function emojiImages(plan: Plan, ids: Ids, emoji: RealmEmojiRecord[]): Map<number, { bytes: Uint8Array; still?: Uint8Array }> {
  const records = plan.source.records('emoji');
  const out = new Map<number, { bytes: Uint8Array; still?: Uint8Array }>();
  for (const row of rows(plan, 'zerver_realmemoji')) {
    const fileName = String(row.file_name ?? '');
    const candidates = records.filter((r) => r.file_name === fileName || String(r.path).endsWith(`/${fileName}`) || String(r.path).endsWith(`/${fileName}.original`));
    const pick = candidates.find((r) => String(r.path).endsWith('.original')) ?? candidates[0];
    const bytes = pick ? plan.source.file('emoji', String(pick.path)) : null;
    const rec = emoji.find((e) => e.id === ids.emoji.get(row.id as number))!;
    if (!bytes) continue;
    const info = inspectImage(bytes);
    if (!info) continue;
    rec.isAnimated = info.animated;
    // The format is the image's, whatever the old name said (Mattermost's have no extension).
    rec.contentType = FORMAT_TYPES[info.format];
    rec.fileName = rec.fileName.replace(/\.[a-z]+$/, '') + FORMAT_EXTENSIONS[info.format];
    if (info.still) rec.stillFileName = rec.fileName;
    out.set(rec.id, { bytes, still: info.still });
  }
  return out;
}

/** The organization's uploaded icon, logo and night logo, scaled as uploads here are. */
export async function realmImages(plan: Plan): Promise<Map<'icon' | 'logo' | 'night_logo', Uint8Array>> {
  const out = new Map<'icon' | 'logo' | 'night_logo', Uint8Array>();
  const records = plan.source.records('realm_icons');
  for (const image of ['icon', 'logo', 'night_logo'] as const) {
    const pick = records.find((r) => basename(String(r.path)) === `${image}.original`) ?? records.find((r) => basename(String(r.path)) === `${image}.png`);
    const bytes = pick ? plan.source.file('realm_icons', String(pick.path)) : null;
    if (!bytes) continue;
    try {
      out.set(image, await scaleRealmImage(bytes, image === 'icon' ? 'icon' : 'logo'));
    } catch {
      // Undecodable: the organization keeps the default image.
    }
  }
  return out;
}
