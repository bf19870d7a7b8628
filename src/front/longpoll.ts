import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { ApiError, internalErrorBody } from '../lib/errors.js';
import { log } from '../lib/log.js';
import type { Reply } from '../shard/dispatch.js';
import type { ShardPool } from '../shard/pool.js';
import type { DirectoryEntry } from '../store/directory.js';
import { lastValues, withoutInternal } from './body.js';
import { clientAddress, type AddressGuard } from './guard.js';

const PATH = '/api/v1/events';

/**
 * GET /api/v1/events, answered without Koa. A server holds one parked long-poll per connected
 * client for up to a minute; through Koa's context, the router and the middleware chain each one
 * kept about 16 KB of closures, contexts and suspended async frames on the main thread (159 MB
 * for 10,000 parked polls). Here a parked poll is its request, its response and one pending shard
 * task. The request is the one Koa would have built (query parameters, last value of a repeated
 * key; credentials; client address), and the reply is written the same way. A poll with a body,
 * which only Koa parses, goes there.
 */
export function longPollHandler(realmFor: (host: string) => DirectoryEntry, pool: ShardPool, stopping: () => boolean, guard: AddressGuard) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== 'GET') return false;
    const url = req.url ?? '';
    const q = url.indexOf('?');
    if ((q < 0 ? url : url.slice(0, q)) !== PATH) return false;
    if (req.headers['transfer-encoding'] || (req.headers['content-length'] && req.headers['content-length'] !== '0')) return false;
    void poll(req, res, q < 0 ? '' : url.slice(q + 1));
    return true;
  };

  async function poll(req: IncomingMessage, res: ServerResponse, query: string): Promise<void> {
    let limitHeaders: Record<string, string> | undefined;
    try {
      const address = clientAddress(req);
      const admission = await guard.admit(req, address, realmFor);
      limitHeaders = admission.headers;
      const realm = realmFor(req.headers.host ?? '');
      const requestId = randomUUID();
      // A client that hangs up must not leave its poll parked in the shard.
      const onClose = () => {
        if (!res.writableEnded) pool.cancel(realm.shard, requestId);
      };
      res.once('close', onClose);
      const reply = await pool.request(realm.shard, {
        kind: 'request',
        op: 'events.get',
        realmId: realm.id,
        authorization: req.headers.authorization || undefined,
        params: withoutInternal(lastValues(parseQuery(query))),
        pathParams: {},
        userAgent: req.headers['user-agent'] ?? '',
        remoteAddr: address,
        requestId,
        addressOver: admission.over,
      });
      res.off('close', onClose);
      admission.settle(reply);
      // A stopping server answers polls at once, empty: kept alive, the connection would bring
      // the next poll straight back, thousands a second until the grace period ends. Closed, the
      // client's reconnect finds no listener and backs off.
      if (stopping()) res.shouldKeepAlive = false;
      write(res, limitHeaders ? { ...reply, headers: { ...limitHeaders, ...reply.headers } } : reply);
    } catch (err) {
      if (err instanceof ApiError) return write(res, { status: err.status, body: JSON.stringify(err.body()), headers: { ...limitHeaders, ...err.headers } });
      log.error({ err, path: PATH }, 'unhandled error in the long-poll front end');
      write(res, { status: 500, body: JSON.stringify(internalErrorBody) });
    }
  }
}

function write(res: ServerResponse, reply: Reply): void {
  if (res.writableEnded || res.destroyed) return;
  const body = Buffer.from(reply.body);
  res.writeHead(reply.status, { ...reply.headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
  res.end(body);
}
