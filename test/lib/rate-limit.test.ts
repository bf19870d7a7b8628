import t from 'tap';
import { AttemptLimiter, RateLimiter } from '../../src/lib/rate-limit.js';

t.test('AttemptLimiter (the fetch_api_key rate limit)', async (t) => {
  let now = 1_000_000;
  const clock = () => now;

  t.test('allows `limit` attempts in a window, then refuses until the oldest ages out', async (t) => {
    const limiter = new AttemptLimiter(3, 10_000, clock);
    for (let i = 0; i < 3; i++) {
      t.equal(limiter.retryAfter('k'), 0, `attempt ${i + 1} is allowed`);
      limiter.record('k');
      now += 1000;
    }
    t.equal(limiter.retryAfter('k'), 7, 'refused: the first attempt ages out in 7 s');
    now += 6999;
    t.ok(limiter.retryAfter('k') > 0, 'still refused just before');
    now += 1;
    t.equal(limiter.retryAfter('k'), 0, 'allowed once the oldest attempt is out of the window');
  });

  t.test('keys are independent, and clear() forgets a key', async (t) => {
    const limiter = new AttemptLimiter(1, 10_000, clock);
    limiter.record('a');
    t.ok(limiter.retryAfter('a') > 0, 'a is limited');
    t.equal(limiter.retryAfter('b'), 0, 'b is not');
    limiter.clear('a');
    t.equal(limiter.retryAfter('a'), 0, 'a is allowed after clear');
  });

  t.test('expired keys are swept, so guessing many names does not grow memory forever', async (t) => {
    const limiter = new AttemptLimiter(5, 1000, clock);
    for (let i = 0; i < 100; i++) limiter.record(`name${i}`);
    t.equal(limiter.size, 100, 'one entry per name within the window');
    now += 2000;
    limiter.record('late');
    t.equal(limiter.size, 1, 'the expired entries are dropped on the next record');
  });
});

t.test('RateLimiter: X-RateLimit-Remaining counts whole requests at today\'s epoch', async (t) => {
  // Today's clock in ms: at ~1.8e9 s the last bit of a double is a quarter of a microsecond,
  // which a rule of a million requests a minute once turned into 999,998 after one request.
  let now = Date.UTC(2026, 10, 28, 3, 52, 0, 123);
  for (const [window, requests] of [[60, 1_000_000], [60, 200], [3600, 50_000]] as [number, number][]) {
    const limiter = new RateLimiter([[window, requests]], () => now);
    for (let taken = 1; taken <= 3; taken++) {
      t.equal(limiter.take('k').headers['X-RateLimit-Remaining'], String(requests - taken), `${requests} a ${window} s window: ${requests - taken} left after ${taken}`);
      now += 0.001; // a microsecond apart: far less than one request's step
    }
  }
});
