import { badRequest, invalidArgument } from '../../lib/errors.js';
import type { ChannelFolderRecord } from '../../model/channel-folders.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { unprintablePosition } from '../streams/checks.js';
import { renderDescription } from '../streams/views.js';
import { channelFolderView } from './views.js';

/**
 * Channel folder check/do actions, after the reference's zerver/actions/channel_folders.py. Every
 * change goes to every active user (guests included: folders organise what they see too).
 */

export function folderById(realm: RealmState, id: number): ChannelFolderRecord {
  const folder = realm.channelFolders.get(id);
  if (!folder) throw badRequest('Invalid channel folder ID');
  return folder;
}

/**
 * A folder_id parameter (PATCH /streams/{id}, POST /users/me/subscriptions): a folder of the
 * realm, or null (JSON null, or the text "null", as form clients send it) for none.
 */
export function parseFolderId(realm: RealmState, raw: number | string | null): number | null {
  if (raw === null || raw === 'null') return null;
  if (typeof raw === 'string') throw invalidArgument('folder_id', 'folder_id is not an integer');
  return folderById(realm, raw).id;
}

/** The reference's check_channel_folder_name; names are unique ignoring case, archived ones too. */
export function checkFolderName(realm: RealmState, name: string): void {
  if (name.trim() === '') throw badRequest("Channel folder name can't be empty.");
  const bad = unprintablePosition(name);
  if (bad !== null) throw badRequest(`Invalid character in channel folder name, at position ${bad}.`);
  const lower = name.toLowerCase();
  for (const folder of realm.channelFolders.values()) if (folder.name.toLowerCase() === lower) throw badRequest('Channel folder name already in use');
}

function save(shard: Shard, realm: RealmState, batch: ReturnType<Shard['batch']>, folder: ChannelFolderRecord): void {
  realm.channelFolders.set(folder.id, folder);
  batch.put(shard.store.channelFolders, [realm.id, folder.id], folder);
}

/** POST /channel_folders/create: a new folder, last in the order (its order is its id). */
export async function doCreateFolder(shard: Shard, realm: RealmState, actor: UserRecord, name: string, description: string): Promise<number> {
  const batch = shard.batch();
  const id = shard.allocate(batch, 'channelFolder');
  const folder: ChannelFolderRecord = {
    id,
    realmId: realm.id,
    name,
    description,
    renderedDescription: renderDescription(realm, actor, description),
    order: id,
    dateCreated: Math.floor(Date.now() / 1000),
    creatorId: actor.id,
    isArchived: false,
  };
  save(shard, realm, batch, folder);
  batch.emit(realm.id, { type: 'channel_folder', op: 'add', channel_folder: channelFolderView(folder) }, realm.activeUserIds());
  await batch.commit();
  return id;
}

export interface FolderChange {
  name?: string;
  description?: string;
  isArchived?: boolean;
}

/**
 * PATCH /channel_folders/{id}: each part that differs from the folder, checked first, then one
 * update event per part in the reference's order (name, description, archival).
 */
export async function doUpdateFolder(shard: Shard, realm: RealmState, actor: UserRecord, id: number, change: FolderChange): Promise<void> {
  let folder = folderById(realm, id);
  const name = change.name !== undefined && change.name !== folder.name ? change.name : undefined;
  const description = change.description !== undefined && change.description !== folder.description ? change.description : undefined;
  const archive = change.isArchived !== undefined && change.isArchived !== folder.isArchived ? change.isArchived : undefined;
  if (name !== undefined) checkFolderName(realm, name);
  if (archive === true && [...realm.streams.values()].some((s) => s.folderId === id)) {
    throw badRequest('You need to remove all the channels from this folder to archive it.');
  }
  const batch = shard.batch();
  const update = (data: Record<string, unknown>) => batch.emit(realm.id, { type: 'channel_folder', op: 'update', channel_folder_id: id, data }, realm.activeUserIds());
  if (name !== undefined) {
    folder = { ...folder, name };
    update({ name });
  }
  if (description !== undefined) {
    const rendered = renderDescription(realm, actor, description);
    folder = { ...folder, description, renderedDescription: rendered };
    update({ description, rendered_description: rendered });
  }
  if (archive !== undefined) {
    folder = { ...folder, isArchived: archive };
    update({ is_archived: archive });
  }
  if (folder === realm.channelFolders.get(id)) return;
  save(shard, realm, batch, folder);
  await batch.commit();
}

/**
 * PATCH /channel_folders: `order` must name every folder of the realm (the reference's
 * try_reorder_realm_channel_folders); each takes its index there as its order.
 */
export async function doReorderFolders(shard: Shard, realm: RealmState, order: number[]): Promise<void> {
  const position = new Map(order.map((id, i) => [id, i]));
  for (const id of realm.channelFolders.keys()) if (!position.has(id)) throw badRequest('Invalid order mapping.');
  const batch = shard.batch();
  for (const folder of realm.channelFolders.values()) save(shard, realm, batch, { ...folder, order: position.get(folder.id)! });
  batch.emit(realm.id, { type: 'channel_folder', op: 'reorder', order }, realm.activeUserIds());
  await batch.commit();
}
