import type { ChannelFolderRecord } from '../../model/channel-folders.js';
import type { RealmState } from '../../model/realm-state.js';

/** A channel folder as GET /channel_folders, /register and channel_folder events show it. */
export function channelFolderView(folder: ChannelFolderRecord): Record<string, unknown> {
  return {
    id: folder.id,
    name: folder.name,
    description: folder.description,
    rendered_description: folder.renderedDescription,
    order: folder.order,
    date_created: folder.dateCreated,
    creator_id: folder.creatorId,
    is_archived: folder.isArchived,
  };
}

/** The realm's folders in their order (feature level 414; by id before). */
export function channelFoldersView(realm: RealmState, includeArchived: boolean): Record<string, unknown>[] {
  return [...realm.channelFolders.values()]
    .filter((f) => includeArchived || !f.isArchived)
    .sort((a, b) => a.order - b.order || a.id - b.id)
    .map(channelFolderView);
}
