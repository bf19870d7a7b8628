import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import { ApiError } from '../lib/errors.js';
import { checkParams } from '../lib/input-limits.js';
import { routes, type Route } from '../routes.js';
import type { ShardPool } from '../host/pool.js';
import type { DirectoryEntry } from '../store/directory.js';
import { lastValues, withoutInternal, type BodyLimits } from './body.js';
import { clientAddress } from './client-address.js';
import type { AddressGuard } from './guard.js';
import { noteRoute } from './request-log.js';
import { askShard, writeFailure, writeJson } from './reply-write.js';

/**
 * The requests a connected client makes most, after its long-poll: sends, typing, presence,
 * flags. Their routes take no path parameter, no larger body, no login counting, no payload.
 */
const FAST_PATHS = ['/messages', '/typing', '/users/me/presence', '/messages/flags'];
const FAST = new Map(
  routes.filter((route) => route.method === 'POST' && FAST_PATHS.includes(route.path) && !route.bodyBytes && !route.login && !route.payload).map((route) => [`/api/v1${route.path}`, route]),
);
const FORM = 'application/x-www-form-urlencoded';
const DIGITS = /^\d+$/;

/**
 * POST /api/v1/messages (and the few others of FAST_PATHS) with a small urlencoded body and no
 * query string, answered without Koa. A send is the request a chat server answers most after
 * the long-poll, and through Koa (its
 * context, the middleware chain, the router, koa-bodyparser's streams) it cost a send about as
 * much main-thread time as a dozen polls answered at a desk (bench DELIVERY's profile). The
 * request is read as Koa's path reads it (front/body.ts: the same parser, limits and checks; the
 * same per-address count; the same task for the shard) and the answer written with the same
 * headers. Anything else (multipart, JSON, a charset or encoding, a query string, a body over
 * the limit or of unknown length) goes to Koa; test/front/fast-post.test.ts compares the two.
 */
export function fastPostHandler(realmFor: (host: string) => DirectoryEntry, pool: ShardPool, guard: AddressGuard, limits: BodyLimits) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== 'POST') return false;
    const route = FAST.get(req.url ?? '');
    if (!route) return false;
    const { headers } = req;
    if (headers['content-type'] !== FORM || headers['transfer-encoding'] !== undefined || headers['content-encoding'] !== undefined) return false;
    const declared = headers['content-length'];
    if (declared === undefined || !DIGITS.test(declared) || Number(declared) > limits.bodyBytes) return false;
    void send(req, res, route, Number(declared));
    return true;
  };

  async function send(req: IncomingMessage, res: ServerResponse, route: Route, length: number): Promise<void> {
    const path = `/api/v1${route.path}`;
    let limitHeaders: Record<string, string> | undefined;
    try {
      const address = clientAddress(req);
      const admission = await guard.admit(req, address, realmFor);
      limitHeaders = admission.headers;
      const text = await readBody(req, length);
      // As koa-bodyparser reads a form (iconv-lite drops a byte-order mark), then front/body.ts.
      const form = parseQueryString(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, '&', '=', { maxKeys: limits.params + 1 });
      const params = withoutInternal(lastValues(form));
      checkParams(params, limits);
      noteRoute(req, path);
      const realm = realmFor(req.headers.host ?? '');
      const reply = await askShard(pool, req, res, realm, admission, address, { op: route.op, method: 'POST', params });
      if (reply.cookies) res.setHeader('Set-Cookie', reply.cookies);
      writeJson(res, reply.status, reply.body, limitHeaders, reply.headers);
    } catch (err) {
      writeFailure(res, err, limitHeaders, path);
    }
  }
}

/** A form body cut short or unreadable: what koa-bodyparser's failure becomes (front/body.ts). */
const malformed = () => new ApiError('Malformed request body');

/** The body of a request whose Content-Length is known and within the limit, as UTF-8 text. */
function readBody(req: IncomingMessage, length: number): Promise<string> {
  return new Promise((resolve, reject) => {
    if (length === 0 && req.complete) return resolve('');
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
    };
    const done = (err: ApiError | null) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onError);
      if (err) reject(err);
      else resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, size).toString('utf8'));
    };
    const onEnd = () => done(size === length ? null : malformed());
    // The client went away mid-body (or the socket failed): nobody reads the answer, but the
    // request must end.
    const onClose = () => {
      if (!req.readableEnded) done(malformed());
    };
    const onError = () => done(malformed());
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
    req.once('error', onError);
  });
}
