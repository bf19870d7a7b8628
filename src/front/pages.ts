import { createReadStream } from 'node:fs';
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { ApiError } from '../lib/errors.js';
import { pageRoutes } from '../routes.js';
import type { Reply } from '../shard/dispatch.js';
import type { ShardPool } from '../shard/pool.js';
import type { DirectoryEntry } from '../store/directory.js';

/**
 * Pages for people outside /api/v1 (src/routes.ts `pageRoutes`: the invitation sign-up page,
 * the uploaded avatars' images and the data exports' archives).
 * As for the API, the front end decides nothing: it finds the realm from the Host header and
 * hands the request to the realm's shard, which renders the whole page. The answers are HTML,
 * even when something fails before the shard renders one.
 */
function errorPage(status: number, title: string): Reply {
  const safe = title.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const body = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${safe}</title></head><body><h1>${safe}</h1></body></html>\n`;
  return { status, body, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } };
}

function sendPage(ctx: Context, reply: Reply): void {
  // A file the shard found for the path (a data export's archive): streamed from disk.
  if (reply.file) {
    ctx.status = reply.status;
    ctx.set(reply.headers ?? {});
    ctx.type = reply.file.contentType;
    ctx.body = createReadStream(reply.file.path);
    return;
  }
  // An image the shard read from its store (an uploaded avatar): sent as it is.
  if (reply.bytes) {
    ctx.status = reply.status;
    ctx.set(reply.headers ?? {});
    ctx.body = Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength);
    return;
  }
  // A shard answers a page operation with HTML; JSON means it failed before rendering one.
  const html = reply.headers?.['content-type']?.startsWith('text/html');
  const page = html ? reply : errorPage(reply.status >= 400 ? reply.status : 500, reply.status === 500 ? 'Something went wrong' : 'This page could not be shown');
  ctx.status = page.status;
  ctx.set(page.headers ?? {});
  ctx.body = page.body;
}

export function pageRouter(realmFor: (host: string) => DirectoryEntry, pool: ShardPool, parseParams: Middleware): Middleware {
  const router = new Router();
  for (const route of pageRoutes) {
    const path = route.path.replace(/\{(\w+)\}/g, ':$1');
    // The path with and without its trailing slash: links get shortened when pasted around.
    const paths = path.endsWith('/') ? [path, path.slice(0, -1)] : [path];
    router.register(paths, [route.method], [
      parseParams,
      async (ctx: Context) => {
        let realm: DirectoryEntry;
        try {
          realm = realmFor(ctx.host);
        } catch (err) {
          if (err instanceof ApiError) return sendPage(ctx, errorPage(404, 'There is no organization at this address'));
          throw err;
        }
        const reply = await pool.request(realm.shard, {
          kind: 'request',
          op: route.op,
          realmId: realm.id,
          params: ctx.state.params,
          pathParams: (ctx as unknown as { params: Record<string, string> }).params,
          userAgent: ctx.get('user-agent'),
          remoteAddr: ctx.state.address ?? '',
        });
        sendPage(ctx, reply);
      },
    ]);
  }
  return router.routes() as unknown as Middleware;
}
