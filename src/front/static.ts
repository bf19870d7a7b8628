import type { Context, Next } from 'koa';
import { EMOJI_API_PATH, emojiApiFile } from '../markdown/emoji.js';

/**
 * Files served outside /api/v1 that are the same for every realm and need no credentials: the
 * emoji name table that clients (the mobile app's picker and autocomplete) download once and
 * then revalidate. Built on first request, in the front end, since no shard state is involved.
 */
export async function staticFiles(ctx: Context, next: Next): Promise<void> {
  if (ctx.path !== EMOJI_API_PATH || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
  const file = emojiApiFile();
  ctx.status = 200;
  ctx.type = 'application/json';
  ctx.etag = file.etag;
  // Revalidate after a day: an upgrade may change the table, and the URL does not carry a version.
  ctx.set('Cache-Control', 'public, max-age=86400');
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.body = file.body;
}
