import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, internalErrorBody } from '../lib/errors.js';
import type { ArenaBody, BodyArena } from '../lib/body-arena.js';
import { log } from '../lib/log.js';
import type { Reply, RequestTask } from '../host/dispatch.js';
import type { ParkAtDesk, ShardPool } from '../host/pool.js';
import type { DirectoryEntry } from '../store/directory.js';
import type { Admission } from './guard.js';
import { noteUser } from './request-log.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Writes a JSON answer outside Koa (the long-poll and send fast paths): the status, the header
 * sets in order (a later set wins), and the body given to `end` as a string, which Node sends in
 * one write with the head (a Buffer goes as a second chunk of a writev, after a copy).
 * Koa's answer has the same headers: Content-Type `application/json; charset=utf-8` and the
 * body's length in bytes.
 */
export function writeJson(res: ServerResponse, status: number, body: string | Uint8Array, first?: Record<string, string>, second?: Record<string, string>, ascii = false): void {
  if (res.writableEnded || res.destroyed) return;
  const headers: Record<string, string | number> = {};
  if (first) for (const name in first) headers[name] = first[name];
  if (second) for (const name in second) headers[name] = second[name];
  headers['Content-Type'] = JSON_TYPE;
  // A body known to be ASCII (Reply.ascii: a desk's answer, tens of KB under load) has as many
  // bytes as characters, and its Latin-1 bytes are its UTF-8 ones: no scan for the length, and a
  // copy rather than an encoding into the socket's buffer.
  const latin1 = ascii && typeof body === 'string';
  headers['Content-Length'] = latin1 ? body.length : Buffer.byteLength(body);
  res.writeHead(status, headers);
  if (latin1) res.end(body, 'latin1');
  else res.end(body);
}

/**
 * writeJson of a reply whose body lies in the shard's arena (lib/body-arena.ts): the bytes go to
 * the socket as they are, and the slot is freed once the response has closed (after its last
 * write's callback, or the connection's end), when nothing holds a pointer into it.
 */
export function writeArenaJson(res: ServerResponse, arena: BodyArena, reply: Reply & { arena: ArenaBody }, first?: Record<string, string>): void {
  const { slot } = reply.arena;
  if (res.writableEnded || res.destroyed) return arena.free(slot);
  res.once('close', () => arena.free(slot));
  writeJson(res, reply.status, arena.view(reply.arena), first, reply.headers);
}

/**
 * A request to the shard that the client's hanging up cancels: a poll must not stay parked, nor
 * a send's answer wait, for a connection that is gone.
 */
export async function cancellableRequest(pool: ShardPool, shard: number, res: ServerResponse, task: Omit<RequestTask, 'requestId'>, park?: ParkAtDesk): Promise<Reply> {
  const requestId = randomUUID();
  // The response's 'close' fires when the connection drops before the answer is written; the
  // request's own 'close' fires as soon as its body has been read.
  const onClose = () => {
    if (!res.writableEnded) pool.cancel(shard, requestId);
  };
  res.once('close', onClose);
  try {
    return await pool.request(shard, { ...task, requestId }, park);
  } finally {
    res.off('close', onClose);
  }
}

/** A fast path's failure, answered as Koa's error handling answers it: typed, or a bare 500. */
export function writeFailure(res: ServerResponse, err: unknown, limitHeaders: Record<string, string> | undefined, where: string): void {
  if (err instanceof ApiError) return writeJson(res, err.status, JSON.stringify(err.body()), limitHeaders, err.headers);
  log.error({ err, path: where }, 'unhandled error in a fast front-end path');
  writeJson(res, 500, JSON.stringify(internalErrorBody));
}

/**
 * A fast path's request with a plain body or query (no path parameters): the task Koa's route
 * would build for the shard, cancelled if the client hangs up, and the reply given back to the
 * address's count and the request log.
 */
export async function askShard(
  pool: ShardPool,
  req: IncomingMessage,
  res: ServerResponse,
  realm: DirectoryEntry,
  admission: Admission,
  address: string,
  call: { op: string; method: 'GET' | 'POST'; params: Record<string, unknown>; arena?: boolean },
): Promise<Reply> {
  const reply = await cancellableRequest(pool, realm.shard, res, {
    kind: 'request',
    ...call,
    realmId: realm.id,
    authorization: req.headers.authorization || undefined,
    pathParams: {},
    userAgent: req.headers['user-agent'] ?? '',
    remoteAddr: address,
    addressOver: admission.over,
  });
  admission.settle(reply);
  noteUser(req, reply.userId);
  return reply;
}
