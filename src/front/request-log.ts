import type { IncomingMessage, ServerResponse } from 'node:http';
import { accessLog } from '../lib/log.js';
import { clientAddress, requestScheme } from './client-address.js';

/**
 * One access line per request, and its count and latency for /metrics, written when the answer
 * has gone (or the client has gone: status 499, as nginx writes it). The route is the template
 * of the route table (`/api/v1/users/{user_id}`, `/join/{key}/`), never the path: paths carry
 * invitation keys and export secrets. No query string, header or body is logged; the user is an
 * id, set once the realm's shard has authenticated the request.
 */
interface Noted {
  route?: string;
  userId?: number;
}

const NOTED = Symbol('stoa.request-log');
type WithNotes = IncomingMessage & { [NOTED]?: Noted };

function notes(req: IncomingMessage): Noted {
  return ((req as WithNotes)[NOTED] ??= {});
}

/** The route table's template for this request. */
export function noteRoute(req: IncomingMessage, route: string): void {
  notes(req).route = route;
}

/** Who the shard found the request to be from (Reply.userId). */
export function noteUser(req: IncomingMessage, userId: number | undefined): void {
  if (userId !== undefined) notes(req).userId = userId;
}

export type Observe = (method: string, route: string, status: number, seconds: number) => void;

/** Watches one request to its end (called once per request, as it arrives: server.ts). */
export function requestLog(observe: Observe): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const started = performance.now();
    // A response closes once: a plain listener, without once()'s wrapper per request.
    res.on('close', () => {
      const seconds = (performance.now() - started) / 1000;
      const { route, userId } = (req as WithNotes)[NOTED] ?? {};
      const status = res.writableFinished ? res.statusCode : 499;
      const method = req.method ?? '';
      observe(method, route ?? 'unmatched', status, seconds);
      if (accessLog.isLevelEnabled('info')) {
        accessLog.info({ method, route: route ?? null, status, ms: Math.round(seconds * 10_000) / 10, user: userId ?? null, client: clientAddress(req), proto: requestScheme(req) }, 'request');
      }
    });
  };
}
