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

  /** Counts an attempt for `key`; clear() it when the attempt succeeds. */
  record(key: string): void {
    this.sweep();
    const times = this.live(key);
    times.push(this.now());
    this.attempts.set(key, times);
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
