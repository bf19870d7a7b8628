import type { IncomingMessage } from 'node:http';
import { AttemptLimiter, RateLimiter } from '../lib/rate-limit.js';
import type { ResolvedConfig } from '../lib/config.js';
import { ApiError, rateLimited } from '../lib/errors.js';
import type { Reply } from '../host/dispatch.js';
import type { ShardPool } from '../host/pool.js';
import type { DirectoryEntry } from '../store/directory.js';
import { clientAddress } from './client-address.js';
import { browserRequest, sessionCookie } from './session.js';

/**
 * Per-address limits, counted on the main thread: one count per address for the whole server,
 * whichever shard a request reaches.
 *
 * - Requests that do not authenticate as a user (rateLimits.perIp, the reference's api_by_ip).
 *   Every request is counted when it arrives, before its body is read; one its shard
 *   authenticates is given back when the reply says so (authenticated users are limited per
 *   user, in their shard). So a request counts against its address wherever it fails: no
 *   credentials, wrong ones, a parser error, an unknown path, an endpoint that authenticates
 *   nobody (GET /server_settings) whatever header it carries. Once the address is over its
 *   limit, a request with credentials is let in only if its shard says they are good
 *   (a `verify` task: a lookup, no password hashing), before its body is read, and its shard
 *   refuses it still unless it authenticates (an endpoint that authenticates nobody).
 * - Failed password logins for usernames nobody has (fetchApiKeyRateLimit, as the shard counts
 *   failures per username): guessing names costs the address what guessing one password costs.
 *   An attempt is counted before it runs (hashing yields, and concurrent guesses would pass a
 *   limit recorded after them) and given back unless the reply says the name was unknown.
 *
 * The address is `clientAddress(req)` (front/client-address.ts: the peer, or behind a trusted
 * proxy the client it names). Credentials are an Authorization header, an api_key in the URL or
 * a browser's session cookie.
 */
export { clientAddress };

export interface Admission {
  /** X-RateLimit-* of the address, for the answer. */
  headers?: Record<string, string>;
  /**
   * Set when the address is over its limit and the request was let in for its credentials:
   * the shard refuses it with this retry-after unless it authenticates (RequestTask.addressOver).
   */
  over?: number;
  /** With the shard's reply: an authenticated request is given back to its address. */
  settle(reply: Reply): void;
}

export interface AddressGuard {
  /**
   * Counts a request against its address, or rejects with RATE_LIMIT_HIT. An address within its
   * limit is admitted at once, not in a promise: a long-poll answered at its desk then runs in
   * the request's own turn (a promise and an await a poll, the main thread's commonest request).
   */
  admit(req: IncomingMessage, address: string, realmFor: (host: string) => DirectoryEntry): Admission | Promise<Admission>;
  /** Counts a password login against its address, or throws RATE_LIMIT_HIT; settle it with the reply. */
  login(address: string): (reply: Reply) => void;
}

const API_KEY_PARAM = /[?&]api_key=([^&]*)/;
const NONE: Admission = { settle: () => undefined };

function decodeParam(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

function refused(retryAfter: number, headers: Record<string, string> = {}): ApiError {
  const err = rateLimited(retryAfter);
  return new ApiError(err.message, { code: err.code, status: err.status, data: err.data, headers: { ...headers, ...err.headers } });
}

export function addressGuard(config: ResolvedConfig, pool: ShardPool): AddressGuard {
  const { enabled, perIp } = config.rateLimits;
  const { failures, windowSeconds } = config.fetchApiKeyRateLimit;
  const unknownLogins = new AttemptLimiter(failures, windowSeconds * 1000);
  const login = (address: string) => {
    const wait = unknownLogins.retryAfter(address);
    if (wait > 0) throw rateLimited(wait);
    const at = unknownLogins.record(address);
    return (reply: Reply) => {
      if (!reply.unknownLogin) unknownLogins.withdraw(address, at);
    };
  };
  if (!enabled || perIp.length === 0) return { admit: () => NONE, login };
  const requests = new RateLimiter(perIp);

  /** Over the limit: only a request its shard authenticates goes on, uncounted. */
  async function overLimit(req: IncomingMessage, retryAfter: number, headers: Record<string, string>, realmFor: (host: string) => DirectoryEntry): Promise<Admission> {
    const authorization = req.headers.authorization;
    const apiKey = API_KEY_PARAM.exec(req.url ?? '')?.[1];
    const cookie = sessionCookie(req.headers);
    if (!authorization && apiKey === undefined && !cookie) throw refused(retryAfter, headers);
    let realm: DirectoryEntry;
    try {
      realm = realmFor(req.headers.host ?? '');
    } catch {
      throw refused(retryAfter, headers);
    }
    const ok = await pool.verify(realm.shard, {
      realmId: realm.id,
      authorization,
      apiKey: apiKey === undefined ? undefined : decodeParam(apiKey),
      browser: cookie ? browserRequest(req.method ?? 'GET', req.headers) : undefined,
    });
    if (!ok) throw refused(retryAfter, headers);
    return { over: retryAfter, settle: () => undefined };
  }

  return {
    login,
    admit(req, address, realmFor) {
      const { retryAfter, headers } = requests.take(address);
      if (retryAfter > 0) return overLimit(req, retryAfter, headers, realmFor);
      return new Counted(headers, requests, address);
    },
  };
}

/** A request counted against its address: given back once its shard has authenticated it. */
class Counted implements Admission {
  constructor(
    readonly headers: Record<string, string>,
    private readonly requests: RateLimiter,
    private readonly address: string,
  ) {}

  settle(reply: Reply): void {
    if (reply.userId !== undefined) this.requests.refund(this.address);
  }
}
