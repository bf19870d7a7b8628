import type { Route } from '../routes.js';

/**
 * How the route table's paths are matched, as the reference's URL table matches them: a literal
 * segment wins over a parameter in the same place (`/users/me` before `/users/{user_id}`,
 * `/messages/matches_narrow` before `/messages/{message_id}`), and an id parameter matches only
 * digits, as the reference's `(?P<user_id>[0-9]+)` does. So a path that is a literal endpoint we
 * do not serve (yet) answers the same 404 as any unknown path, instead of reaching a parameter
 * route and failing its checks, and `/messages/0x10` or `/messages/1e3` name no message.
 */

type Segment = { literal: string } | { param: string; rest: boolean };

function segments(path: string): Segment[] {
  return path
    .split('/')
    .filter(Boolean)
    .map((s) => {
      const m = /^\{(\w+)(\*?)\}$/.exec(s);
      return m ? { param: m[1], rest: m[2] === '*' } : { literal: s };
    });
}

/** 0 literal, 1 parameter, 2 rest-of-path: lower sorts (and so is tried) first. */
const rank = (s: Segment | undefined) => (s === undefined ? -1 : 'literal' in s ? 0 : s.rest ? 2 : 1);

/** Compares two paths segment by segment: the first place where one is more specific decides. */
export function bySpecificity(a: Route, b: Route): number {
  const sa = segments(a.path);
  const sb = segments(b.path);
  for (let i = 0; i < Math.max(sa.length, sb.length); i++) {
    const d = rank(sa[i]) - rank(sb[i]);
    if (d !== 0) return d;
  }
  return 0;
}

/** The table in the order the router must try it (stable: equal paths keep their order). */
export function orderRoutes(routes: readonly Route[]): Route[] {
  return [...routes].sort(bySpecificity);
}

/** Parameters that are names, not ids, though they end in _id. */
const NOT_IDS = new Set(['realm_id_str']);

/**
 * Whether a matched path parameter is one its route takes. An id takes digits only; a user
 * named by id or email is never `me`, which is its own set of endpoints.
 */
export function acceptsParam(name: string, value: string): boolean {
  if (name.endsWith('_id') && !NOT_IDS.has(name)) return /^[0-9]+$/.test(value);
  if (name === 'user_id_or_email') return value !== 'me';
  return true;
}

interface Compiled {
  route: Route;
  regex: RegExp;
  names: string[];
}

/**
 * The methods the table serves at a concrete path (under /api/v1), with the same parameter
 * rules as the router: a path only a parameter route would swallow is served by no method.
 */
export function methodMatcher(routes: readonly Route[]): (path: string) => string[] {
  const compiled: Compiled[] = routes.map((route) => {
    const names: string[] = [];
    const body = segments(route.path)
      .map((s) => {
        if ('literal' in s) return `/${s.literal.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&')}`;
        names.push(s.param);
        return s.rest ? '/(.+)' : '/([^/]+)';
      })
      .join('');
    return { route, regex: new RegExp(`^${body}/?$`), names };
  });
  return (path) => {
    const methods = new Set<string>();
    for (const { route, regex, names } of compiled) {
      const m = regex.exec(path);
      if (!m) continue;
      let values: string[];
      try {
        values = m.slice(1).map(decodeURIComponent);
      } catch {
        continue;
      }
      if (names.every((name, i) => acceptsParam(name, values[i]))) methods.add(route.method);
    }
    return [...methods];
  };
}
