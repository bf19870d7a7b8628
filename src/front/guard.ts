import type { IncomingMessage } from 'node:http';
import { RateLimiter } from '../api/server/rate-limit.js';
import type { ResolvedConfig } from '../config.js';
import { ApiError, rateLimited } from '../lib/errors.js';
import { clientAddress } from './client-address.js';
import { sessionCookie } from './session.js';

/**
 * The per-address rate limit of requests that carry no credentials (rateLimits.perIp): the
 * reference's api_by_ip. Authenticated requests are limited per user in their shard
 * (shard/dispatch.ts), which only it can tell apart; these are counted here, on the main
 * thread, before anything is parsed or sent to a shard, and across every realm of the server.
 *
 * The address is the connection's peer: behind a reverse proxy every client shares the
 * proxy's address, so raise perIp there (or leave it to the proxy).
 */
export type AddressLimit = (req: IncomingMessage) => Record<string, string> | undefined;

const API_KEY_PARAM = /[?&]api_key=/;

export function addressLimit(config: ResolvedConfig): AddressLimit {
  const { enabled, perIp } = config.rateLimits;
  if (!enabled || perIp.length === 0) return () => undefined;
  const limiter = new RateLimiter(perIp);
  return (req) => {
    // Credentials in a header, or an incoming webhook's api_key in its URL: counted per user.
    // A browser session's cookie too (front/session.ts): its requests are counted per user, and a
    // dead one is counted per address in the shard as a failed credential.
    if (req.headers.authorization || API_KEY_PARAM.test(req.url ?? '') || sessionCookie(req.headers)) return undefined;
    const { retryAfter, headers } = limiter.take(clientAddress(req));
    if (retryAfter > 0) {
      const err = rateLimited(retryAfter);
      throw new ApiError(err.message, { code: err.code, status: err.status, data: err.data, headers: { ...headers, ...err.headers } });
    }
    return headers;
  };
}
