/**
 * The Set-Cookie lines of a login and a logout. Both cookies are SameSite=Lax: a link to the
 * server followed from mail or another site (an invitation, a message link) arrives logged in,
 * while no other site's form or script sends the cookie with a write. Strict would break the
 * first; the CSRF token covers what Lax leaves (same-site subdomains, old browsers).
 *
 * The session cookie is HttpOnly: no script, the web app's included, can read it. The CSRF
 * token is not: the web app reads it to send it back as X-CSRFToken, as the reference's does;
 * another site can neither read it nor set that header without a CORS preflight we never allow.
 * Over https both are Secure and `__Host-` prefixed (this host and path only).
 */
export const SESSION_AGE_SECONDS = 14 * 24 * 3600;

function names(secure: boolean) {
  const prefix = secure ? '__Host-' : '';
  return { session: `${prefix}sessionid`, csrf: `${prefix}csrftoken` };
}

const attrs = (secure: boolean, maxAge: number) => `; Path=/; Max-Age=${maxAge}; SameSite=Lax${secure ? '; Secure' : ''}`;

export function loginCookies(secure: boolean, sessionValue: string, csrf: string): string[] {
  const n = names(secure);
  return [`${n.session}=${sessionValue}${attrs(secure, SESSION_AGE_SECONDS)}; HttpOnly`, `${n.csrf}=${csrf}${attrs(secure, SESSION_AGE_SECONDS)}`];
}

export function logoutCookies(secure: boolean): string[] {
  const n = names(secure);
  return [`${n.session}=${attrs(secure, 0)}; HttpOnly`, `${n.csrf}=${attrs(secure, 0)}`];
}
