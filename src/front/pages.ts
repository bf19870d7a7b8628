import { createReadStream } from 'node:fs';
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { htmlPage } from '../api-kit/html-page.js';
import { LOGIN_MESSAGES } from '../api/sessions/messages.js';
import { clientAddress } from './client-address.js';
import type { AddressGuard, Admission } from './guard.js';
import { noteRoute, noteUser } from './request-log.js';
import { ApiError } from '../lib/errors.js';
import { escapeAll as h } from '../markdown/preprocess.js';
import { pageRoutes } from '../routes.js';
import type { Reply } from '../host/dispatch.js';
import type { ShardPool } from '../host/pool.js';
import type { DirectoryEntry } from '../store/directory.js';
import { browserRequest } from './session.js';
import { serveApp } from './web-assets.js';

/**
 * Pages for people outside /api/v1 (src/routes.ts `pageRoutes`: the invitation sign-up page,
 * the uploaded avatars' images and the data exports' archives).
 * As for the API, the front end decides nothing: it finds the realm from the Host header and
 * hands the request to the realm's shard, which renders the whole page. The answers are HTML,
 * even when something fails before the shard renders one.
 */
function errorPage(status: number, title: string, text = '', headers: Record<string, string> = {}): Reply {
  const page = htmlPage(status, title, `<h1>${h(title)}</h1>${text ? `\n<p>${h(text)}</p>` : ''}`);
  return { ...page, headers: { ...page.headers, ...headers } };
}

const escape = (literal: string) => literal.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
// Each page path as a pattern: a `{name}` segment is any one segment; the trailing slash optional.
const pagePatterns = pageRoutes.map((route) => {
  const segments = route.path.replace(/\/$/, '').split('/').map((seg) => (/^\{\w+\}$/.test(seg) ? '[^/]+' : escape(seg)));
  return new RegExp(`^${segments.join('/')}/?$`);
});

/** Whether a path is one of the pages (pageRoutes), whose answers are HTML even when they fail. */
export function isPagePath(path: string): boolean {
  return pagePatterns.some((re) => re.test(path));
}

/**
 * An error met before a page's shard could render it (the per-address limit, an unknown host,
 * a body too large), as a page in the frame of the others: a person reads it, not a program.
 */
export function apiErrorPage(err: ApiError): Reply {
  if (err.code === 'RATE_LIMIT_HIT') {
    const seconds = Math.ceil(Number(err.data['retry-after'] ?? 1));
    return errorPage(429, 'Too many requests', `Too many requests from your address: try again in ${seconds} second${seconds === 1 ? '' : 's'}.`, err.headers);
  }
  if (err.status === 404) return errorPage(404, 'There is no organization at this address', err.message);
  return errorPage(err.status, 'This page could not be shown', err.message, err.headers);
}

function sendPage(ctx: Context, reply: Reply): void {
  if (reply.cookies) ctx.set('set-cookie', reply.cookies);
  // A live session's `/`: the web app's page, from memory.
  if (reply.webApp) return serveApp(ctx);
  // A redirect (a login, a logout): its Location and nothing else.
  if (reply.status >= 300 && reply.status < 400) {
    ctx.status = reply.status;
    ctx.set(reply.headers ?? {});
    ctx.body = '';
    return;
  }
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
  // A page that sends the browser on (a call link to its BigBlueButton server).
  if (reply.status >= 300 && reply.status < 400) {
    ctx.status = reply.status;
    ctx.set(reply.headers ?? {});
    ctx.body = '';
    return;
  }
  // A shard answers a page operation with HTML; JSON means it failed before rendering one.
  const html = reply.headers?.['content-type']?.startsWith('text/html');
  let page = reply;
  if (!html) {
    const { msg, code, ...data } = JSON.parse(reply.body) as { msg?: string; code?: string };
    page = reply.status >= 500 ? errorPage(reply.status, 'Something went wrong') : apiErrorPage(new ApiError(msg ?? '', { code, status: reply.status >= 400 ? reply.status : 500, data, headers: reply.headers }));
  }
  ctx.status = page.status;
  ctx.set(page.headers ?? {});
  ctx.body = page.body;
}

export { sendPage };

export function pageRouter(realmFor: (host: string) => DirectoryEntry, pool: ShardPool, parseParams: Middleware, guard: AddressGuard): Middleware {
  const router = new Router();
  for (const route of pageRoutes) {
    const path = route.path.replace(/\{(\w+)\}/g, ':$1');
    // The path with and without its trailing slash: links get shortened when pasted around.
    const paths = path.endsWith('/') && path !== '/' ? [path, path.slice(0, -1)] : [path];
    router.register(paths, [route.method], [
      parseParams,
      async (ctx: Context) => {
        noteRoute(ctx.req, route.path);
        let realm: DirectoryEntry;
        try {
          realm = realmFor(ctx.host);
        } catch (err) {
          if (err instanceof ApiError) return sendPage(ctx, apiErrorPage(err));
          throw err;
        }
        const address = clientAddress(ctx.req);
        const admission = ctx.state.admission as Admission | undefined;
        // The login form: a name nobody has counts against the address (front/guard.ts); over
        // that limit the form says what the shard's per-name limit says.
        let loggedIn: ((reply: Reply) => void) | null = null;
        try {
          if (route.login) loggedIn = guard.login(address);
        } catch (err) {
          if (!(err instanceof ApiError) || err.code !== 'RATE_LIMIT_HIT') throw err;
          const seconds = Math.ceil(Number(err.data['retry-after'] ?? 1));
          return sendPage(ctx, errorPage(429, 'Too many attempts', LOGIN_MESSAGES.rateLimited(seconds), err.headers));
        }
        const reply = await pool.request(realm.shard, {
          kind: 'request',
          op: route.op,
          method: route.method,
          realmId: realm.id,
          // Pages that know who is asking (a call link) take the same credentials as the API.
          authorization: ctx.get('authorization') || undefined,
          params: ctx.state.params,
          pathParams: (ctx as unknown as { params: Record<string, string> }).params,
          userAgent: ctx.get('user-agent'),
          remoteAddr: address,
          browser: browserRequest(ctx.method, ctx.headers),
          addressOver: admission?.over,
        });
        admission?.settle(reply);
        loggedIn?.(reply);
        noteUser(ctx.req, reply.userId);
        sendPage(ctx, reply);
      },
    ]);
  }
  return router.routes() as unknown as Middleware;
}
