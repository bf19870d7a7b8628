/**
 * Message ids: unique across the server and increasing with time, while every shard sends in
 * parallel. All shard threads share one 64-bit counter in a SharedArrayBuffer and take the next id
 * with an atomic add: no round trip, no lock. The counter lives in memory only; each shard
 * records the highest id it used (`seq:message` in its meta table, in the same transaction as
 * the message), and on start every shard raises the shared counter to its own mark before the
 * front end lets any request in (ShardPool.ready), so no id is ever handed out twice.
 */
export class MessageIds {
  private readonly cell: BigInt64Array;

  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(8)) {
    this.cell = new BigInt64Array(buffer, 0, 1);
  }

  static buffer(): SharedArrayBuffer {
    return new SharedArrayBuffer(8);
  }

  next(): number {
    return Number(Atomics.add(this.cell, 0, 1n) + 1n);
  }

  /** The highest id handed out so far. */
  current(): number {
    return Number(Atomics.load(this.cell, 0));
  }

  /** Raises the counter to at least `mark` (compare-and-swap, so shards may race). */
  raiseTo(mark: number): void {
    const target = BigInt(mark);
    for (;;) {
      const seen = Atomics.load(this.cell, 0);
      if (seen >= target || Atomics.compareExchange(this.cell, 0, seen, target) === seen) return;
    }
  }
}
