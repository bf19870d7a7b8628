import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { checkParams } from '../lib/input-limits.js';
import type { ShardPool } from '../host/pool.js';
import type { DirectoryEntry } from '../store/directory.js';
import { lastValues, withoutInternal, type BodyLimits } from './body.js';
import { clientAddress } from './client-address.js';
import type { AddressGuard } from './guard.js';
import { noteRoute } from './request-log.js';
import { askShard, writeArenaJson, writeFailure, writeJson } from './reply-write.js';
import type { ArenaBody } from '../lib/body-arena.js';
import type { Reply } from '../host/dispatch.js';

const PATH = '/api/v1/messages';

/**
 * GET /api/v1/messages without a body, answered without Koa: a client reads history whenever a
 * view opens (bench P5: a page of 100 messages), and through Koa (its context, the middleware
 * chain, the router, koa-bodyparser) the main thread spent on each page about as much as the
 * shard spent reading and shaping it. The request is the one Koa's route builds (the query's
 * parameters, last value of a repeated key, the front end's own names dropped, the same limits;
 * credentials; client address), counted by the same guard, and the answer written with Koa's
 * headers (front/reply-write.ts). A GET with a body goes to Koa; test/front/fast-get.test.ts
 * compares the two paths.
 */
export function fastGetHandler(realmFor: (host: string) => DirectoryEntry, pool: ShardPool, guard: AddressGuard, limits: BodyLimits) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== 'GET') return false;
    const url = req.url ?? '';
    const q = url.indexOf('?');
    if ((q < 0 ? url : url.slice(0, q)) !== PATH) return false;
    if (req.headers['transfer-encoding'] || (req.headers['content-length'] && req.headers['content-length'] !== '0')) return false;
    void list(req, res, q < 0 ? '' : url.slice(q + 1));
    return true;
  };

  async function list(req: IncomingMessage, res: ServerResponse, query: string): Promise<void> {
    let limitHeaders: Record<string, string> | undefined;
    noteRoute(req, '/api/v1/messages');
    try {
      const address = clientAddress(req);
      const admission = await guard.admit(req, address, realmFor);
      limitHeaders = admission.headers;
      const params = withoutInternal(lastValues(parseQuery(query)));
      checkParams(params, limits);
      const realm = realmFor(req.headers.host ?? '');
      // A page's body comes in the shard's arena, not as a string (lib/body-arena.ts).
      const reply = await askShard(pool, req, res, realm, admission, address, { op: 'messages.list', method: 'GET', params, arena: true });
      if (reply.arena) writeArenaJson(res, pool.arena(realm.shard)!, reply as Reply & { arena: ArenaBody }, limitHeaders);
      else writeJson(res, reply.status, reply.body, limitHeaders, reply.headers);
    } catch (err) {
      writeFailure(res, err, limitHeaders, PATH);
    }
  }
}
