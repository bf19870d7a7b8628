import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import Koa, { type Context, type Next } from 'koa';
import Router from '@koa/router';
import type { ResolvedConfig } from '../config.js';
import { ApiError, internalErrorBody, notFound, noSuchRealm } from '../lib/errors.js';
import { log } from '../lib/log.js';
import { routes, type Route } from '../routes.js';
import type { Reply } from '../shard/dispatch.js';
import type { ShardPool } from '../shard/pool.js';
import type { Directory, DirectoryEntry } from '../store/directory.js';
import { uploadsTmpDir } from '../store/uploads.js';
import { paramParser } from './body.js';
import { addressGuard, clientAddress, type AddressGuard, type Admission } from './guard.js';
import { pageRouter } from './pages.js';
import { acceptsParam, methodMatcher, orderRoutes } from './route-order.js';
import { staticFiles } from './static.js';
import { thumbnails } from './thumbnail.js';
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
}

function send(ctx: Context, reply: Reply): void {
  ctx.status = reply.status;
  if (reply.headers) ctx.set(reply.headers);
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
  ctx.body = reply.body;
}

function sendError(ctx: Context, err: ApiError): void {
  send(ctx, { status: err.status, body: JSON.stringify(err.body()), headers: err.headers });
}

const pathParams = (ctx: Context) => (ctx as unknown as { params: Record<string, string> }).params;

export function createFrontEnd(config: ResolvedConfig, directory: Directory, pool: ShardPool): FrontEnd {
  let realms = new Map<string, DirectoryEntry>();
  const refreshRealms = () => {
    realms = new Map(directory.list().map((e) => [e.subdomain, e]));
  };
  refreshRealms();

  // Host -> realm. The root realm ('') answers at the external host, realm S at S.<host>; with a
  // single realm, every host reaches it (a fresh install behind any name or address just works).
  const external = config.externalHost;
  function realmFor(host: string): DirectoryEntry {
    if (realms.size === 1) return realms.values().next().value!;
    const h = host.toLowerCase();
    let sub: string | undefined;
    if (h === external) sub = '';
    else if (h.endsWith(`.${external}`)) sub = h.slice(0, -external.length - 1);
    const entry = sub === undefined ? undefined : realms.get(sub);
    if (!entry) throw noSuchRealm();
    return entry;
  }

  const app = new Koa({ proxy: false });
  app.silent = true;

  app.use(async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (err) {
      if (err instanceof ApiError) return sendError(ctx, err);
      log.error({ err, method: ctx.method, path: ctx.path }, 'unhandled error in front end');
      ctx.status = 500;
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(internalErrorBody);
    }
  });

  app.use(staticFiles);
  app.use(thumbnails);

  // Every request is counted against its client's address before its body is read; those a
  // shard authenticates are given back when its reply comes (front/guard.ts).
  const guard = addressGuard(config, pool);
  app.use(async (ctx: Context, next: Next) => {
    const address = clientAddress(ctx.req);
    ctx.state.address = address;
    const admission = await guard.admit(ctx.req, address, realmFor);
    ctx.state.admission = admission;
    if (admission.headers) ctx.set(admission.headers);
    await next();
  });

  const parseParams = paramParser(uploadsTmpDir(config.dataDir), { ...config.requestLimits });
  const largeBodies = new Map<number, ReturnType<typeof paramParser>>();
  const parserFor = (route: Route) => {
    if (!route.bodyBytes || route.bodyBytes <= config.requestLimits.bodyBytes) return parseParams;
    let parser = largeBodies.get(route.bodyBytes);
    if (!parser) largeBodies.set(route.bodyBytes, (parser = paramParser(uploadsTmpDir(config.dataDir), { ...config.requestLimits, bodyBytes: route.bodyBytes })));
    return parser;
  };
  const router = new Router({ prefix: '/api/v1' });
  const methodsAt = methodMatcher(routes);
  for (const route of orderRoutes(routes)) {
    // `{name*}` takes the rest of the path (an upload's path id has several segments).
    const path = route.path.replace(/\{(\w+)\*\}/g, '*$1').replace(/\{(\w+)\}/g, ':$1');
    const handle = async (ctx: Context) => {
      const realm = realmFor(ctx.host);
      const requestId = randomUUID();
      // A client that hangs up on a parked GET /events must not leave the poll parked.
      // (The response's 'close' fires when the connection drops before the reply is written;
      // the request's own 'close' fires as soon as its body has been read.)
      const onClose = () => {
        if (!ctx.res.writableEnded) pool.cancel(realm.shard, requestId);
      };
      ctx.res.once('close', onClose);
      const address = ctx.state.address as string;
      const loggedIn = route.login ? guard.login(address) : null;
      const reply = await pool.request(realm.shard, {
        kind: 'request',
        op: route.op,
        realmId: realm.id,
        authorization: ctx.get('authorization') || undefined,
        params: route.op === 'webhooks.incoming' ? webhookParams(ctx) : ctx.state.params,
        pathParams: { ...pathParams(ctx), ...ctx.state.pathParams },
        userAgent: ctx.get('user-agent'),
        remoteAddr: address,
        requestId,
        addressOver: (ctx.state.admission as Admission).over,
      });
      ctx.res.off('close', onClose);
      (ctx.state.admission as Admission).settle(reply);
      loggedIn?.(reply);
      send(ctx, reply);
    };
    const parse = parserFor(route);
    router.register(path, [route.method], async (ctx: Context, next: Next) => {
      // A path this route does not take goes on to the next route that matches, or to the 404.
      for (const [name, value] of Object.entries(pathParams(ctx))) if (!acceptsParam(name, value)) return next();
      await parse(ctx, () => handle(ctx));
    });
  }
  // Unknown endpoints and wrong methods still answer in JSON.
  app.use(async (ctx: Context, next: Next) => {
    await next();
    if (ctx.body != null) return;
    const methods = ctx.path.startsWith('/api/v1/') ? methodsAt(ctx.path.slice('/api/v1'.length)) : [];
    if (methods.length > 0) sendError(ctx, new ApiError('Method Not Allowed', { status: 405 }));
    else sendError(ctx, notFound());
  });
  // Message links point at /user_uploads/... outside /api/v1, where the reference serves the file
  // itself (HTTP Basic, or a temporary token). They reach the API route's operation, told by a
  // path parameter that only the front end sets to answer with the file.
  app.use(async (ctx: Context, next: Next) => {
    if (ctx.method === 'GET' && ctx.path.startsWith('/user_uploads/')) {
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
  app.use(pageRouter(realmFor, pool, parseParams));
  app.use(router.routes());

  return { app, refreshRealms, realmFor, guard };
}
