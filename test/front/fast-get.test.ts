import { request as httpRequest } from 'node:http';
import t, { type Test } from 'tap';
import { createUser, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * GET /api/v1/messages without a body is answered outside Koa (front/fast-get.ts); the same
 * request with a body (which GET /messages ignores) goes through Koa. Both must give clients the
 * same answers: status, the body byte for byte, and the headers a client reads.
 */
interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const HEADERS = ['content-type', 'content-length', 'www-authenticate', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'connection'];

/**
 * The rate limiters read the time in Date.now()'s milliseconds, and each request counted moves
 * its key 60 us ahead (a million requests a minute): a request counted within the millisecond of
 * the one before it sees one request fewer remaining (999,998 against 999,999), on either path.
 * Each request here starts in a later millisecond than the one before it ended, so that
 * X-RateLimit-Remaining compares the two paths and not two readings of the clock.
 */
let lastEnded = 0;
async function laterMillisecond(): Promise<void> {
  while (Date.now() <= lastEnded) await new Promise((resolve) => setTimeout(resolve, 1));
}

/** GET `path` with the query `params`; `body` sends the request through Koa. */
async function get(ts: TestServer, params: Record<string, string>, opts: { body?: boolean; authorization?: string | null; host?: string; path?: string } = {}): Promise<Raw> {
  await laterMillisecond();
  const headers: Record<string, string> = { host: opts.host ?? ts.server.config.externalHost };
  const authorization = opts.authorization === undefined ? `Basic ${Buffer.from(`${ts.owner.email}:${ts.owner.apiKey}`).toString('base64')}` : opts.authorization;
  if (authorization !== null) headers.authorization = authorization;
  const body = opts.body ? Buffer.from('x') : undefined;
  if (body) {
    headers['content-type'] = 'text/plain';
    headers['content-length'] = String(body.length);
  }
  const query = new URLSearchParams(params).toString();
  const path = `${opts.path ?? '/api/v1/messages'}${query ? `?${query}` : ''}`;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: ts.port, method: 'GET', path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        lastEnded = Date.now();
        resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const same = (t: Test, fast: Raw, koa: Raw, what: string) => {
  t.equal(fast.status, koa.status, `${what}: the same status (${koa.status})`);
  t.equal(fast.text, koa.text, `${what}: the same body, byte for byte`);
  for (const name of HEADERS) t.equal(fast.headers[name], koa.headers[name], `${what}: the same ${name}`);
};

t.test('GET /messages: the fast path answers as the Koa path does', async (t) => {
  // Rate limits on (out of reach), so that their headers are compared too; few parameters, so
  // that the limit on their number is reached.
  const ts = await startTestServer(t, { rateLimits: { enabled: true, perUser: [[60, 1_000_000]], perIp: [[60, 1_000_000]] }, requestLimits: { bodyBytes: 4096, params: 10, depth: 10 } });
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  for (let i = 0; i < 5; i++) {
    const sent = await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'fast', content: `message ${i} with **markup** and ünïcödé 🐙` } });
    t.equal(sent.status, 200, `message ${i} is sent`);
  }
  const dm = await ts.request('POST', '/messages', { params: { type: 'direct', to: JSON.stringify([bob.userId]), content: 'a direct message' } });
  t.equal(dm.status, 200, 'a direct message is sent');
  const channel = (await ts.request('GET', '/get_stream_id', { params: { stream: 'general' } })).body.stream_id as number;
  const narrow = JSON.stringify([{ operator: 'channel', operand: channel }, { operator: 'topic', operand: 'fast' }]);
  const page = { anchor: 'newest', num_before: '3', num_after: '0', narrow };

  // Through the test helper, which checks a success against the OpenAPI schema.
  const checked = await ts.request('GET', '/messages', { params: page });
  t.equal(checked.status, 200, 'the fast path answers');
  t.equal(checked.body.messages.length, 3, 'with the page asked for');

  const bobAuth = `Basic ${Buffer.from(`${bob.email}:${bob.apiKey}`).toString('base64')}`;
  const cases: [string, Record<string, string>, Parameters<typeof get>[2]?][] = [
    ['a page of a topic', page],
    ['the whole history, with the direct message', { anchor: 'newest', num_before: '10', num_after: '0' }],
    ['another user, with flags of their own', page, { authorization: bobAuth }],
    ['raw Markdown', { ...page, apply_markdown: 'false' }],
    ['by ids', { message_ids: JSON.stringify([dm.body.id]) }],
    ['an unknown parameter', { ...page, colour: 'blue' }],
    ['a front-end parameter', { ...page, __files: 'x' }],
    ['too many parameters', { ...page, a: '1', b: '2', c: '3', d: '4', e: '5', f: '6', g: '7', h: '8' }],
    ['a missing anchor', { num_before: '3', num_after: '0' }],
    ['a bad narrow', { ...page, narrow: '[{"operator":"colour","operand":"blue"}]' }],
    ['malformed JSON', { ...page, narrow: '[{' }],
    ['no credentials', page, { authorization: null }],
    ['wrong credentials', page, { authorization: `Basic ${Buffer.from(`${ts.owner.email}:nope`).toString('base64')}` }],
    ['an unknown organization', page, { host: 'nowhere.example.com' }],
  ];
  for (const [what, params, opts] of cases) {
    const fast = await get(ts, params, opts);
    const koa = await get(ts, params, { ...opts, body: true });
    same(t, fast, koa, what);
  }

  // A repeated key keeps its last value on both paths.
  const repeated = await get(ts, {}, { path: `/api/v1/messages?anchor=oldest&num_after=1&num_before=0&num_after=2` });
  t.equal(repeated.status, 200, 'a repeated parameter is no error');
  t.equal(JSON.parse(repeated.text).messages.length, 2, 'its last value counts');
  const repeatedKoa = await get(ts, {}, { path: `/api/v1/messages?anchor=oldest&num_after=1&num_before=0&num_after=2`, body: true });
  same(t, repeated, repeatedKoa, 'a repeated parameter');
});
