import { notFound, unauthorized } from '../../lib/errors.js';
import { me, operation, type Reply } from '../../api-kit/operation.js';
import type { UploadedFile } from '../uploads/index.js';
import { checkAddRealmEmoji, checkRemoveRealmEmoji, emojiImage } from './actions.js';
import { realmEmojiViews } from '../../model/realm-emoji.js';


/**
 * Custom emoji: GET /realm/emoji (everyone: the list is public in the realm), POST and DELETE
 * /realm/emoji/{emoji_name}. The images are served at their source_url, /user_avatars/<realm
 * id>/emoji/images/<file>, outside /api/v1 and without credentials, as the reference's web
 * server serves them: the front end routes those paths to `emoji.list` with `__image` set (a
 * parameter clients cannot send), as it does for /user_uploads.
 */
const list = operation<{ __image?: string }>({
  auth: 'optional',
  params: { properties: { __image: { type: 'string' } } },
  handler: (ctx) => {
    const { shard, realm, params } = ctx;
    if (params.__image !== undefined) return { __reply: imageReply(shard, realm, params.__image) };
    if (!ctx.user) throw unauthorized();
    return { emoji: realmEmojiViews(realm) };
  },
});

function imageReply(shard: Parameters<typeof emojiImage>[0], realm: Parameters<typeof emojiImage>[1], path: string): Reply {
  const m = /^(\d+)\/emoji\/images\/((?:still\/)?[0-9a-f]+\.[a-z]+)$/.exec(path);
  if (!m || Number(m[1]) !== realm.id) throw notFound();
  const image = emojiImage(shard, realm, m[2]);
  if (!image) throw notFound();
  return {
    status: 200,
    body: '',
    bytes: image.bytes,
    headers: {
      'Content-Type': image.contentType,
      // A file name is never reused for other bytes.
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
    },
  };
}

const upload = operation<{ emoji_name: string; __files?: UploadedFile[] }>({
  auth: 'user',
  params: {
    properties: { emoji_name: { type: 'string' }, __files: { type: 'array', items: { type: 'object' } } },
    required: ['emoji_name'],
  },
  handler: async (ctx) => {
    await checkAddRealmEmoji(ctx.shard, ctx.realm, me(ctx), ctx.params.emoji_name, ctx.params.__files ?? []);
    return {};
  },
});

const remove = operation<{ emoji_name: string }>({
  auth: 'user',
  params: { properties: { emoji_name: { type: 'string' } }, required: ['emoji_name'] },
  handler: async (ctx) => {
    await checkRemoveRealmEmoji(ctx.shard, ctx.realm, me(ctx), ctx.params.emoji_name);
    return {};
  },
});

export const operations = {
  'emoji.list': list,
  'emoji.upload': upload,
  'emoji.remove': remove,
};
