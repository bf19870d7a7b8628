import { request as httpRequest } from 'node:http';
import t, { type Test } from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * POST /api/v1/messages with a plain urlencoded body is answered outside Koa (front/fast-post.ts);
 * the same request with a query string (even an empty one) or another encoding goes through
 * Koa. Both must give clients the same answers: status, body (but a new message's id), and the
 * headers a client reads.
 */
type Reply = Awaited<ReturnType<TestServer['request']>>;

const sameHeaders = (t: Test, fast: Reply, koa: Reply, what: string) => {
  for (const name of ['content-type', 'www-authenticate', 'x-ratelimit-limit', 'connection']) {
    t.equal(fast.headers[name], koa.headers[name], `${what}: the same ${name}`);
  }
};

/** A request the test helper cannot make: raw bytes for the body, headers as given. */
function raw(ts: TestServer, path: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: ts.port, method: 'POST', path, headers: { host: ts.server.config.externalHost, 'content-length': String(body.length), ...headers }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

t.test('POST /messages: the fast path answers as the Koa path does', async (t) => {
  // Rate limits on (out of reach), so that their headers are compared too; few parameters, so
  // that the limit on their number is reached.
  const ts = await startTestServer(t, { rateLimits: { enabled: true, perUser: [[60, 1_000_000]], perIp: [[60, 1_000_000]] }, requestLimits: { bodyBytes: 4096, params: 10, depth: 10 } });
  const both = async (params: Record<string, unknown>, opts: { auth?: null; authorization?: string; host?: string } = {}) => {
    const fast = await ts.request('POST', '/messages', { params, ...opts });
    const koa = await ts.request('POST', '/messages?', { params, ...opts });
    const multipart = await ts.request('POST', '/messages', { params, encoding: 'multipart', ...opts });
    return { fast, koa, multipart };
  };
  const send = { type: 'stream', to: 'general', topic: 'fast', content: 'hello' };

  // The topic's first message changes the sender's follow policy (the answer says so): not twice.
  t.equal((await ts.request('POST', '/messages', { params: send })).status, 200, 'the topic is started');
  const ok = await both(send);
  t.equal(ok.fast.status, 200, 'a send is answered');
  t.equal(ok.koa.status, 200, 'on both paths');
  t.ok(ok.fast.body.id > 0 && ok.koa.body.id > ok.fast.body.id, 'each stored a message');
  t.same({ ...ok.fast.body, id: 0 }, { ...ok.koa.body, id: 0 }, 'the same body but the id');
  t.same({ ...ok.multipart.body, id: 0 }, { ...ok.koa.body, id: 0 }, 'as a multipart send has');
  sameHeaders(t, ok.fast, ok.koa, 'a send');
  const stored = await ts.request('GET', `/messages/${ok.fast.body.id}`);
  t.equal(stored.body.message.content, '<p>hello</p>', 'the fast path stored the message');

  const cases: [string, Record<string, unknown>, { auth?: null; authorization?: string; host?: string }?][] = [
    ['a missing parameter', { type: 'stream', to: 'general', topic: 'fast' }],
    ['an unknown parameter', { ...send, colour: 'blue' }],
    ['a front-end parameter', { ...send, __files: 'x' }],
    ['a repeated parameter is not a problem', send],
    ['too many parameters', { ...send, a: '1', b: '2', c: '3', d: '4', e: '5', f: '6', g: '7' }],
    ['no credentials', send, { auth: null }],
    ['wrong credentials', send, { authorization: `Basic ${Buffer.from(`${ts.owner.email}:nope`).toString('base64')}` }],
    ['an unknown organization', send, { host: 'nowhere.example.com' }],
    ['a lone surrogate', { ...send, content: 'a\ud800b' }],
  ];
  for (const [what, params, opts] of cases) {
    const r = await both(params, opts);
    t.equal(r.fast.status, r.koa.status, `${what}: the same status (${r.koa.status})`);
    if (r.koa.status === 200) t.same({ ...r.fast.body, id: 0 }, { ...r.koa.body, id: 0 }, `${what}: the same body but the id`);
    else t.same(r.fast.body, r.koa.body, `${what}: the same body`);
    sameHeaders(t, r.fast, r.koa, what);
  }

  // The other requests of the fast path: typing, presence, flags.
  const others: [string, Record<string, unknown>, Record<string, unknown>][] = [
    ['/typing', { op: 'start', type: 'direct', to: [ts.owner.userId] }, { op: 'sideways', type: 'direct', to: [ts.owner.userId] }],
    ['/users/me/presence', { status: 'active' }, { status: 'dancing' }],
    ['/messages/flags', { messages: [ok.fast.body.id], op: 'add', flag: 'starred' }, { messages: [ok.fast.body.id], op: 'add', flag: 'shiny' }],
  ];
  for (const [path, good, bad] of others) {
    const fast = await ts.request('POST', path, { params: good });
    const koa = await ts.request('POST', `${path}?`, { params: good });
    t.equal(fast.status, 200, `${path}: answered`);
    t.same(Object.keys(fast.body).sort(), Object.keys(koa.body).sort(), `${path}: the same fields on both paths`);
    sameHeaders(t, fast, koa, path);
    const fastBad = await ts.request('POST', path, { params: bad });
    const koaBad = await ts.request('POST', `${path}?`, { params: bad });
    t.equal(fastBad.status, 400, `${path}: a bad value is refused`);
    t.same(fastBad.body, koaBad.body, `${path}: with the same error on both paths`);
  }

  // Bodies the fast path reads itself, sent raw.
  const auth = `Basic ${Buffer.from(`${ts.owner.email}:${ts.owner.apiKey}`).toString('base64')}`;
  const form = 'type=stream&to=general&topic=fast&content=with%20a%20mark';
  for (const path of ['/api/v1/messages', '/api/v1/messages?']) {
    const bom = await raw(ts, path, { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' }, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(form)]));
    t.equal(bom.status, 200, `${path}: a byte-order mark before the form is dropped`);
    const repeated = await raw(ts, path, { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' }, Buffer.from(`${form}&content=last%20wins`));
    t.equal(repeated.status, 200, `${path}: a repeated key`);
    const got = await ts.request('GET', `/messages/${repeated.body.id}`);
    t.equal(got.body.message.content, '<p>last wins</p>', `${path}: keeps its last value`);
    const empty = await raw(ts, path, { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' }, Buffer.alloc(0));
    t.equal(empty.status, 400, `${path}: an empty body is a missing parameter`);
    const big = await raw(ts, path, { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' }, Buffer.from(`${form}${'x'.repeat(5000)}`));
    t.equal(big.status, 413, `${path}: a body over the limit is refused`);
  }
});
