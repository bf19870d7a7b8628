import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { Reply } from '../host/dispatch.js';
import type { DeskPoll, DeskTicket } from '../host/desk.js';
import type { ParkAtDesk, ShardPool } from '../host/pool.js';
import type { DirectoryEntry } from '../store/directory.js';
import { lastValues, withoutInternal } from './body.js';
import type { AddressGuard, Admission } from './guard.js';
import { clientAddress } from './client-address.js';
import { noteRoute, noteUser } from './request-log.js';
import { cancellableRequest, writeFailure, writeJson } from './reply-write.js';
import { browserRequest } from './session.js';

const PATH = '/api/v1/events';
// The web app polls the /json/ twin with its session cookie (front/session.ts).
const JSON_PATH = '/json/events';

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
    const path = q < 0 ? url : url.slice(0, q);
    if (path !== PATH && path !== JSON_PATH) return false;
    if (req.headers['transfer-encoding'] || (req.headers['content-length'] && req.headers['content-length'] !== '0')) return false;
    const json = path === JSON_PATH;
    noteRoute(req, json ? JSON_PATH : PATH);
    const query = q < 0 ? '' : url.slice(q + 1);
    const address = clientAddress(req);
    // Within its address's limit a poll is admitted at once, and one its desk answers is
    // answered in this turn, without a promise (front/guard.ts).
    const admission = guard.admit(req, address, realmFor);
    if (admission instanceof Promise) admission.then((admitted) => poll(req, res, query, json, address, admitted), (err: unknown) => writeFailure(res, err, undefined, PATH));
    else poll(req, res, query, json, address, admission);
    return true;
  };

  function poll(req: IncomingMessage, res: ServerResponse, query: string, json: boolean, address: string, admission: Admission): void {
    try {
      const realm = realmFor(req.headers.host ?? '');
      const parsed = parseQuery(query);
      // Most polls are answered at their queue's desk, without the shard (host/desk.ts). Not the
      // web app's: its session cookie, not a header, says who it is, and desks know headers.
      // Read from the query as parsed: a repeated or internal key is not plain, and goes to the
      // shard with the parameters Koa's path would build (no copies made for the common poll).
      const plain = json ? null : plainPoll(parsed);
      const authorization = req.headers.authorization;
      // (Not past the address's limit: the shard checks that the request authenticates.)
      const deskPoll = plain && authorization && admission.over === undefined ? new FrontPoll(realm.id, authorization, plain, req, res, admission, stopping) : null;
      if (deskPoll) {
        const ticket = pool.deskPoll(realm.shard, deskPoll);
        if (ticket) return leaveOnClose(res, ticket);
      }
      void toShard(req, res, json, address, admission, realm, parsed, deskPoll);
    } catch (err) {
      writeFailure(res, err, admission.headers, PATH);
    }
  }

  async function toShard(req: IncomingMessage, res: ServerResponse, json: boolean, address: string, admission: Admission, realm: DirectoryEntry, parsed: Record<string, unknown>, deskPoll: DeskPoll | null): Promise<void> {
    try {
      // A plain poll the shard would park parks at the queue's new desk, and the shard holds
      // nothing for it (api/events/desk.ts grant).
      const park: ParkAtDesk | undefined = deskPoll ? { poll: deskPoll, ticket: null } : undefined;
      const authorization = req.headers.authorization;
      const reply = await cancellableRequest(
        pool,
        realm.shard,
        res,
        {
          kind: 'request',
          op: 'events.get',
          method: 'GET',
          realmId: realm.id,
          authorization: json ? undefined : authorization || undefined,
          ...(json ? { browser: browserRequest('GET', req.headers) } : {}),
          params: withoutInternal(lastValues(parsed)),
          pathParams: {},
          userAgent: req.headers['user-agent'] ?? '',
          remoteAddr: address,
          longPoll: json ? undefined : park ? 'park' : 'grant',
          addressOver: admission.over,
        },
        park,
      );
      if (park?.ticket) return leaveOnClose(res, park.ticket);
      admission.settle(reply);
      noteUser(req, reply.userId);
      // A stopping server answers polls at once, empty: kept alive, the connection would bring
      // the next poll straight back, thousands a second until the grace period ends. Closed, the
      // client's reconnect finds no listener and backs off.
      if (stopping()) res.shouldKeepAlive = false;
      writeJson(res, reply.status, reply.body, admission.headers, reply.headers);
    } catch (err) {
      writeFailure(res, err, admission.headers, PATH);
    }
  }
}

/** A plain poll, as a desk answers it: one object with its parameters and its response, no closure. */
class FrontPoll implements DeskPoll {
  readonly queueId: string;
  readonly lastEventId: number | undefined;
  readonly dontBlock: boolean;

  constructor(
    readonly realmId: number,
    readonly authorization: string,
    plain: PlainPoll,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly admission: Admission,
    private readonly stopping: () => boolean,
  ) {
    this.queueId = plain.queueId;
    this.lastEventId = plain.lastEventId;
    this.dontBlock = plain.dontBlock;
  }

  answer(reply: Reply): void {
    this.admission.settle(reply);
    noteUser(this.req, reply.userId);
    if (this.stopping()) this.res.shouldKeepAlive = false;
    writeJson(this.res, reply.status, reply.body, this.admission.headers, reply.headers, reply.ascii);
  }
}

/** A poll parked at a desk leaves it when its client goes (or has gone while it waited). */
function leaveOnClose(res: ServerResponse, ticket: DeskTicket): void {
  if (res.writableEnded) return;
  // A response closes once: a plain listener, without once()'s wrapper per poll.
  if (res.destroyed) ticket.leave();
  else res.on('close', ticket.leave);
}

const CANONICAL_INTEGER = /^(0|-?[1-9]\d{0,14})$/;

/**
 * The parameters of a poll a desk may answer: queue_id, and last_event_id and dont_block in
 * the one spelling each that the shard's parser reads the same way. Anything else (another
 * parameter, which the answer would have to name as ignored; an odd spelling, which may be an
 * error) goes to the shard.
 */
interface PlainPoll {
  queueId: string;
  lastEventId?: number;
  dontBlock: boolean;
}

function plainPoll(params: Record<string, unknown>): PlainPoll | null {
  let queueId: string | undefined;
  let lastEventId: number | undefined;
  let dontBlock = false;
  for (const name in params) {
    const value = params[name];
    if (typeof value !== 'string') return null;
    if (name === 'queue_id') queueId = value;
    else if (name === 'last_event_id') {
      if (!CANONICAL_INTEGER.test(value)) return null;
      lastEventId = Number(value);
    } else if (name === 'dont_block') {
      if (value !== 'true' && value !== 'false') return null;
      dontBlock = value === 'true';
    } else return null;
  }
  return queueId === undefined ? null : { queueId, lastEventId, dontBlock };
}
