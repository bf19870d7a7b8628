/**
 * Typed API errors, after the reference server's JsonableError family.
 *
 * Clients branch on `code`, so it is part of the API: each error carries the code, the HTTP
 * status and the extra data fields the reference documents for it. Anything thrown that is not
 * an ApiError is a bug, and the dispatcher turns it into a generic 500 (see host/dispatch.ts).
 */
export type ErrorData = Record<string, unknown>;

export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly data: ErrorData;
  readonly headers: Record<string, string>;

  constructor(msg: string, opts: { code?: string; status?: number; data?: ErrorData; headers?: Record<string, string> } = {}) {
    super(msg);
    this.code = opts.code ?? 'BAD_REQUEST';
    this.status = opts.status ?? 400;
    this.data = opts.data ?? {};
    this.headers = opts.headers ?? {};
  }

  /**
   * The response body: `{result, msg, code, ...data}`, in the reference's key order. An error
   * with a 2xx status (an unsupported webhook event) is a "success", as the reference answers it.
   */
  body(): Record<string, unknown> {
    return { result: this.status >= 200 && this.status < 300 ? 'success' : 'error', msg: this.message, code: this.code, ...this.data };
  }
}

export const badRequest = (msg: string, data?: ErrorData) => new ApiError(msg, { data });

export const missingArgument = (name: string) =>
  new ApiError(`Missing '${name}' argument`, { code: 'REQUEST_VARIABLE_MISSING', data: { var_name: name } });

export const invalidArgument = (name: string, msg: string) =>
  new ApiError(msg, { code: 'REQUEST_VARIABLE_INVALID', data: { var_name: name } });

export const invalidJson = (name: string) =>
  new ApiError(`Argument "${name}" is not valid JSON.`, { code: 'INVALID_JSON' });

export const unauthorized = (msg = 'Not logged in: API authentication or user session required') =>
  new ApiError(msg, { code: 'UNAUTHORIZED', status: 401, headers: { 'WWW-Authenticate': 'Basic realm="zulip"' } });

export const invalidApiKey = () => new ApiError('Invalid API key', { code: 'INVALID_API_KEY', status: 401 });

export const userDeactivated = () => new ApiError('Account is deactivated', { code: 'USER_DEACTIVATED', status: 401 });

export const realmDeactivated = () =>
  new ApiError('This organization has been deactivated', { code: 'REALM_DEACTIVATED', status: 401 });

export const authenticationFailed = () =>
  new ApiError('Your username or password is incorrect', { code: 'AUTHENTICATION_FAILED', status: 401 });

export const rateLimited = (retryAfterSeconds: number) =>
  new ApiError('API usage exceeded rate limit', {
    code: 'RATE_LIMIT_HIT',
    status: 429,
    data: { 'retry-after': retryAfterSeconds },
    headers: { 'Retry-After': String(Math.ceil(retryAfterSeconds)) },
  });

/**
 * A change that could not be written (a full disk, an I/O error): nothing of it was kept, and
 * the client may try again. 503, as for a server that cannot serve for now; clients retry 5xx.
 */
export const storageError = () =>
  new ApiError('The server could not save this change (storage error). Nothing was changed; try again later.', { code: 'STORAGE_ERROR', status: 503 });

/**
 * An organization between two servers of a cluster (src/cluster/moves.ts): its writes wait while
 * its data is copied, and the server that answers may no longer be its owner. Nothing was
 * changed; the client tries again after `Retry-After`, and by then the proxy routes it right.
 */
export const realmUnavailable = (why: 'moving' | 'moved' | 'offline', retryAfterSeconds = 2) =>
  new ApiError(
    why === 'moving'
      ? 'This organization is being moved to another server: changes are paused for a few seconds. Nothing was changed; try again.'
      : why === 'moved'
        ? 'This organization has moved to another server. Nothing was changed; try again.'
        : 'This server is not serving this organization right now. Nothing was changed; try again.',
    { code: 'SERVICE_UNAVAILABLE', status: 503, data: { 'retry-after': retryAfterSeconds }, headers: { 'Retry-After': String(retryAfterSeconds) } },
  );

/**
 * A read met damage in the store (a page LMDB cannot make sense of, rows missing from a table):
 * the answer would be wrong or short, so there is none. 503 with a code of ours; the shard logs
 * the table once (store/damage.ts).
 */
export class StorageDamageError extends ApiError {
  constructor(
    readonly table: string,
    readonly detail: string,
  ) {
    super("This could not be read: the server's storage is damaged. The server's administrator must repair it (stoa check; restore from a backup).", { code: 'STORAGE_DAMAGED', status: 503 });
  }
}

export const insufficientPermission = () => badRequest('Insufficient permission');

export const notFound = () => new ApiError('Not Found', { status: 404 });

export const noSuchRealm = () =>
  new ApiError('There is no Zulip organization hosted at this subdomain.', { code: 'BAD_REQUEST', status: 404 });

/** What a client sees for a bug: a fixed message, never the exception. */
export const internalErrorBody = { result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' };
