import { join } from 'node:path';
import type { StoreView, WriteBatch } from './shard-store.js';

/**
 * Uploaded files (the reference's Attachment) and their links to messages, in the shard's
 * `uploads` table. Keys lead with the realm id like every realm-scoped table; the second element
 * says which kind of row it is:
 *
 *   [realmId, 'a', attachmentId]          -> AttachmentRecord
 *   [realmId, 'p', pathId]                -> attachmentId      find a file from its URL
 *   [realmId, 'o', ownerId, attachmentId] -> null              a user's uploads (GET /attachments)
 *   [realmId, 'm', msgId, attachmentId]   -> null              the uploads a message links
 *   [realmId, 's']                        -> bytes             the realm's upload_space_used
 *
 * The bytes live on disk under <dataDir>/uploads/<pathId> (api/uploads/files.ts).
 */
export interface AttachmentRecord {
  id: number;
  realmId: number;
  ownerId: number;
  /** The name the file was uploaded with. */
  name: string;
  /** `<realmId>/<2 hex>/<24 random>/<sanitised name>`: the URL is /user_uploads/<pathId>. */
  pathId: string;
  size: number;
  contentType: string;
  /** Milliseconds. */
  createTime: number;
  /** The messages linking the file, ascending; dateSent in milliseconds. */
  messages: { id: number; dateSent: number }[];
}

/** The reference's max_file_upload_size_mib default (its MAX_FILE_UPLOAD_SIZE setting). */
export const MAX_FILE_UPLOAD_SIZE_MIB = 25;
export const MAX_FILE_UPLOAD_BYTES = MAX_FILE_UPLOAD_SIZE_MIB * 1024 * 1024;

export function uploadsDir(dataDir: string): string {
  return join(dataDir, 'uploads');
}

/** Where the front end streams an upload before the shard moves it into place. */
export function uploadsTmpDir(dataDir: string): string {
  return join(dataDir, 'uploads', 'tmp');
}

export function getAttachment(shard: StoreView, realmId: number, id: number): AttachmentRecord | undefined {
  return shard.read<AttachmentRecord>(shard.store.uploads, [realmId, 'a', id]);
}

export function attachmentByPath(shard: StoreView, realmId: number, pathId: string): AttachmentRecord | undefined {
  const id = shard.read<number>(shard.store.uploads, [realmId, 'p', pathId]);
  return id === undefined ? undefined : getAttachment(shard, realmId, id);
}

/** Writes a new attachment with its index rows, and adds its size to the realm's total. */
export function insertAttachment(shard: StoreView, batch: WriteBatch, rec: AttachmentRecord): void {
  const db = shard.store.uploads;
  batch.put(db, [rec.realmId, 'a', rec.id], rec);
  batch.put(db, [rec.realmId, 'p', rec.pathId], rec.id);
  batch.put(db, [rec.realmId, 'o', rec.ownerId, rec.id], null);
  addUploadSpace(shard, batch, rec.realmId, rec.size);
}

export function putAttachment(shard: StoreView, batch: WriteBatch, rec: AttachmentRecord): void {
  batch.put(shard.store.uploads, [rec.realmId, 'a', rec.id], rec);
}

/** Removes an attachment, its index rows and its links to messages. */
export function deleteAttachment(shard: StoreView, batch: WriteBatch, rec: AttachmentRecord): void {
  const db = shard.store.uploads;
  batch.del(db, [rec.realmId, 'a', rec.id]);
  batch.del(db, [rec.realmId, 'p', rec.pathId]);
  batch.del(db, [rec.realmId, 'o', rec.ownerId, rec.id]);
  for (const m of rec.messages) batch.del(db, [rec.realmId, 'm', m.id, rec.id]);
  addUploadSpace(shard, batch, rec.realmId, -rec.size);
}

/** Records (or drops) the link between a message and an attachment in the message index. */
export function setMessageLink(shard: StoreView, batch: WriteBatch, realmId: number, msgId: number, attachmentId: number, linked: boolean): void {
  const key = [realmId, 'm', msgId, attachmentId];
  if (linked) batch.put(shard.store.uploads, key, null);
  else batch.del(shard.store.uploads, key);
}

function idsUnder(shard: StoreView, prefix: (string | number)[]): number[] {
  const at = prefix.length;
  // Ids are positive integers: [...prefix, 0] to [...prefix, MAX] covers exactly this prefix.
  const keys = shard.store.uploads.getKeys({ start: [...prefix, 0], end: [...prefix, Number.MAX_SAFE_INTEGER] });
  return Array.from(keys, (key) => (key as number[])[at]);
}

export function ownedAttachmentIds(shard: StoreView, realmId: number, ownerId: number): number[] {
  return idsUnder(shard, [realmId, 'o', ownerId]);
}

export function messageAttachmentIds(shard: StoreView, realmId: number, msgId: number): number[] {
  return idsUnder(shard, [realmId, 'm', msgId]);
}

export function uploadSpaceUsed(shard: StoreView, realmId: number): number {
  return shard.read<number>(shard.store.uploads, [realmId, 's']) ?? 0;
}

function addUploadSpace(shard: StoreView, batch: WriteBatch, realmId: number, delta: number): void {
  batch.put(shard.store.uploads, [realmId, 's'], Math.max(0, uploadSpaceUsed(shard, realmId) + delta));
}
