import type { ServerResponse } from 'node:http';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Writes a JSON answer outside Koa (the long-poll and send fast paths): the status, the header
 * sets in order (a later set wins), and the body given to `end` as a string, which Node sends in
 * one write with the head (a Buffer goes as a second chunk of a writev, after a copy).
 * Koa's answer has the same headers: Content-Type `application/json; charset=utf-8` and the
 * body's length in bytes.
 */
export function writeJson(res: ServerResponse, status: number, body: string, first?: Record<string, string>, second?: Record<string, string>): void {
  if (res.writableEnded || res.destroyed) return;
  const headers: Record<string, string | number> = {};
  if (first) for (const name in first) headers[name] = first[name];
  if (second) for (const name in second) headers[name] = second[name];
  headers['Content-Type'] = JSON_TYPE;
  headers['Content-Length'] = Buffer.byteLength(body);
  res.writeHead(status, headers);
  res.end(body);
}
