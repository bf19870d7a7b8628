import { notFound } from '../../lib/errors.js';
import { readAvatarImage } from '../../store/avatars.js';
import { me, operation, type Reply } from '../../api-kit/operation.js';
import type { UploadedFile } from '../uploads/index.js';
import { avatarUrl } from '../users/views.js';
import { doDeleteOwnAvatar, doSetOwnAvatar } from './actions.js';

/**
 * POST and DELETE /users/me/avatar (the reference's set_avatar_backend, delete_avatar_backend),
 * and the images at the avatar URLs, /user_avatars/<realm id>/<key>.png and <key>-medium.png:
 * served without credentials, as the reference's web server serves its avatar directory (the
 * random key is what keeps them from being listed). A realm's avatars answer at its own host only.
 */
const set = operation<{ __files?: UploadedFile[] }>({
  auth: 'user',
  params: { properties: { __files: { type: 'array', items: { type: 'object' } } } },
  handler: async (ctx) => {
    const user = me(ctx);
    await doSetOwnAvatar(ctx.shard, ctx.realm, user, ctx.params.__files ?? []);
    return { avatar_url: avatarUrl(user, false) };
  },
});

const remove = operation({
  auth: 'user',
  handler: async (ctx) => {
    const user = me(ctx);
    await doDeleteOwnAvatar(ctx.shard, ctx.realm, user);
    return { avatar_url: avatarUrl(user, false) };
  },
});

const image = operation<{ realm_id_str: string; file_name: string }>({
  auth: 'none',
  params: { properties: { realm_id_str: { type: 'string' }, file_name: { type: 'string' } }, required: ['realm_id_str', 'file_name'] },
  handler: (ctx) => {
    const { realm_id_str: realmId, file_name: name } = ctx.params;
    if (realmId !== String(ctx.realm.id) || !/^[0-9a-f]{24}(?:-medium)?\.png$/.test(name)) throw notFound();
    const bytes = readAvatarImage(ctx.shard, ctx.realm.id, name);
    if (!bytes) throw notFound();
    const reply: Reply = {
      status: 200,
      body: '',
      bytes,
      headers: {
        'Content-Type': 'image/png',
        // A key names one upload's bytes for good: a new avatar gets a new key.
        'Cache-Control': 'public, max-age=31536000, immutable',
        'X-Content-Type-Options': 'nosniff',
      },
    };
    return { __reply: reply };
  },
});

export const operations = {
  'avatars.set': set,
  'avatars.remove': remove,
  'avatars.image': image,
};
