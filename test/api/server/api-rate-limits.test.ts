import t from 'tap';
import { RateLimiter } from '../../../src/lib/rate-limit.js';
import { createUser, startTestServer } from '../../helpers/server.js';

t.test('RateLimiter: a burst of the allowance, then the steady rate', async (t) => {
  let now = 1_000_000;
  const limiter = new RateLimiter([[60, 6]], () => now);
  for (let i = 0; i < 6; i++) t.equal(limiter.take('k').retryAfter, 0, `request ${i + 1} of the burst passes`);
  const refused = limiter.take('k');
  t.ok(refused.retryAfter > 9.9 && refused.retryAfter <= 10, 'the 7th waits one request-share of the window (10 s)');
  t.equal(refused.headers['X-RateLimit-Remaining'], '0', 'none left');
  now += 10_000;
  t.equal(limiter.take('k').retryAfter, 0, 'after 10 s one more passes');
  t.ok(limiter.take('k').retryAfter > 0, 'and only one');
  t.equal(limiter.take('other').retryAfter, 0, 'keys are independent');
  now += 120_000;
  limiter.take('third');
  t.equal(limiter.size, 1, 'keys back to a full allowance are swept');
});

t.test('RateLimiter: every rule holds', async (t) => {
  let now = 0;
  const limiter = new RateLimiter([[1, 2], [60, 3]], () => now);
  t.equal(limiter.take('k').retryAfter, 0, '1');
  t.equal(limiter.take('k').retryAfter, 0, '2');
  t.ok(limiter.take('k').retryAfter > 0, 'the per-second rule stops the 3rd at once');
  now += 1000;
  t.equal(limiter.take('k').retryAfter, 0, 'a second later the 3rd passes');
  now += 1000;
  t.ok(limiter.take('k').retryAfter > 0, 'the per-minute rule stops the 4th');
  t.equal(limiter.take('k').headers['X-RateLimit-Limit'], '3', 'headers follow the longest window');
});

t.test('API rate limits over HTTP', async (t) => {
  const ts = await startTestServer(t, { rateLimits: { enabled: true, perUser: [[60, 6]], perIp: [[60, 3]] } });
  // Users are made before the owner's budget is spent; each call counts.
  const other = await createUser(ts, 'other@example.com');
  const queue = (await ts.request('POST', '/register', { params: { event_types: ['message'] } })).body.queue_id as string;
  const used = 2; // POST /users, POST /register (createUser's fetch_api_key is anonymous: counted per address)

  t.test('per user, with the reference headers, then 429 RATE_LIMIT_HIT', async (t) => {
    let last = null as Awaited<ReturnType<typeof ts.request>> | null;
    for (let i = used; i < 6; i++) {
      last = await ts.request('GET', '/users/me');
      t.equal(last.status, 200, `request ${i + 1} passes`);
      t.equal(last.headers['x-ratelimit-limit'], '6', 'X-RateLimit-Limit');
      t.equal(last.headers['x-ratelimit-remaining'], String(5 - i), 'X-RateLimit-Remaining counts down');
      t.ok(Number(last.headers['x-ratelimit-reset']) >= Math.floor(Date.now() / 1000), 'X-RateLimit-Reset is a time to come (epoch seconds)');
    }
    const hit = await ts.request('GET', '/users/me');
    t.equal(hit.status, 429, '429');
    t.match(hit.body, { result: 'error', code: 'RATE_LIMIT_HIT', msg: 'API usage exceeded rate limit' }, 'the reference error');
    t.ok(hit.body['retry-after'] > 0 && hit.body['retry-after'] <= 10, 'retry-after in the body, in seconds');
    t.equal(hit.headers['retry-after'], String(Math.ceil(hit.body['retry-after'])), 'Retry-After header');
    t.equal(hit.headers['x-ratelimit-remaining'], '0', 'none remaining');
    const post = await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 't', content: 'x' } });
    t.equal(post.status, 429, 'every endpoint counts against the same budget');
  });

  t.test('GET /events has a budget of its own', async (t) => {
    const poll = await ts.request('GET', '/events', { params: { queue_id: queue, last_event_id: -1, dont_block: true } });
    t.equal(poll.status, 200, 'polls go on while the API budget is spent');
  });

  t.test('other users are not affected', async (t) => {
    t.equal((await ts.as(other)('GET', '/users/me')).status, 200, 'another user passes');
  });

  t.test('requests without credentials are limited per address', async (t) => {
    // createUser's anonymous POST /fetch_api_key took one of the three.
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await ts.request('GET', '/server_settings', { auth: null }));
    t.same(answers.map((a) => a.status), [200, 200, 429], 'the allowance is per address: two more pass, then 429');
    t.equal(answers[0].headers['x-ratelimit-limit'], '3', 'with headers');
    t.equal(answers[1].headers['x-ratelimit-remaining'], '0', 'counting down');
    t.equal(answers[2].body.code, 'RATE_LIMIT_HIT', 'RATE_LIMIT_HIT');
    t.equal((await ts.as(other)('GET', '/users/me')).status, 200, 'authenticated requests from the same address are counted per user');
  });
});

t.test('failed credentials are counted per address', async (t) => {
  const ts = await startTestServer(t, { rateLimits: { enabled: true, perUser: [[60, 100]], perIp: [[60, 3]] } });
  const wrong = { email: ts.owner.email, apiKey: 'x'.repeat(32) };
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await ts.as(wrong)('GET', '/users/me')).status);
  t.same(statuses, [401, 401, 401, 429], 'guessing keys: three 401s, then 429');
  t.equal((await ts.request('GET', '/users/me')).status, 200, 'the right key still works from the same address');
});

t.test('rate limits can be turned off (the test default)', async (t) => {
  const ts = await startTestServer(t);
  const res = await ts.request('GET', '/users/me');
  t.equal(res.status, 200, '200');
  t.equal(res.headers['x-ratelimit-limit'], undefined, 'no rate-limit headers');
  for (let i = 0; i < 250; i++) if ((await ts.request('GET', '/users/me')).status !== 200) return t.fail(`request ${i} refused`);
  t.pass('250 requests in a row pass');
});
