import type { StoreView, WriteBatch } from './shard-store.js';

/**
 * Uploaded avatars, in the shard's `avatars` table (binary values):
 *
 *   [realmId, '<key>.png']         -> the 100x100 PNG the avatar URL serves
 *   [realmId, '<key>-medium.png']  -> the 500x500 PNG of avatar_url_medium
 *
 * `key` is the user's `avatarKey`, random and new with each upload (api/avatars/). The rows are
 * written in the transaction that sets the user's avatar_source to 'U', and deleted in the one
 * that replaces or removes the avatar, so a user record never names files that are not there.
 */
export type AvatarSize = 'small' | 'medium';

export function avatarFileName(key: string, size: AvatarSize): string {
  return size === 'medium' ? `${key}-medium.png` : `${key}.png`;
}

export function putAvatarImages(shard: StoreView, batch: WriteBatch, realmId: number, key: string, images: Record<AvatarSize, Uint8Array>): void {
  batch.put(shard.store.avatars, [realmId, avatarFileName(key, 'small')], images.small);
  batch.put(shard.store.avatars, [realmId, avatarFileName(key, 'medium')], images.medium);
}

export function deleteAvatarImages(shard: StoreView, batch: WriteBatch, realmId: number, key: string): void {
  batch.del(shard.store.avatars, [realmId, avatarFileName(key, 'small')]);
  batch.del(shard.store.avatars, [realmId, avatarFileName(key, 'medium')]);
}

/** An avatar's PNG by the file name of its URL, through the shard's uncommitted writes. */
export function readAvatarImage(shard: StoreView, realmId: number, fileName: string): Uint8Array | undefined {
  return shard.read<Uint8Array>(shard.store.avatars, [realmId, fileName]);
}
