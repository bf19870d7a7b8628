import t from 'tap';
import { orderRoutes } from '../../src/front/route-order.js';
import { routes, type Route } from '../../src/routes.js';
import { referenceOperations } from '../helpers/openapi.js';
import { startTestServer } from '../helpers/server.js';

/**
 * The router tries literal path segments before parameters, as the reference's URL table does,
 * and id parameters take digits only. Walking the reference's own paths shows that no literal
 * endpoint is swallowed by one of our parameter routes: each endpoint we do not serve answers the
 * same 404 as a path that exists nowhere.
 */
const segs = (path: string) => path.split('/').filter(Boolean);
const isParam = (s: string) => s.startsWith('{');

/** Whether one of our routes serves this reference template (parameters may be named otherwise). */
function served(method: string | null, template: string): boolean {
  const want = segs(template);
  return routes.some((r) => {
    if (method !== null && r.method !== method) return false;
    const have = segs(r.path);
    if (have.length !== want.length && !have.at(-1)?.endsWith('*}')) return false;
    return have.every((s, i) => (s.endsWith('*}') ? true : isParam(s) ? isParam(want[i] ?? '') : s === want[i]));
  });
}

/** Whether one of our route templates takes this concrete path (ids are digits only). */
function matches(template: string, path: string): boolean {
  const have = segs(template);
  const want = segs(path);
  if (have.length !== want.length && !have.at(-1)?.endsWith('*}')) return false;
  return have.every((s, i) => (s.endsWith('*}') ? true : /^\{\w+_id\}$/.test(s) ? /^\d+$/.test(want[i] ?? '') : isParam(s) ? want[i] !== undefined : s === want[i]));
}

/** A concrete path for a template: ids are numbers, emails look like emails. */
function concrete(template: string): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => (name.endsWith('_id') ? '1' : name.includes('email') ? 'nobody@example.com' : 'x'));
}

t.test('routing: literal segments win over parameters', async (t) => {
  t.test('the table is tried most specific first', async (t) => {
    const order = orderRoutes(routes).map((r) => `${r.method} ${r.path}`);
    const before = (a: string, b: string) => t.ok(order.indexOf(a) < order.indexOf(b), `${a} is tried before ${b}`);
    before('GET /users/me', 'GET /users/{user_id_or_email}');
    before('POST /messages/render', 'GET /messages/{message_id}');
    const sample: Route[] = [
      { method: 'GET', path: '/a/{x}/c', op: 'p' },
      { method: 'GET', path: '/a/{x*}', op: 'rest' },
      { method: 'GET', path: '/a/b/c', op: 'lit' },
      { method: 'GET', path: '/a/b/{y}', op: 'mixed' },
    ];
    t.same(orderRoutes(sample).map((r) => r.op), ['lit', 'mixed', 'p', 'rest'], 'literal, then parameter, then rest-of-path, segment by segment');
  });

  const ts = await startTestServer(t);
  const missing = await ts.request('GET', '/no/such/endpoint');
  const wrongMethod = await ts.request('PUT', '/users/me');
  // A 405 names the methods of its own path (test/front/method-not-allowed.test.ts): compared here without them.
  const envelope = (res: { status: number; body: Record<string, unknown> }) => {
    const { allowed_methods: _methods, ...body } = res.body;
    return { status: res.status, body };
  };

  t.test('no reference endpoint we do not serve is swallowed by a parameter route', async (t) => {
    const reference = referenceOperations();
    t.ok(reference.length > 100, 'the walk covers the reference');
    const unserved = reference.filter((op) => !served(op.method, op.path));
    for (const op of unserved) {
      const path = concrete(op.path);
      const res = await ts.request(op.method, path, { unchecked: true });
      // A path we serve with other methods is a 405, as any wrong method is.
      const expected = served(null, op.path) ? wrongMethod : missing;
      t.same(envelope(res), envelope(expected), `${op.method} ${path} (${op.path}) answers as an unknown endpoint`);
    }
  });

  t.test('a word where one of our routes takes an id names nothing', async (t) => {
    // As the reference grows literal endpoints beside its id routes (/export/realm/consents beside
    // /export/realm/{export_id}), a word in an id's place must fall through to the 404.
    const idRoutes = routes.filter((r) => segs(r.path).some((s) => /^\{\w+_id\}$/.test(s)));
    t.ok(idRoutes.length > 20, 'there are id routes to probe');
    for (const r of idRoutes) {
      const path = '/' + segs(r.path).map((s) => (/^\{\w+_id\}$/.test(s) ? 'not_an_id' : isParam(s) ? 'x' : s)).join('/');
      const matching = routes.filter((o) => matches(o.path, path));
      if (matching.some((o) => o.method === r.method)) continue;
      const res = await ts.request(r.method, path, { unchecked: true });
      // Another route may take the word (GET /users/{user_id_or_email}): then it is a wrong method.
      const expected = matching.length > 0 ? wrongMethod : missing;
      t.same(envelope(res), envelope(expected), `${r.method} ${path} answers as an unknown endpoint`);
      if (matching.length > 0) t.ok(res.body.allowed_methods.every((m: string) => m === 'HEAD' || matching.some((o) => o.method === m)), 'naming only methods of routes that match');
    }
  });

  t.test('an id in the path is digits only', async (t) => {
    const sent = await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'ids', content: 'hello' } });
    t.equal(sent.status, 200, 'a message to look up');
    const id = sent.body.id as number;
    t.equal((await ts.request('GET', `/messages/${id}`)).status, 200, 'its id finds it');
    for (const loose of [`0x${id.toString(16)}`, `${id}.0`, `%20${id}`, `+${id}`, `${id / 1000}e3`]) {
      const res = await ts.request('GET', `/messages/${loose}`, { unchecked: true });
      t.same(res.body, missing.body, `GET /messages/${loose} names no message`);
    }
  });

  t.test('a user named `me` is not a user id or email', async (t) => {
    const res = await ts.request('PATCH', '/users/me', { params: { full_name: 'X' }, unchecked: true });
    t.same({ status: res.status, body: res.body }, { status: wrongMethod.status, body: wrongMethod.body }, 'PATCH /users/me is a wrong method of GET /users/me, not PATCH /users/{user_id}');
    const nested = await ts.request('GET', '/users/me/no_such_thing', { unchecked: true });
    t.same(nested.body, missing.body, 'nor is a path below it');
  });
});
