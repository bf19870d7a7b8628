import { createReadStream } from 'node:fs';
import Koa, { type Context, type Next } from 'koa';
import Router from '@koa/router';
import type { ResolvedConfig } from '../lib/config.js';
import { ApiError, internalErrorBody, notFound, noSuchRealm } from '../lib/errors.js';
import { log } from '../lib/log.js';
import { routes, type Route } from '../routes.js';
import type { Reply } from '../host/dispatch.js';
import type { ShardPool } from '../host/pool.js';
import type { Directory, DirectoryEntry } from '../store/directory.js';
import { uploadsTmpDir } from '../store/uploads.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { paramParser } from './body.js';
import { monitoring } from './monitoring.js';
import { noteRoute, noteUser, requestLog } from './request-log.js';
import { cancellableRequest } from './reply-write.js';
import type { BodyArena } from '../lib/body-arena.js';
import { clientAddress } from './client-address.js';
import { addressGuard, type AddressGuard, type Admission } from './guard.js';
import { apiErrorPage, isPagePath, pageRouter, sendPage } from './pages.js';
import { acceptsParam, methodMatcher, orderRoutes } from './route-order.js';
import { browserRequest } from './session.js';
import { staticFiles } from './static.js';
import { thumbnails } from './thumbnail.js';
import { webAssets } from './web-assets.js';
import { webhookParams } from './webhook.js';

/**
 * The HTTP front end. It does no business logic: it parses parameters, finds the realm from the
 * Host header, and hands `{op, realm, credentials, params}` to the shard that owns the realm.
 */
export interface FrontEnd {
  app: Koa;
  /** Re-reads the realm directory (after a realm is created). */
  refreshRealms(): void;
  /** The realm a Host header names (throws noSuchRealm). */
  realmFor(host: string): DirectoryEntry;
  /** The per-address limits (front/guard.ts). */
  guard: AddressGuard;
  /** Watches a request to its end, for the access log and /metrics (front/request-log.ts). */
  logRequest: (req: IncomingMessage, res: ServerResponse) => void;
}

function send(ctx: Context, reply: Reply, arena?: BodyArena): void {
  ctx.status = reply.status;
  if (reply.headers) ctx.set(reply.headers);
  if (reply.cookies) ctx.set('set-cookie', reply.cookies);
  if (reply.file) {
    ctx.type = reply.file.contentType;
    ctx.body = createReadStream(reply.file.path);
    return;
  }
  if (reply.bytes) {
    // Content-Type came with the headers; a Uint8Array from the worker becomes a Buffer view.
    ctx.body = Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength);
    return;
  }
  ctx.type = 'application/json';
  // A big body (a /register's) lies in the shard's arena, freed once the response has closed.
  ctx.body = reply.arena && arena ? arena.view(reply.arena) : reply.body;
}

/** A reply's arena slot is freed once its response has closed, whatever is written (lib/body-arena.ts). */
function freeWhenClosed(res: ServerResponse, arena: BodyArena, slot: number): void {
  if (res.writableEnded || res.destroyed) arena.free(slot);
  else res.once('close', () => arena.free(slot));
}

/**
 * A path served with other methods, as the reference's rest_dispatch answers it: the methods in
 * `allowed_methods` and the `Allow` header, HEAD wherever GET is.
 */
function methodNotAllowed(served: string[]): ApiError {
  const methods = served.includes('GET') && !served.includes('HEAD') ? [...served, 'HEAD'] : served;
  return new ApiError('Method Not Allowed', { status: 405, data: { allowed_methods: methods }, headers: { Allow: methods.join(', ') } });
}

function sendError(ctx: Context, err: ApiError): void {
  send(ctx, { status: err.status, body: JSON.stringify(err.body()), headers: err.headers });
}

const pathParams = (ctx: Context) => (ctx as unknown as { params: Record<string, string> }).params;

/**
 * A cluster node's say on a realm (src/cluster/node.ts): the entry when this node serves it now,
 * else a 503 (it moved, or is moving here) or noSuchRealm.
 */
export type RealmAdmission = (subdomain: string, entry: DirectoryEntry | undefined) => DirectoryEntry;

/** What a cluster node adds to the front end: who answers, and its part of GET /health. */
export interface ClusterHooks {
  admit: RealmAdmission;
  health(): { ok: boolean } & Record<string, unknown>;
}

export function createFrontEnd(config: ResolvedConfig, directory: Directory, pool: ShardPool, cluster?: ClusterHooks): FrontEnd {
  const admit = cluster?.admit;
  let realms = new Map<string, DirectoryEntry>();
  const refreshRealms = () => {
    // A realm held here but served elsewhere (a cluster moved it) is never routed to.
    realms = new Map(directory.list().filter((e) => !e.held).map((e) => [e.subdomain, e]));
  };
  refreshRealms();

  // Host -> realm. The root realm ('') answers at the external host, realm S at S.<host>; with a
  // single realm, every host reaches it (a fresh install behind any name or address just works).
  const external = config.externalHost;
  function realmFor(host: string): DirectoryEntry {
    if (realms.size === 1 && !admit) return realms.values().next().value!;
    const h = host.toLowerCase();
    let sub: string | undefined;
    if (h === external) sub = '';
    else if (h.endsWith(`.${external}`)) sub = h.slice(0, -external.length - 1);
    const entry = sub === undefined ? undefined : realms.get(sub);
    if (admit && sub !== undefined) return admit(sub, entry);
    if (!entry) throw noSuchRealm();
    return entry;
  }

  const app = new Koa({ proxy: false });
  app.silent = true;

  app.use(async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (err) {
      // A page (an invitation link, a password reset) is read by a person: errors in HTML.
      if (err instanceof ApiError) return isPagePath(ctx.path) ? sendPage(ctx, apiErrorPage(err)) : sendError(ctx, err);
      log.error({ err, method: ctx.method, path: ctx.path }, 'unhandled error in front end');
      ctx.status = 500;
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(internalErrorBody);
    }
  });

  // Before the per-address limit: a scraper on an allowed address is not an anonymous client.
  const monitor = monitoring(config, pool, directory, cluster?.health);
  app.use(monitor.middleware);

  app.use(staticFiles);
  app.use(webAssets);
  app.use(thumbnails);

  // Every request is counted against its client's address before its body is read; those a
  // shard authenticates are given back when its reply comes (front/guard.ts).
  const guard = addressGuard(config, pool);
  app.use(async (ctx: Context, next: Next) => {
    const admission = await guard.admit(ctx.req, clientAddress(ctx.req), realmFor);
    ctx.state.admission = admission;
    if (admission.headers) ctx.set(admission.headers);
    await next();
  });

  const parseParams = paramParser(uploadsTmpDir(config.dataDir), { ...config.requestLimits });
  // Routes with a larger body limit, or whose body is a payload, share a parser per kind.
  const otherParsers = new Map<string, ReturnType<typeof paramParser>>();
  const parserFor = (route: Route) => {
    const bodyBytes = Math.max(route.bodyBytes ?? 0, config.requestLimits.bodyBytes);
    if (bodyBytes === config.requestLimits.bodyBytes && !route.payload) return parseParams;
    const key = `${bodyBytes} ${route.payload === true}`;
    let parser = otherParsers.get(key);
    if (!parser) otherParsers.set(key, (parser = paramParser(uploadsTmpDir(config.dataDir), { ...config.requestLimits, bodyBytes }, route.payload)));
    return parser;
  };
  const router = new Router({ prefix: '/api/v1' });
  // The web app's twin of /api/v1, as the reference's: the same operations, authenticated by
  // the session cookie (and a CSRF token for writes) instead of HTTP Basic.
  const jsonRouter = new Router({ prefix: '/json' });
  const methodsAt = methodMatcher(routes);
  for (const route of orderRoutes(routes)) {
    // `{name*}` takes the rest of the path (an upload's path id has several segments).
    const path = route.path.replace(/\{(\w+)\*\}/g, '*$1').replace(/\{(\w+)\}/g, ':$1');
    const handle = async (ctx: Context, json: boolean) => {
      noteRoute(ctx.req, `${json ? '/json' : '/api/v1'}${route.path}`);
      const realm = realmFor(ctx.host);
      // Upload links (outside /api/v1) open with HTTP Basic or, in a browser, the session.
      const browser = json || ctx.state.pathParams?.__serve ? browserRequest(ctx.method, ctx.headers) : undefined;
      const address = clientAddress(ctx.req);
      const admission = ctx.state.admission as Admission;
      const loggedIn = route.login ? guard.login(address) : null;
      const reply = await cancellableRequest(pool, realm.shard, ctx.res, {
        kind: 'request',
        op: route.op,
        method: route.method,
        realmId: realm.id,
        authorization: json ? undefined : ctx.get('authorization') || undefined,
        params: route.payload ? webhookParams(ctx) : ctx.state.params,
        pathParams: { ...pathParams(ctx), ...ctx.state.pathParams },
        userAgent: ctx.get('user-agent'),
        remoteAddr: address,
        addressOver: admission.over,
        ...(browser ? { browser } : {}),
        arena: true,
      });
      const arena = pool.arena(realm.shard);
      if (reply.arena && arena) freeWhenClosed(ctx.res, arena, reply.arena.slot);
      admission.settle(reply);
      loggedIn?.(reply);
      noteUser(ctx.req, reply.userId);
      // A person who opens an upload link logged out is sent to log in, as the reference does
      // for a top-level page, rather than asked for HTTP Basic credentials.
      if (reply.status === 401 && ctx.state.pathParams?.__serve && ctx.accepts('json', 'html') === 'html') {
        ctx.redirect(`/login/?next=${encodeURIComponent(ctx.state.originalPath ?? '/')}`);
        return;
      }
      send(ctx, reply, arena);
    };
    const parse = parserFor(route);
    for (const [r, json] of [[router, false], [jsonRouter, true]] as const) {
      r.register(path, [route.method], async (ctx: Context, next: Next) => {
        // A path this route does not take goes on to the next route that matches, or to the 404.
        for (const [name, value] of Object.entries(pathParams(ctx))) if (!acceptsParam(name, value)) return next();
        await parse(ctx, () => handle(ctx, json));
      });
    }
  }
  // Unknown endpoints and wrong methods still answer in JSON.
  app.use(async (ctx: Context, next: Next) => {
    await next();
    // A 304 (a browser revalidating the app's page or a file it holds) has no body by design.
    if (ctx.body != null || ctx.status === 304) return;
    const prefix = /^\/(api\/v1|json)\//.exec(ctx.path)?.[0];
    const methods = prefix ? methodsAt(ctx.path.slice(prefix.length - 1)) : [];
    if (methods.length > 0 && ctx.method === 'OPTIONS') {
      // As the reference: which methods the path takes, and no body.
      ctx.status = 204;
      ctx.set('Allow', methodNotAllowed(methods).headers.Allow);
    } else if (methods.length > 0) sendError(ctx, methodNotAllowed(methods));
    else sendError(ctx, notFound());
  });
  // Message links point at /user_uploads/... outside /api/v1, where the reference serves the file
  // itself (HTTP Basic, or a temporary token). They reach the API route's operation, told by a
  // path parameter that only the front end sets to answer with the file.
  app.use(async (ctx: Context, next: Next) => {
    if (ctx.method === 'GET' && ctx.path.startsWith('/user_uploads/')) {
      ctx.state.originalPath = ctx.path;
      ctx.path = `/api/v1${ctx.path}`;
      ctx.state.pathParams = { __serve: 'file' };
    }
    // Custom emoji images (api/emoji/), public like the reference's /user_avatars files.
    if ((ctx.method === 'GET' || ctx.method === 'HEAD') && /^\/user_avatars\/\d+\/emoji\//.test(ctx.path)) {
      ctx.state.pathParams = { __image: ctx.path.slice('/user_avatars/'.length) };
      ctx.path = '/api/v1/realm/emoji';
    }
    await next();
  });
  app.use(pageRouter(realmFor, pool, parseParams, guard));
  app.use(router.routes());
  app.use(jsonRouter.routes());

  return { app, refreshRealms, realmFor, guard, logRequest: requestLog(monitor.observe) };
}
