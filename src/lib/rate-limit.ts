/**
 * Failed-login limiting, after the reference's authenticate_by_username rule: every attempt is
 * counted before the password is checked, a success wipes the count, and once `limit` attempts
 * have failed within the window, further attempts are refused until the oldest one ages out.
 * Counting before the check matters: password hashing yields the thread, so concurrent guesses
 * would otherwise all pass the limiter before the first failure is recorded.
 *
 * State lives in the shard's memory. A restart forgets it, which costs an attacker nothing they
 * could not get by waiting for the window, and keeps the login path free of store writes.
 */
export class AttemptLimiter {
  private readonly attempts = new Map<string, number[]>();
  private sweptAt = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until `key` may try again, or 0 when it may try now. */
  retryAfter(key: string): number {
    const times = this.live(key);
    if (times.length < this.limit) return 0;
    return (times[times.length - this.limit] + this.windowMs - this.now()) / 1000;
  }

  /** Counts an attempt for `key`; clear() it when the attempt succeeds. Returns its time, for withdraw(). */
  record(key: string): number {
    this.sweep();
    const times = this.live(key);
    const now = this.now();
    times.push(now);
    this.attempts.set(key, times);
    return now;
  }

  /** Takes back one attempt recorded at `at` (counted before it ran, and it turned out not to count). */
  withdraw(key: string, at: number): void {
    const times = this.attempts.get(key);
    const i = times?.lastIndexOf(at) ?? -1;
    if (i < 0) return;
    times!.splice(i, 1);
    if (times!.length === 0) this.attempts.delete(key);
  }

  clear(key: string): void {
    this.attempts.delete(key);
  }

  /** Keys currently tracked (for tests and memory checks). */
  get size(): number {
    return this.attempts.size;
  }

  private live(key: string): number[] {
    const cutoff = this.now() - this.windowMs;
    const times = (this.attempts.get(key) ?? []).filter((t) => t > cutoff);
    if (times.length === 0) this.attempts.delete(key);
    return times;
  }

  /** Drops keys whose attempts have all aged out, at most once per window: guessing many names must not grow the map forever. */
  private sweep(): void {
    const now = this.now();
    if (now - this.sweptAt < this.windowMs) return;
    this.sweptAt = now;
    for (const [key, times] of this.attempts) if (times[times.length - 1] <= now - this.windowMs) this.attempts.delete(key);
  }
}

/** One [window seconds, requests] rule, as the reference's RATE_LIMITING_RULES write them. */
export type RateRule = [number, number];

export interface RateDecision {
  /** 0 when allowed; else seconds until the next request would be. */
  retryAfter: number;
  /** The X-RateLimit-* headers of the rule with the longest window. */
  headers: Record<string, string>;
}

/**
 * API rate limits after the reference's in-memory (Tornado) backend: per key and rule, one
 * "theoretical arrival time" (GCRA). Each request moves it window/requests seconds later; a
 * request that would move it more than a window past now is refused. So a key may burst its
 * whole allowance, then goes at the steady rate, and can never lock itself out for longer than
 * one request's share of the window. One number per key and rule, whatever the traffic.
 */
export class RateLimiter {
  private readonly tats = new Map<string, number[]>();
  private sweptAt = 0;
  private readonly longest: RateRule;
  private readonly longestIndex: number;
  private readonly shortestWindow: number;
  /** Each rule's step: window / requests seconds. */
  private readonly steps: number[];

  constructor(
    private readonly rules: RateRule[],
    private readonly now: () => number = Date.now,
  ) {
    this.longest = rules.reduce((a, b) => (b[0] > a[0] ? b : a), rules[0] ?? [1, 9999]);
    this.longestIndex = rules.indexOf(this.longest);
    this.shortestWindow = Math.min(...rules.map(([window]) => window));
    this.steps = rules.map(([window, requests]) => window / requests);
  }

  /**
   * Counts a request for `key` unless it is over a rule; says which, and the headers. (Every
   * request is counted on the main thread and again in its shard, and polls answered at a desk
   * once more: this runs a few times per request, so it updates the key's times in place.)
   */
  take(key: string): RateDecision {
    const now = this.now() / 1000;
    this.sweep(now);
    const { rules, steps } = this;
    const known = this.tats.get(key);
    let retryAfter = 0;
    for (let i = 0; i < rules.length; i++) {
      const next = Math.max(known ? known[i] : 0, now) + steps[i];
      retryAfter = Math.max(retryAfter, next - rules[i][0] - now);
    }
    const i = this.longestIndex;
    const before = known ? known[i] : 0;
    let tat: number;
    if (retryAfter <= 0) {
      const tats = known ?? new Array<number>(rules.length).fill(0);
      for (let k = 0; k < rules.length; k++) tats[k] = Math.max(tats[k], now) + steps[k];
      if (!known) this.tats.set(key, tats);
      tat = tats[i];
    } else tat = Math.max(before, now);
    const [window, requests] = this.longest;
    // `now` is about 1.8e9 s, whose last bit is a quarter of a microsecond: a rule of many
    // requests per window turns that into a few thousandths of a request, and a count that is
    // whole must not lose one to it (two identical requests gave 999,999 and 999,998).
    const slack = (4 * Number.EPSILON * (now + window) * requests) / window;
    const remaining = Math.max(0, Math.floor(((now + window - tat) * requests) / window + slack));
    return {
      retryAfter: Math.max(0, retryAfter),
      headers: {
        'X-RateLimit-Limit': String(requests),
        'X-RateLimit-Remaining': String(remaining),
        'X-RateLimit-Reset': String(Math.ceil(Math.max(tat, now))),
      },
    };
  }

  /**
   * Gives back one request take() counted for `key` (it turned out not to count: the front
   * end counts every request against its address, and gives back those that authenticated).
   */
  refund(key: string): void {
    const tats = this.tats.get(key);
    if (!tats) return;
    this.rules.forEach(([window, requests], i) => (tats[i] -= window / requests));
  }

  /** Keys tracked (tests and memory checks). */
  get size(): number {
    return this.tats.size;
  }

  /** Drops keys that are back to a full allowance, at most once per shortest window. */
  private sweep(now: number): void {
    if (now - this.sweptAt < this.shortestWindow) return;
    this.sweptAt = now;
    for (const [key, tats] of this.tats) if (tats.every((tat) => tat <= now)) this.tats.delete(key);
  }
}

type Limiters = { api: RateLimiter; events: RateLimiter };
const userLimiters = new WeakMap<object, Limiters | null>();

/**
 * The per-user limiters of a shard (a user's requests all reach their realm's shard), or null
 * when rate limits are off. GET /events has a budget of its own, as in the reference, where
 * Tornado counts long-polls apart from the Django requests. Requests that do not authenticate
 * are counted per address on the main thread (front/guard.ts), once for the whole server.
 */
export function userLimitersOf(shard: { config: { rateLimits: { enabled: boolean; perUser: RateRule[] } } }): Limiters | null {
  let limiters = userLimiters.get(shard);
  if (limiters === undefined) {
    const { enabled, perUser } = shard.config.rateLimits;
    limiters = enabled && perUser.length > 0 ? { api: new RateLimiter(perUser), events: new RateLimiter(perUser) } : null;
    userLimiters.set(shard, limiters);
  }
  return limiters;
}
