import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ApiError, badRequest, insufficientPermission } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import { userHasRealmPermission } from '../../model/realm-settings.js';
import { ROLE, type RealmEmojiRecord, type UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { emojiTables } from '../../markdown/emoji.js';
import { isAdmin } from '../streams/access.js';
import type { UploadedFile } from '../uploads/index.js';
import { checkTmpPath, contentTypeFor } from '../uploads/files.js';
import { FORMAT_EXTENSIONS, FORMAT_TYPES, inspectImage } from './image.js';
import { activeRealmEmoji, realmEmojiChanged, realmEmojiViews } from '../../model/realm-emoji.js';

/**
 * Custom emoji, after the reference's upload_emoji / check_add_realm_emoji and delete_emoji /
 * do_remove_realm_emoji. Checks come in the reference's order, so a request with several
 * problems gets its first error.
 */

/** The reference's MAX_EMOJI_FILE_SIZE_MIB default. */
export const MAX_EMOJI_FILE_SIZE_MIB = 5;

/** Types the reference accepts (THUMBNAIL_ACCEPT_IMAGE_TYPES that are also shown inline). */
const ACCEPTED_TYPES = new Set(['image/avif', 'image/gif', 'image/jpeg', 'image/png', 'image/webp']);

const badImage = (msg: string) => new ApiError(msg, { code: 'BAD_IMAGE' });

/** The reference's check_valid_emoji_name, on the name as upload_emoji normalises it. */
export function normalizeEmojiName(raw: string): string {
  const name = raw.trim().replace(/ /g, '_');
  if (name === '') throw badRequest('Emoji name is missing');
  if (/^[0-9a-z_-]+$/.test(name)) {
    if (/[_-]$/.test(name)) throw badRequest('Emoji names must end with either a letter or digit.');
    return name;
  }
  throw badRequest('Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.');
}

/** The reference's require_member_or_admin decorator. */
function checkMemberOrAdmin(user: UserRecord): void {
  if (user.role === ROLE.guest) throw badRequest('Not allowed for guest users');
  if (user.isBot) throw badRequest('This endpoint does not accept bot requests.');
}

function notify(batch: WriteBatch, realm: RealmState): void {
  batch.emit(realm.id, { type: 'realm_emoji', op: 'update', realm_emoji: realmEmojiViews(realm) }, realm.activeUserIds());
}

function saveEmoji(shard: Shard, realm: RealmState, batch: WriteBatch, rec: RealmEmojiRecord): void {
  realm.realmEmoji.set(rec.id, rec);
  realmEmojiChanged(realm);
  batch.put(shard.store.emoji, [realm.id, rec.id], rec);
}

/** POST /realm/emoji/{emoji_name}: checks, then stores the image and the record in one transaction. */
export async function checkAddRealmEmoji(shard: Shard, realm: RealmState, author: UserRecord, rawName: string, files: UploadedFile[]): Promise<void> {
  checkMemberOrAdmin(author);
  const name = normalizeEmojiName(rawName);
  if (!userHasRealmPermission(realm, author, 'can_add_custom_emoji_group')) throw insufficientPermission();
  if (activeRealmEmoji(realm, name)) throw badRequest('A custom emoji with this name already exists.');
  if (files.length !== 1) throw badRequest('You must upload exactly one file.');
  if (emojiTables().nameToCode.has(name) && !isAdmin(author)) throw badRequest('Only administrators can override built-in emoji.');
  const file = files[0];
  if (file.size > MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024) {
    throw badRequest(`Uploaded file is larger than the allowed limit of ${MAX_EMOJI_FILE_SIZE_MIB} MiB`);
  }
  if (!ACCEPTED_TYPES.has(contentTypeFor(file.filename, file.contentType).split(';')[0].trim().toLowerCase())) throw badImage('Invalid image format');
  const bytes = await readFile(checkTmpPath(shard.config.dataDir, file.tmpPath));
  const info = inspectImage(bytes);
  if (!info) throw badImage('Could not decode image; did you upload an image file?');

  // Reading the file yielded the thread: another upload may have taken the name meanwhile.
  if (activeRealmEmoji(realm, name)) throw badRequest('A custom emoji with this name already exists.');
  const batch = shard.batch();
  const id = shard.allocate(batch, 'realmEmoji');
  // Random, so that a realm's emoji cannot be enumerated (the reference salts a hash of the id).
  let base: string;
  do base = randomBytes(4).toString('hex');
  while ([...realm.realmEmoji.values()].some((e) => e.fileName.startsWith(base + '.')));
  const ext = FORMAT_EXTENSIONS[info.format];
  const rec: RealmEmojiRecord = {
    id,
    realmId: realm.id,
    name,
    authorId: author.id,
    fileName: base + ext,
    contentType: FORMAT_TYPES[info.format],
    isAnimated: info.animated,
    stillFileName: info.still ? base + ext : null,
    deactivated: false,
    dateCreated: Date.now(),
  };
  batch.put(shard.store.emojiImages, [realm.id, rec.fileName], bytes);
  if (info.still) batch.put(shard.store.emojiImages, [realm.id, `still/${rec.stillFileName}`], Buffer.from(info.still));
  saveEmoji(shard, realm, batch, rec);
  notify(batch, realm);
  await batch.commit();
}

/** DELETE /realm/emoji/{emoji_name}: the author or an administrator deactivates it. */
export async function checkRemoveRealmEmoji(shard: Shard, realm: RealmState, user: UserRecord, name: string): Promise<void> {
  const rec = activeRealmEmoji(realm, name);
  if (!rec) throw new ApiError(`Emoji '${name}' does not exist`, { status: 404 });
  if (!isAdmin(user) && rec.authorId !== user.id) throw badRequest('Must be an organization administrator or emoji author');
  const batch = shard.batch();
  saveEmoji(shard, realm, batch, { ...rec, deactivated: true });
  notify(batch, realm);
  await batch.commit();
}

/** An emoji image or still, by the file name in its URL; undefined when there is none. */
export function emojiImage(shard: Shard, realm: RealmState, file: string): { bytes: Uint8Array; contentType: string } | undefined {
  const still = file.startsWith('still/');
  const name = still ? file.slice('still/'.length) : file;
  for (const rec of realm.realmEmoji.values()) {
    if ((still ? rec.stillFileName : rec.fileName) !== name) continue;
    const bytes = shard.read<Uint8Array>(shard.store.emojiImages, [realm.id, file]);
    return bytes ? { bytes, contentType: rec.contentType } : undefined;
  }
  return undefined;
}
