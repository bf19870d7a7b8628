/**
 * A hashed timing wheel: the shard's one clock for event-queue expiry, long-poll heartbeats,
 * scheduled messages and webhook retries.
 *
 *      tick = 1 s, slots = 512
 *
 *      slot:   0     1     2    ...   k   ...  511
 *             [ ]   [ ]   [a]        [b,c]     [ ]       a timer due at time t sits in
 *                          ^ cursor                      slot floor(t / tick) % slots
 *
 * Scheduling and cancelling are O(1): a timer goes into the slot of its due tick. Each tick the
 * cursor moves one slot and fires the timers there whose due time has come; a timer due more
 * than one revolution (512 s) ahead simply stays in its slot until the revolution in which it is
 * due, which costs one comparison per revolution. So 10,000 idle queues cost nothing between
 * ticks, unlike 10,000 setTimeouts each holding a libuv timer.
 *
 * The wheel does not read the clock itself: `advance(now)` runs every tick up to `now`. `start()`
 * drives it from one unref'd setInterval; tests call advance() with a fake time.
 *
 * A slot is an array, each timer knowing its place in it (a cancel moves the slot's last timer
 * there), not a Set: the slots live as long as the shard, so they are in V8's old generation,
 * and a Set there that is added to and deleted from keeps every timer that ever passed through
 * it alive until the next full collection (each rehash leaves the old table, with its entries,
 * linked to the new one). Every poll re-arms its queue's expiry, so with Sets each poll's timers
 * were promoted: about 19 KB per DELIVERY round of one send and 50 polls (bench/RESULTS.md, the
 * gc3 session). An array's vacated place is overwritten, and nothing dead stays reachable.
 */
export interface Timer {
  readonly at: number;
  /** True once the timer has fired or been cancelled. */
  readonly done: boolean;
}

interface Entry extends Timer {
  at: number;
  done: boolean;
  fn: () => void;
  slot: number;
  /** Its place in its slot's array; -1 once out of it. */
  index: number;
}

export class TimerWheel {
  private readonly slots: Entry[][];
  private readonly tickMs: number;
  private lastTick: number;
  private interval: NodeJS.Timeout | null = null;
  private count = 0;

  constructor(opts: { tickMs?: number; slots?: number; now?: number } = {}) {
    this.tickMs = opts.tickMs ?? 1000;
    this.slots = Array.from({ length: opts.slots ?? 512 }, () => []);
    this.lastTick = Math.floor((opts.now ?? Date.now()) / this.tickMs);
  }

  /** Timers scheduled and not yet fired or cancelled. */
  get size(): number {
    return this.count;
  }

  /** Runs `fn` at time `at` (ms), or on the next tick if `at` has passed. */
  schedule(at: number, fn: () => void): Timer {
    const tick = Math.max(Math.ceil(at / this.tickMs), this.lastTick + 1);
    const slot = tick % this.slots.length;
    const timers = this.slots[slot];
    const entry: Entry = { at, fn, slot, done: false, index: timers.length };
    timers.push(entry);
    this.count++;
    return entry;
  }

  cancel(timer: Timer): void {
    const entry = timer as Entry;
    if (entry.done || entry.index < 0) return;
    this.remove(entry);
    entry.done = true;
  }

  /** Takes a timer out of its slot: the slot's last timer takes its place. */
  private remove(entry: Entry): void {
    const timers = this.slots[entry.slot];
    const last = timers.pop()!;
    if (last !== entry) {
      timers[entry.index] = last;
      last.index = entry.index;
    }
    entry.index = -1;
    this.count--;
  }

  /** Fires, in due order within each tick, every timer due up to `now`. */
  advance(now: number): void {
    const target = Math.floor(now / this.tickMs);
    // After a long pause, one pass over every slot fires everything due.
    const from = target - this.lastTick > this.slots.length ? target - this.slots.length : this.lastTick + 1;
    for (let tick = from; tick <= target; tick++) {
      // Moved before the callbacks run: a timer they schedule for now or earlier goes into the
      // next tick (this loop's next turn, or the next advance), not into a slot already passed,
      // which would hold it for a whole revolution.
      this.lastTick = Math.max(this.lastTick, tick);
      const slot = this.slots[tick % this.slots.length];
      const due = slot.filter((e) => e.at <= now).sort((a, b) => a.at - b.at);
      for (const entry of due) {
        // A callback before it may have cancelled it.
        if (entry.done) continue;
        this.remove(entry);
        entry.done = true;
        entry.fn();
      }
    }
    this.lastTick = Math.max(this.lastTick, target);
  }

  start(clock: () => number = Date.now): void {
    if (this.interval) return;
    this.interval = setInterval(() => this.advance(clock()), this.tickMs);
    this.interval.unref();
  }

  stop(): void {
    if (this.interval) clearInterval(this.interval);
    this.interval = null;
  }
}
