import type { OpContext, Operation, Reply } from '../api/operation.js';
import { operations } from '../api/registry.js';
import { constantTimeEqual, parseBasic } from '../lib/auth.js';
import { ApiError, internalErrorBody, invalidApiKey, missingArgument, realmDeactivated, unauthorized, userDeactivated } from '../lib/errors.js';
import { log } from '../lib/log.js';
import { parseParams } from '../lib/params.js';
import { RawJson, stringifyWithRaw } from '../lib/raw-json.js';
import type { RealmState } from '../model/realm-state.js';
import { BOT_TYPE, ROLE, type UserRecord } from '../model/types.js';
import type { Shard } from './shard.js';

/** What the front end sends for one HTTP request. */
export interface RequestTask {
  kind: 'request';
  op: string;
  realmId: number;
  authorization?: string;
  /** Query string and body, merged; values are text or, from a JSON body, JSON values. */
  params: Record<string, unknown>;
  pathParams: Record<string, string>;
  userAgent: string;
  remoteAddr: string;
  /** Unique per HTTP request: a long-poll is cancelled by it when its client goes away. */
  requestId?: string;
}

export type { Reply } from '../api/operation.js';

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
  if (realm.realm.deactivated) throw realmDeactivated();
  if (!user.isActive) throw userDeactivated();
  return user;
}

/**
 * An incoming webhook's credentials: the `api_key` parameter of its URL, which services that
 * cannot send headers carry (the reference's webhook_view), or else HTTP Basic.
 */
function authenticateWebhook(realm: RealmState, task: RequestTask): UserRecord {
  const key = task.params.api_key;
  if (typeof key !== 'string') {
    if (task.authorization) return authenticate(realm, task.authorization, true)!;
    throw missingArgument('api_key');
  }
  let found: UserRecord | undefined;
  for (const user of realm.users.values()) if (constantTimeEqual(user.apiKey, key.trim())) found = user;
  if (!found || found.isSystemBot) throw invalidApiKey();
  if (realm.realm.deactivated) throw realmDeactivated();
  if (!found.isActive) throw userDeactivated();
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
  const raw = Object.values(fields).some((v) => v instanceof RawJson);
  return { status: 200, body: raw ? stringifyWithRaw(body) : JSON.stringify(body) };
}

export function errorReply(err: ApiError): Reply {
  return { status: err.status, body: JSON.stringify(err.body()), headers: err.headers };
}

export async function dispatch(shard: Shard, task: RequestTask): Promise<Reply> {
  try {
    const op = operations[task.op];
    if (!op) throw new Error(`no operation ${task.op}`);
    const realm = shard.realm(task.realmId);
    if (!realm) throw new Error(`shard ${shard.index} does not own realm ${task.realmId}`);
    if (op.auth !== 'none' && realm.realm.deactivated && !task.authorization) throw realmDeactivated();
    const user = op.auth === 'none' ? null : op.auth === 'webhook' ? authenticateWebhook(realm, task) : authenticate(realm, task.authorization, op.auth === 'user');
    if (user && user.botType === BOT_TYPE.incomingWebhook && !op.allowIncomingWebhooks) throw unauthorized('This API is not available to incoming webhook bots.');
    checkRole(op, user);
    const { params, ignored } = parseParams<Record<string, unknown>>(op.params, task.params, task.pathParams);
    const ctx: OpContext<Record<string, unknown>> = { shard, realm, user, params, userAgent: task.userAgent, remoteAddr: task.remoteAddr, requestId: task.requestId ?? '' };
    // A POST /register waiting for a consistent snapshot holds new work back (Shard.quiesced).
    if (shard.gate && !op.passesGate) await shard.gate;
    const fields = await op.handler(ctx);
    return fields.__reply ? (fields.__reply as Reply) : success(fields, ignored);
  } catch (err) {
    if (err instanceof ApiError) return errorReply(err);
    log.error({ err, op: task.op, shard: shard.index }, 'unhandled error in operation');
    return { status: 500, body: JSON.stringify(internalErrorBody) };
  }
}
