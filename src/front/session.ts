import type { IncomingHttpHeaders } from 'node:http';
import type { BrowserRequest } from '../api-kit/operation.js';

/**
 * What the front end passes on of a browser's request: the session cookie, the CSRF token it
 * sent and whether the request came from another site. It judges none of it; the realm's shard
 * does (api/sessions/auth.ts), as it does HTTP Basic credentials.
 *
 * The cookies are named as Django names them (the reference's web app is a Django one), with
 * the `__Host-` prefix when the server is reached over https (the browser then refuses the
 * cookie from any other host or path, and over plain http).
 */
export const SESSION_COOKIE = 'sessionid';
export const CSRF_COOKIE = 'csrftoken';

/** The value of one cookie in a Cookie header. */
export function cookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The session cookie, by either name. */
export function sessionCookie(headers: IncomingHttpHeaders): string | undefined {
  return cookie(headers.cookie, `__Host-${SESSION_COOKIE}`) ?? cookie(headers.cookie, SESSION_COOKIE);
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/**
 * The browser part of a request. `crossOrigin` is the Origin header when it names another
 * host than the request's own (Django's origin check: browsers send Origin on every write, and
 * another site cannot forge it).
 */
export function browserRequest(method: string, headers: IncomingHttpHeaders): BrowserRequest {
  const origin = headers.origin;
  let crossOrigin: string | undefined;
  if (origin !== undefined) {
    let host: string | null = null;
    try {
      host = new URL(origin).host;
    } catch {
      host = null;
    }
    if (host === null || host.toLowerCase() !== (headers.host ?? '').toLowerCase()) crossOrigin = origin;
  }
  const csrf = headers['x-csrftoken'];
  return {
    cookie: sessionCookie(headers),
    csrfToken: typeof csrf === 'string' ? csrf : undefined,
    write: !SAFE_METHODS.has(method),
    ...(crossOrigin !== undefined ? { crossOrigin } : {}),
  };
}
