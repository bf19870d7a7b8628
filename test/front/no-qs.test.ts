import { createRequire } from 'node:module';
import t from 'tap';
import { coBodyQsPath, standIn } from '../../src/front/no-qs.js';
import { basic, rawExchange, rawRequest } from '../helpers/raw.js';
import { startTestServer } from '../helpers/server.js';

/**
 * Form bodies on Koa's path go through koa-bodyparser and co-body with our own parser; co-body's
 * qs is never loaded (front/no-qs.ts). What a form means must not change with it: the edge cases
 * here are read over HTTP, through a route that the fast paths (front/fast-post.ts) leave to Koa.
 */
const require = createRequire(import.meta.url);

t.test('a form without qs', async (t) => {
  const ts = await startTestServer(t, { requestLimits: { bodyBytes: 16384, params: 20, depth: 8 } });
  const host = ts.server.config.externalHost;
  const me = (await ts.request('GET', '/users/me')).body.user_id as number;
  // POST /users/me/status is Koa's (not a fast path) and its status_text is read back as sent.
  const post = (body: string | Buffer, type = 'application/x-www-form-urlencoded') => {
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
    const head = rawRequest('POST', '/api/v1/users/me/status', { Host: host, Authorization: basic(ts.owner), 'Content-Type': type, 'Content-Length': String(bytes.length) });
    return rawExchange(ts.port, [head, bytes]);
  };
  const statusText = async () => (await ts.request('GET', `/users/${me}/status`)).body.status.status_text as string;

  t.test('co-body holds the stand-in, and nothing of qs is loaded', async (t) => {
    const path = coBodyQsPath();
    t.ok(path, "co-body's qs resolves");
    t.equal(require.cache[path!]?.exports, standIn, 'its module is the stand-in');
    t.throws(() => standIn.parse(), /not loaded/, 'which refuses to parse');
    const loaded = Object.keys(require.cache).filter((file) => /[\\/]node_modules[\\/](side-channel[^\\/]*|object-inspect|get-intrinsic)[\\/]/.test(file));
    t.same(loaded, [], 'none of what qs loads either');
  });

  t.test('a repeated name keeps its last value', async (t) => {
    const res = await post('status_text=first&status_text=second');
    t.equal(res.status, 200, '200');
    t.equal(await statusText(), 'second', 'the last');
  });

  t.test('bracketed and dotted names are names, not nesting', async (t) => {
    const res = await post('status_text=flat&a[b]=1&c.d=2&e[]=3&e[]=4&f[0]=5&g[h][i]=6');
    t.equal(res.status, 200, '200');
    t.same([...res.body.ignored_parameters_unsupported].sort(), ['a[b]', 'c.d', 'e[]', 'f[0]', 'g[h][i]'], 'each reported as sent');
    t.equal(await statusText(), 'flat', 'and the known one read');
    const nested = await post('status_text[a]=x&status_text=kept');
    t.equal(nested.status, 200, '200');
    t.same(nested.body.ignored_parameters_unsupported, ['status_text[a]'], 'status_text[a] is another name, ignored');
    t.equal(await statusText(), 'kept', 'beside status_text');
  });

  t.test('decoding: plus, percent escapes, UTF-8, a malformed escape, a byte-order mark', async (t) => {
    t.equal((await post('status_text=a+b%20c%C3%A9%E2%9C%93')).status, 200, '200');
    t.equal(await statusText(), 'a b cé✓', 'plus and %20 are spaces, escapes are UTF-8');
    t.equal((await post('status_text=100%zz%')).status, 200, 'a malformed escape is kept');
    t.equal(await statusText(), '100%zz%', 'as sent');
    t.equal((await post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('status_text=bom')]))).status, 200, 'a byte-order mark');
    t.equal(await statusText(), 'bom', 'is dropped, the first name read');
    t.equal((await post('status_text=%C3%A9t%C3%A9', 'application/x-www-form-urlencoded; charset=utf-8')).status, 200, 'charset=utf-8');
    t.equal(await statusText(), 'été', 'read as UTF-8');
    t.equal((await post('status_text=x=y&=z&lonely')).status, 200, 'an = in a value, an empty name, a name without value');
    t.equal(await statusText(), 'x=y', 'the value holds the rest');
  });

  t.test('limits and errors', async (t) => {
    const many = Array.from({ length: 25 }, (_, i) => `p${i}=1`).join('&');
    const tooMany = await post(`status_text=x&${many}`);
    t.equal(tooMany.status, 400, 'too many names: 400');
    t.match(tooMany.body, { result: 'error', msg: /Too many parameters/ }, 'the limit named');
    const big = await post(`status_text=${'y'.repeat(20_000)}`);
    t.equal(big.status, 413, 'over the body limit: 413');
    t.match(big.body, { result: 'error', msg: /too large/ }, 'in the API shape');
    const empty = await post('');
    t.equal(empty.status, 400, 'an empty form is no parameters');
    t.match(empty.body, { result: 'error', msg: 'Client did not pass any new values.' }, "the route's own error for none");
  });
});
