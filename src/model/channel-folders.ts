/**
 * A channel folder (feature level 389): a realm-wide, administrator-managed grouping of channels.
 * Stored under [realmId, folderId] (store/shard-store.ts channelFolders) and kept in memory
 * (RealmState.channelFolders): a realm has a handful, and every channel view names its folder.
 */
export interface ChannelFolderRecord {
  id: number;
  realmId: number;
  name: string;
  description: string;
  renderedDescription: string;
  /** Position among the realm's folders (feature level 414): new folders take their id. */
  order: number;
  /** Seconds. */
  dateCreated: number;
  creatorId: number | null;
  isArchived: boolean;
}

/** The reference's ChannelFolder.MAX_NAME_LENGTH and MAX_DESCRIPTION_LENGTH (register's max_channel_folder_*). */
export const MAX_FOLDER_NAME_LENGTH = 60;
export const MAX_FOLDER_DESCRIPTION_LENGTH = 1024;

/**
 * Whether the realm's API shows folders: folder_id on channels and, in a register that names no
 * event types, the folder state. Folders come after this server's feature level (372), so a realm
 * that has never had one answers in the 10.2 shapes; folders are archived, never deleted.
 */
export function usesChannelFolders(realm: { channelFolders: ReadonlyMap<number, ChannelFolderRecord> }): boolean {
  return realm.channelFolders.size > 0;
}
