import { MAX_FOLDER_DESCRIPTION_LENGTH, MAX_FOLDER_NAME_LENGTH } from '../../model/channel-folders.js';
import { me, operation } from '../../api-kit/operation.js';
import { checkFolderName, doCreateFolder, doReorderFolders, doUpdateFolder } from './actions.js';
import { channelFoldersView } from './views.js';

/**
 * Channel folders (feature levels 389, 410, 414, 418): every user reads them, administrators
 * create, rename, describe, archive and reorder them. Names are not stripped, as in the
 * reference; a blank one is refused.
 */
const name = { type: 'string', maxLength: MAX_FOLDER_NAME_LENGTH };
const description = { type: 'string', maxLength: MAX_FOLDER_DESCRIPTION_LENGTH };

const create = operation<{ name: string; description: string }>({
  auth: 'user',
  role: 'administrator',
  params: { properties: { name, description }, required: ['name', 'description'] },
  handler: async (ctx) => {
    checkFolderName(ctx.realm, ctx.params.name);
    return { channel_folder_id: await doCreateFolder(ctx.shard, ctx.realm, me(ctx), ctx.params.name, ctx.params.description) };
  },
});

const list = operation<{ include_archived: boolean }>({
  auth: 'user',
  params: { properties: { include_archived: { type: 'boolean', default: false } } },
  handler: (ctx) => ({ channel_folders: channelFoldersView(ctx.realm, ctx.params.include_archived) }),
});

const update = operation<{ channel_folder_id: number; name?: string; description?: string; is_archived?: boolean }>({
  auth: 'user',
  role: 'administrator',
  params: { properties: { channel_folder_id: { type: 'integer' }, name, description, is_archived: { type: 'boolean' } }, required: ['channel_folder_id'] },
  handler: async (ctx) => {
    const p = ctx.params;
    await doUpdateFolder(ctx.shard, ctx.realm, me(ctx), p.channel_folder_id, { name: p.name, description: p.description, isArchived: p.is_archived });
    return {};
  },
});

const reorder = operation<{ order: number[] }>({
  auth: 'user',
  role: 'administrator',
  params: { properties: { order: { type: 'array', items: { type: 'integer' } } }, required: ['order'] },
  handler: async (ctx) => {
    await doReorderFolders(ctx.shard, ctx.realm, ctx.params.order);
    return {};
  },
});

export const operations = {
  'channelFolders.create': create,
  'channelFolders.list': list,
  'channelFolders.update': update,
  'channelFolders.reorder': reorder,
};
