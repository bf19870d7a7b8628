import type { BrowserRequest, OpContext, Operation, Reply, SessionRef } from '../api-kit/operation.js';
import { checkCsrf, sessionRequired, sessionUser } from '../api/sessions/auth.js';
import { loadOperation, operations } from './registry.js';
import { constantTimeEqual, parseBasic } from '../lib/auth.js';
import { userLimitersOf } from '../lib/rate-limit.js';
import { ApiError, internalErrorBody, invalidApiKey, missingArgument, rateLimited, realmDeactivated, realmUnavailable, unauthorized, userDeactivated } from '../lib/errors.js';
import { log } from '../lib/log.js';
import { parseParams } from '../lib/params.js';
import { bodyIntoArena } from '../lib/body-arena.js';
import type { DeskMode } from '../shard/desk-wire.js';
import { RawFields, RawJson, stringifyPieces, stringifyWithRaw } from '../lib/raw-json.js';
import type { RealmState } from '../model/realm-state.js';
import { BOT_TYPE, ROLE, type UserRecord } from '../model/types.js';
import { isWrite } from '../shard/realm-gate.js';
import type { Shard } from '../shard/shard.js';
import { auditRequest } from '../api-kit/audit.js';

/** What the front end sends for one HTTP request. */
export interface RequestTask {
  kind: 'request';
  op: string;
  /** The HTTP method: a paused realm (shard/realm-gate.ts) still answers what changes nothing. */
  method?: string;
  realmId: number;
  authorization?: string;
  /** Query string and body, merged; values are text or, from a JSON body, JSON values. */
  params: Record<string, unknown>;
  pathParams: Record<string, string>;
  userAgent: string;
  remoteAddr: string;
  /** Unique per HTTP request: a long-poll is cancelled by it when its client goes away. */
  requestId?: string;
  /**
   * GET /events through the long-poll path: its answer may carry a desk (api/events/desk.ts).
   * 'park': the poll is one a desk could answer (plain parameters, an Authorization header, an
   * address within its limit), so if it would park it parks at the desk.
   */
  longPoll?: DeskMode;
  /** The front end writes a big body from the shard's arena (lib/body-arena.ts) and frees its slot. */
  arena?: boolean;
  /**
   * A browser's request (the /json/ twin of /api/v1, pages, upload links): its session cookie
   * authenticates it when no Authorization header does (api/sessions/auth.ts).
   */
  browser?: BrowserRequest;
  /**
   * The client's address is over its limit, and the request was let in for its credentials
   * (front/guard.ts): unless it authenticates as a user, it is refused with this retry-after.
   */
  addressOver?: number;
}

export type { Reply } from '../api-kit/operation.js';

// Compared against when the email is unknown, so a miss costs what a wrong key costs.
const DUMMY_KEY = 'x'.repeat(32);
// The reference's has_api_key_format: a key of another shape is "Malformed", not "Invalid".
const API_KEY_FORMAT = /^[A-Za-z0-9]{32}$/;

/**
 * HTTP Basic email:api_key against the realm's users. A user of another realm is simply not
 * found here: credentials never cross realms. A bad key answers 401 UNAUTHORIZED with a Basic
 * challenge, as the reference's authenticated_rest_api_view turns validate_api_key's error into
 * json_unauthorized(msg) (its API test suite checks the code); INVALID_API_KEY is what a key in
 * a webhook URL gets (authenticateWebhook).
 */
function authenticate(realm: RealmState, header: string | undefined, required: boolean): UserRecord | null {
  if (!header) {
    if (required) throw unauthorized();
    return null;
  }
  const creds = parseBasic(header);
  if (!creds) throw unauthorized('This endpoint requires HTTP basic authentication.');
  const key = creds.password.trim();
  if (!API_KEY_FORMAT.test(key)) throw unauthorized('Malformed API key');
  const user = realm.userByEmail(creds.username.trim());
  const ok = constantTimeEqual(user?.apiKey ?? DUMMY_KEY, key);
  if (!user || !ok) throw unauthorized('Invalid API key');
  // The reference's authenticated_rest_api_view turns every refusal of validate_api_key into
  // UNAUTHORIZED with the Basic challenge, keeping its text: a deactivated account or
  // organization is told as such only through a session or a webhook URL.
  if (realm.realm.deactivated) throw unauthorized(realmDeactivated().message);
  if (!user.isActive) throw unauthorized(userDeactivated().message);
  return user;
}

/**
 * An incoming webhook's credentials: the `api_key` parameter of its URL, which services that
 * cannot send headers carry (the reference's webhook_view), or else HTTP Basic.
 */
function authenticateWebhook(realm: RealmState, key: unknown, authorization: string | undefined): UserRecord {
  if (typeof key !== 'string') {
    if (authorization) return authenticate(realm, authorization, true)!;
    throw missingArgument('api_key');
  }
  let found: UserRecord | undefined;
  for (const user of realm.users.values()) if (constantTimeEqual(user.apiKey, key.trim())) found = user;
  if (!found || found.isSystemBot) throw invalidApiKey();
  if (realm.realm.deactivated) throw realmDeactivated();
  if (!found.isActive) throw userDeactivated();
  return found;
}

/**
 * A request without an Authorization header that comes from a browser: its session, then the
 * CSRF check for a write. Without a live session it is anonymous ('optional' operations) or
 * refused with the reference's session challenge (the /json/ routes).
 */
function authenticateSession(shard: Shard, realm: RealmState, task: RequestTask, required: boolean): { user: UserRecord; session: SessionRef } | null {
  const found = sessionUser(shard, realm, task.browser);
  if (!found) {
    if (required) throw sessionRequired();
    return null;
  }
  checkCsrf(task.browser!, found.session);
  if (realm.realm.deactivated) throw realmDeactivated();
  if (!found.user.isActive) throw userDeactivated();
  return found;
}

function checkRole(op: Operation, user: UserRecord | null): void {
  if (!op.role || !user) return;
  if (op.role === 'administrator' && user.role > ROLE.administrator) throw new ApiError('Must be an organization administrator', { code: 'UNAUTHORIZED_PRINCIPAL' });
  if (op.role === 'owner' && user.role > ROLE.owner) throw new ApiError('Must be an organization owner', { code: 'UNAUTHORIZED_PRINCIPAL' });
}

function success(fields: Record<string, unknown>, ignored: string[]): Reply {
  const body: Record<string, unknown> = { result: 'success', msg: '', ...fields };
  if (ignored.length > 0) body.ignored_parameters_unsupported = ignored;
  const values = Object.values(fields);
  if (!values.some((v) => v instanceof RawJson)) return { status: 200, body: JSON.stringify(body) };
  // A page of messages is joined here, as it always was: keeping its pieces to the end cost P5 a
  // sixth of its rate (bench/RESULTS.md, the lead's pairs of 2026-11-28 07:30). A /register
  // (RawFields: a few big sections) is joined by dispatch, or encoded piece by piece into the arena.
  if (!values.some((v) => v instanceof RawFields)) return { status: 200, body: stringifyWithRaw(body) };
  const reply: Reply = { status: 200, body: '' };
  rawBodies.set(reply, stringifyPieces(body));
  return reply;
}

/** The pieces of a success's body with RawJson in it, until dispatch joins them or puts them in the arena. */
const rawBodies = new WeakMap<Reply, string[]>();

export function errorReply(err: ApiError): Reply {
  return { status: err.status, body: JSON.stringify(err.body()), headers: err.headers };
}

/**
 * Counts the request against its user's rate limit (rateLimits in the config): the headers
 * every answer then carries, or RATE_LIMIT_HIT. Requests that do not authenticate are counted
 * per client address by the front end instead (front/guard.ts), told by Reply.userId.
 */
function rateLimit(shard: Shard, task: RequestTask, user: UserRecord | null): Record<string, string> | undefined {
  const limiters = user && userLimitersOf(shard);
  if (!limiters) return undefined;
  const limiter = task.op === 'events.get' ? limiters.events : limiters.api;
  const { retryAfter, headers } = limiter.take(`${task.realmId}:${user!.id}`);
  if (retryAfter > 0) {
    const err = rateLimited(retryAfter);
    throw new ApiError(err.message, { code: err.code, status: err.status, data: err.data, headers: { ...headers, ...err.headers } });
  }
  return headers;
}

/** What the front end asks of a shard before it lets in a request with credentials from an address over its limit. */
export interface VerifyTask {
  kind: 'verify';
  realmId: number;
  authorization?: string;
  /** An incoming webhook's key from its URL. */
  apiKey?: string;
  /** A browser's request with a session cookie (and no Authorization header). */
  browser?: BrowserRequest;
}

/** Whether the credentials name an active user of the realm: a lookup, never a password hash. */
export function verifyCredentials(shard: Shard, task: VerifyTask): boolean {
  const realm = shard.realm(task.realmId);
  if (!realm) return false;
  try {
    if (task.apiKey !== undefined) return authenticateWebhook(realm, task.apiKey, task.authorization) !== null;
    if (!task.authorization && task.browser) return sessionUser(shard, realm, task.browser)?.user.isActive === true && !realm.realm.deactivated;
    return authenticate(realm, task.authorization, true) !== null;
  } catch {
    return false;
  }
}

export async function dispatch(shard: Shard, task: RequestTask): Promise<Reply> {
  const outcome: OpContext<unknown>['outcome'] = {};
  const reply = await answer(shard, task, outcome);
  // For the front end's per-address limits (front/guard.ts); never sent.
  if (outcome.unknownLogin) reply.unknownLogin = true;
  // It reads a refusal's body, which is never in pieces.
  auditRequest(task, reply);
  const pieces = rawBodies.get(reply);
  const body = pieces ?? reply.body;
  const inArena = task.arena && body ? bodyIntoArena(body) : null;
  if (inArena) {
    reply.arena = inArena;
    reply.body = '';
  } else if (pieces) reply.body = pieces.join('');
  return reply;
}

async function answer(shard: Shard, task: RequestTask, outcome: OpContext<unknown>['outcome']): Promise<Reply> {
  let limitHeaders: Record<string, string> | undefined;
  let user: UserRecord | null = null;
  try {
    const op = operations[task.op] ?? (await loadOperation(task.op));
    if (!op) throw new Error(`no operation ${task.op}`);
    const realm = shard.realm(task.realmId);
    // Only a cluster node lets go of a realm while it runs (a move): the client tries again and
    // reaches the new owner.
    if (!realm) throw realmUnavailable('moved');
    const writes = isWrite(task.method, task.op);
    if (op.auth !== 'none' && realm.realm.deactivated && !task.authorization) throw realmDeactivated();
    let session: SessionRef | undefined;
    if (op.auth !== 'none' && op.auth !== 'webhook' && task.browser && !task.authorization) {
      const found = authenticateSession(shard, realm, task, op.auth === 'user');
      user = found?.user ?? null;
      session = found?.session;
    } else {
      user = op.auth === 'none' ? null : op.auth === 'webhook' ? authenticateWebhook(realm, task.params.api_key, task.authorization) : authenticate(realm, task.authorization, op.auth === 'user');
    }
    if (!user && task.addressOver) throw rateLimited(task.addressOver);
    if (user && user.botType === BOT_TYPE.incomingWebhook && !op.allowIncomingWebhooks) throw unauthorized('This API is not available to incoming webhook bots.');
    limitHeaders = rateLimit(shard, task, user);
    checkRole(op, user);
    const { params, ignored } = parseParams<Record<string, unknown>>(op.params, task.params, task.pathParams, shard.config.requestLimits);
    const ctx: OpContext<Record<string, unknown>> = { shard, realm, user, params, userAgent: task.userAgent, remoteAddr: task.remoteAddr, requestId: task.requestId ?? '', browser: task.browser, session, longPoll: task.longPoll, outcome };
    // A POST /register waiting for a consistent snapshot holds new work back (Shard.quiesced).
    if (shard.gate && !op.passesGate) await shard.gate;
    const fields = writes ? await shard.realmGate.around(realm.id, async () => op.handler(ctx)) : await op.handler(ctx);
    // A long-poll's desk goes to the front end, not into the body.
    const desk = fields.__desk as Reply['desk'];
    if (desk) delete fields.__desk;
    const reply = fields.__reply ? (fields.__reply as Reply) : success(fields, op.silentlyIgnoresParams ? [] : ignored);
    if (desk) reply.desk = desk;
    if (limitHeaders) reply.headers = { ...reply.headers, ...limitHeaders };
    if (user) reply.userId = user.id;
    return reply;
  } catch (err) {
    if (err instanceof ApiError) {
      const reply = errorReply(err);
      if (limitHeaders) reply.headers = { ...limitHeaders, ...reply.headers };
      if (user) reply.userId = user.id;
      return reply;
    }
    log.error({ err, op: task.op, shard: shard.index }, 'unhandled error in operation');
    return { status: 500, body: JSON.stringify(internalErrorBody) };
  }
}
