import type { RealmState } from '../model/realm-state.js';
import type { UserRecord } from '../model/types.js';
import type { Shard } from '../shard/shard.js';
import type { ParamSchema } from '../lib/params.js';

export type { ParamSchema } from '../lib/params.js';

/**
 * An operation is what the shard runs for one route: who may call it, the JSON schema of its
 * parameters, and the handler. Handlers return the success fields beyond `result` and `msg`, or
 * throw an ApiError; the dispatcher (shard/dispatch.ts) does the rest.
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


export interface OpContext<P> {
  shard: Shard;
  realm: RealmState;
  /** The authenticated user; null only for 'none' and anonymous 'optional' calls. */
  user: UserRecord | null;
  params: P;
  userAgent: string;
  remoteAddr: string;
  requestId: string;
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
  /**
   * Never sent; for the front end's per-address limits (front/guard.ts): whether the request
   * authenticated as a user, and whether it was a password login for a username nobody has.
   */
  authenticated?: boolean;
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
