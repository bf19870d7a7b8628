import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import { realmSetting } from '../../model/realm-settings.js';
import type { UserRecord } from '../../model/types.js';
import { usersWhoCanAccess } from '../../model/user-access.js';
import { flush, outbox, queueEvent, type Outbox } from '../../shard/outbox.js';
import type { Shard } from '../../shard/shard.js';
import { deleteAvatarImages, putAvatarImages, type AvatarSize } from '../../store/avatars.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { botOwnerUserIds } from '../users/bot-views.js';
import { isAdmin } from '../streams/access.js';
import type { UploadedFile } from '../uploads/index.js';
import { checkTmpPath, contentTypeFor } from '../uploads/files.js';
import { avatarUrl, mediumAvatarUrl } from '../users/views.js';
import { saveUser } from '../users/actions.js';
import { ACCEPTED_IMAGE_TYPES, badImage, MAX_AVATAR_FILE_SIZE_MIB, scaleAvatar } from './image.js';

/**
 * Avatars, after the reference's set_avatar_backend / delete_avatar_backend and
 * do_change_avatar_fields: the checks in its order, then one transaction with the user's new
 * avatar_source and avatar_version, the image rows, and the events.
 */

export type AvatarImages = Record<AvatarSize, Uint8Array>;

/** The reference's avatar_changes_disabled rule: the realm setting binds all but administrators. */
export function checkAvatarChangesAllowed(realm: RealmState, user: UserRecord): void {
  if (realmSetting(realm, 'avatar_changes_disabled') === true && !isAdmin(user)) throw badRequest('Avatar changes are disabled in this organization.');
}

/**
 * An uploaded file made into avatar images: the reference's size limit, its content-type check
 * (upload_avatar_image) and its decoding. `limited` is false where the reference checks no size
 * (bot avatars; the front end's 25 MiB cap on uploads still applies).
 */
export async function avatarFromUpload(shard: Shard, file: UploadedFile, opts: { limited: boolean }): Promise<AvatarImages> {
  if (opts.limited && file.size > MAX_AVATAR_FILE_SIZE_MIB * 1024 * 1024) {
    throw badRequest(`Uploaded file is larger than the allowed limit of ${MAX_AVATAR_FILE_SIZE_MIB} MiB`);
  }
  const type = contentTypeFor(file.filename, file.contentType).split(';')[0].trim().toLowerCase();
  if (!ACCEPTED_IMAGE_TYPES.has(type)) throw badImage('Invalid image format');
  return scaleAvatar(await readFile(checkTmpPath(shard.config.dataDir, file.tmpPath)));
}

/** A new key for an upload's files: random, so avatar URLs cannot be enumerated. */
export function newAvatarKey(): string {
  return randomBytes(12).toString('hex');
}

/** Writes a new user's uploaded avatar (POST /bots with a file) on the batch that creates them. */
export function putNewAvatar(shard: Shard, batch: WriteBatch, user: UserRecord, images: AvatarImages): void {
  user.avatarSource = 'U';
  user.avatarKey = newAvatarKey();
  putAvatarImages(shard, batch, user.realmId, user.avatarKey, images);
}

/**
 * Sets (images) or removes (null) a user's uploaded avatar on an action's outbox, with the
 * reference's events: realm_user update with the avatar fields to everyone who can access the
 * user, and realm_bot update with the URL to those who administer a bot. The record changes in
 * place, as the user actions change it.
 */
export function changeAvatar(shard: Shard, out: Outbox, realm: RealmState, user: UserRecord, images: AvatarImages | null): void {
  if (user.avatarKey) deleteAvatarImages(shard, out.batch, realm.id, user.avatarKey);
  if (images) {
    putNewAvatar(shard, out.batch, user, images);
  } else {
    user.avatarSource = 'G';
    delete user.avatarKey;
  }
  user.avatarVersion += 1;
  saveUser(shard, out.batch, realm, user);
  notifyAvatarUrlChange(shard, out, realm, user);
}

/**
 * The reference's notify_avatar_url_change: realm_user update with the avatar fields to everyone
 * who can access the user, and realm_bot update with the URL to those who administer a bot. Also
 * sent when a Gravatar user's address changes, since the URL is made from it.
 */
export function notifyAvatarUrlChange(shard: Shard, out: Outbox, realm: RealmState, user: UserRecord): void {
  const url = avatarUrl(user, false);
  if (user.isBot) queueEvent(out, { type: 'realm_bot', op: 'update', bot: { user_id: user.id, avatar_url: url } }, botOwnerUserIds(realm, user));
  // Even clients registered with client_gravatar get the URL: they null a Gravatar one themselves.
  const person = { avatar_source: user.avatarSource, avatar_url: url, avatar_url_medium: mediumAvatarUrl(user), avatar_version: user.avatarVersion, user_id: user.id };
  queueEvent(out, { type: 'realm_user', op: 'update', person }, usersWhoCanAccess(shard, realm, user));
}

/** POST /users/me/avatar */
export async function doSetOwnAvatar(shard: Shard, realm: RealmState, user: UserRecord, files: UploadedFile[]): Promise<void> {
  if (files.length !== 1) throw badRequest('You must upload exactly one avatar.');
  checkAvatarChangesAllowed(realm, user);
  const images = await avatarFromUpload(shard, files[0], { limited: true });
  // Scaling yielded the thread: the setting may have changed meanwhile.
  checkAvatarChangesAllowed(realm, user);
  const out = outbox(shard);
  changeAvatar(shard, out, realm, user, images);
  await flush(shard, realm, out);
}

/** DELETE /users/me/avatar: back to Gravatar; nothing changes for a user already there. */
export async function doDeleteOwnAvatar(shard: Shard, realm: RealmState, user: UserRecord): Promise<void> {
  checkAvatarChangesAllowed(realm, user);
  if (user.avatarSource !== 'U') return;
  const out = outbox(shard);
  changeAvatar(shard, out, realm, user, null);
  await flush(shard, realm, out);
}
