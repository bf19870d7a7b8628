import type { RealmState } from '../model/realm-state.js';
import type { UserRecord } from '../model/types.js';
import type { Shard } from '../shard/shard.js';
import type { ParamSchema } from '../lib/params.js';
import type { DeskMode, Grant } from '../shard/desk-wire.js';
import type { ArenaBody } from '../lib/body-arena.js';

export type { ParamSchema } from '../lib/params.js';

/**
 * An operation is what the shard runs for one route: who may call it, the JSON schema of its
 * parameters, and the handler. Handlers return the success fields beyond `result` and `msg`, or
 * throw an ApiError; the dispatcher (host/dispatch.ts) does the rest.
 */
export type AuthMode =
  /** HTTP Basic email:api_key required. */
  | 'user'
  /** No authentication (GET /server_settings, POST /fetch_api_key). */
  | 'none'
  /** Credentials used when present; anonymous access allowed where the realm permits it. */
  | 'optional'
  /** Incoming webhooks: the `api_key` parameter (or HTTP Basic) names the user. */
  | 'webhook';


/**
 * A browser's request (the web app's /json/ routes, its pages, upload links): the session
 * cookie as sent, the CSRF token of the X-CSRFToken header, whether the method writes, and the
 * Origin when it names another site (front/session.ts).
 */
export interface BrowserRequest {
  cookie?: string;
  csrfToken?: string;
  write: boolean;
  crossOrigin?: string;
}

/** The session a request was authenticated by (api/sessions/auth.ts). */
export interface SessionRef {
  userId: number;
  secret: string;
  csrf: string;
}

export interface OpContext<P> {
  shard: Shard;
  realm: RealmState;
  /** The authenticated user; null only for 'none' and anonymous 'optional' calls. */
  user: UserRecord | null;
  params: P;
  userAgent: string;
  remoteAddr: string;
  requestId: string;
  /**
   * GET /events through the front end's long-poll path, which can keep a desk (api/events/desk.ts):
   * 'park' for a plain poll, which may park at that desk.
   */
  longPoll?: DeskMode;
  /** Set for a browser's request. */
  browser?: BrowserRequest;
  /** The session that authenticated the request, when a cookie did. */
  session?: SessionRef;
  /** What the front end's per-address limits learn from the reply (Reply.unknownLogin). */
  outcome: { unknownLogin?: boolean };
}

export interface Operation<P = Record<string, unknown>> {
  auth: AuthMode;
  /** Who may call it beyond being authenticated; checked before the parameters. */
  role?: 'administrator' | 'owner';
  params?: ParamSchema;
  /** Runs even while a snapshot holds requests back (Shard.quiesced): POST /register itself. */
  passesGate?: boolean;
  /**
   * Incoming webhook bots may call it (the reference's allow_incoming_webhooks: sending
   * messages); every other endpoint refuses them.
   */
  allowIncomingWebhooks?: boolean;
  /**
   * Answers without `ignored_parameters_unsupported` (the reference's webhook views: a service's
   * form fields are no API parameters).
   */
  silentlyIgnoresParams?: boolean;
  handler(ctx: OpContext<P>): Record<string, unknown> | Promise<Record<string, unknown>>;
}

/**
 * The answer, serialised in the shard so the front end only writes bytes. A handler that answers
 * with something other than JSON (an uploaded file) returns its whole Reply as `__reply`.
 */
export interface Reply {
  status: number;
  body: string;
  headers?: Record<string, string>;
  /** Sent instead of `body`: a file the front end streams (the shard has checked access). */
  file?: { path: string; contentType: string };
  /** Sent instead of `body`: bytes read from the store (a custom emoji's image). */
  bytes?: Uint8Array;
  /** Sent instead of `body` (then empty), when the request asked for it: the body's slot in the shard's arena (lib/body-arena.ts). */
  arena?: ArenaBody;
  /**
   * Set when `body` is known to be ASCII, so its length is its byte count: the front end writes
   * it without scanning it for Content-Length, and as Latin-1, a plain copy (front/reply-write.ts).
   */
  ascii?: boolean;
  /** A GET /events answer's desk for its queue (api/events/desk.ts), for the front end, not the client. */
  desk?: Grant;
  /** Sent instead of `body`: the web app's page, which the front end holds (a live session's `/`). */
  webApp?: boolean;
  /** Set-Cookie lines (a login or a logout: api/sessions/cookies.ts). */
  cookies?: string[];
  /**
   * Who the request was from, once authenticated: for the access log (front/request-log.ts),
   * and the per-address limits (front/guard.ts), which give an authenticated request back.
   */
  userId?: number;
  /**
   * Fields of the request's audit line that only the handler knows (an address change's old and
   * new address); api-kit/audit.ts takes them off the reply before it leaves the shard.
   */
  audit?: Record<string, unknown>;
  /** Never sent; for the per-address limits: a password login for a username nobody has. */
  unknownLogin?: boolean;
}

/** Identity function that gives `params` its type at the definition site. */
export function operation<P = Record<string, unknown>>(def: Operation<P>): Operation<P> {
  return def;
}

/** The authenticated user of a 'user' operation. */
export function me<P>(ctx: OpContext<P>): UserRecord {
  if (!ctx.user) throw new Error('operation needs an authenticated user');
  return ctx.user;
}
