import { ZULIP_VERSION } from '../../../lib/version.js';

/**
 * The client side of the push notification service's protocol (the reference's
 * zerver/lib/remote_server.py send_to_push_bouncer): requests to
 * `<servicesUrl>/api/v1/remotes/<endpoint>`, authenticated with the server's zulip_org_id and
 * zulip_org_key, and its failures sorted as the reference sorts them:
 *
 *   network error, timeout, 5xx   -> 'retry'       the service's trouble: try again later
 *   400 INVALID_ZULIP_SERVER      -> 'auth'        this server's credentials are not (or no
 *                                                  longer) known there: register again
 *   400 PUSH_NOTIFICATIONS_DISALLOWED -> 'disallowed'  the service will not push for this server
 *   other 4xx, other status       -> 'refused'     the request itself was refused (a bad token)
 */
export type BouncerFailure = 'retry' | 'auth' | 'disallowed' | 'refused';

export class BouncerError extends Error {
  constructor(
    message: string,
    readonly failure: BouncerFailure,
    readonly status: number | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

/** The reference's PushBouncerSession waits this long. */
const TIMEOUT_MS = 15_000;

export interface BouncerRequest {
  servicesUrl: string;
  /** zulip_org_id and zulip_org_key; null for the registration itself, which has none yet. */
  credentials: { orgId: string; orgKey: string } | null;
  method: 'GET' | 'POST';
  endpoint: string;
  /** Form fields (the reference's `data=`), or a JSON body (send_json_to_push_bouncer). */
  form?: Record<string, string>;
  json?: unknown;
}

export async function sendToBouncer(req: BouncerRequest): Promise<Record<string, unknown>> {
  const url = `${req.servicesUrl.replace(/\/+$/, '')}/api/v1/remotes/${req.endpoint}`;
  const headers: Record<string, string> = { 'User-Agent': `ZulipServer/${ZULIP_VERSION}` };
  if (req.credentials) headers.Authorization = `Basic ${Buffer.from(`${req.credentials.orgId}:${req.credentials.orgKey}`).toString('base64')}`;
  let body: string | undefined;
  if (req.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(req.json);
  } else if (req.form) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(req.form).toString();
  }
  let res: Response;
  try {
    res = await fetch(url, { method: req.method, headers, body, signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'manual' });
  } catch (err) {
    const name = (err as Error).name === 'TimeoutError' ? 'Timeout' : 'ConnectionError';
    throw new BouncerError(`${name} while trying to connect to push notification bouncer`, 'retry');
  }
  const text = await res.text().catch(() => '');
  if (res.status >= 500) throw new BouncerError(`Received ${res.status} from push notification bouncer`, 'retry', res.status);
  if (res.status >= 400) {
    let parsed: { msg?: string; code?: string } = {};
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new BouncerError(`Push notification bouncer returned ${res.status} without a JSON body`, 'refused', res.status);
    }
    const msg = parsed.msg ?? `status ${res.status}`;
    const code = parsed.code ?? null;
    if (code === 'INVALID_ZULIP_SERVER') throw new BouncerError(`Push notifications bouncer error: ${msg}`, 'auth', res.status, code);
    if (code === 'PUSH_NOTIFICATIONS_DISALLOWED') throw new BouncerError(msg, 'disallowed', res.status, code);
    throw new BouncerError(msg, 'refused', res.status, code);
  }
  if (res.status !== 200) throw new BouncerError(`Push notification bouncer returned unexpected status code ${res.status}`, 'refused', res.status);
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new BouncerError('Push notification bouncer returned a body that is not JSON', 'retry', res.status);
  }
}
