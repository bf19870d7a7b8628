import type { Context, Next } from 'koa';
import { isImageUrl } from '../markdown/links.js';
import { noteRoute } from './request-log.js';

/**
 * GET /thumbnail?url=...&size=thumbnail|full: the URL message previews load images through
 * (markdown/blocks.ts writes the reference's form). The reference resized images here (or
 * proxied them through Camo); this server resizes nothing and redirects to the image itself:
 * an upload of this server (`user_uploads/...`, which checks access as usual), or an external
 * http(s) URL that names an image, the only external URLs the renderer previews. Anything else
 * is refused, so the path is no open redirect to arbitrary pages.
 */
export async function thumbnails(ctx: Context, next: Next): Promise<void> {
  if (ctx.path !== '/thumbnail' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
  noteRoute(ctx.req, '/thumbnail');
  const url = typeof ctx.query.url === 'string' ? ctx.query.url : '';
  const size = ctx.query.size;
  const refuse = (status: number, msg: string) => {
    ctx.status = status;
    ctx.type = 'application/json';
    ctx.body = JSON.stringify({ result: 'error', msg, code: 'BAD_REQUEST' });
  };
  if (size !== 'thumbnail' && size !== 'full') return refuse(403, 'Invalid size.');
  let target: string | undefined;
  if (/^user_uploads\/[^?#]+$/.test(url)) target = '/' + url;
  else if (/^https?:\/\/[^\s]+$/i.test(url) && isImageUrl(url)) target = url;
  if (!target) return refuse(403, 'This URL cannot be previewed.');
  ctx.status = 302;
  // Header values must be ASCII: anything else is percent-encoded, as a browser would send it.
  ctx.set('Location', target.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c)));
  ctx.set('Cache-Control', 'public, max-age=86400');
  ctx.body = '';
}
