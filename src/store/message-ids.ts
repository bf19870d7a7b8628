/**
 * Message ids: unique across the server and increasing with time, while every shard sends in
 * parallel. All shard threads share one 64-bit counter in a SharedArrayBuffer and take the next id
 * with a compare-and-swap: no round trip, no lock. The counter lives in memory only; each shard
 * records the highest id it used (`seq:message` in its meta table, in the same transaction as
 * the message), and on start every shard raises the shared counter to its own mark before the
 * front end lets any request in (ShardPool.ready), so no id is ever handed out twice.
 *
 * The second cell is a limit: no id above it is handed out. A single server has no limit. A node
 * of a cluster (src/cluster/ids.ts) may only use the blocks of ids etcd gave it, each above every
 * block handed out before: it starts with limit 0 and installs each block as it gets it (`install`),
 * raising the counter to the block's start, so ids stay unique across nodes and keep increasing
 * on every node, and a realm moved to another node continues above its own newest id.
 *
 *   cell 0  the last id handed out
 *   cell 1  the highest id this process may hand out
 *   cell 2  installs begun and ended: odd while `install` is between its two stores
 */
export const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/** Every id this process may hand out is taken: a cluster node could not get a block in time. */
export class MessageIdsExhausted extends Error {
  constructor() {
    super('no message id left in the block this node holds');
  }
}

export class MessageIds {
  private readonly cell: BigInt64Array;

  constructor(buffer: SharedArrayBuffer = MessageIds.buffer()) {
    this.cell = new BigInt64Array(buffer, 0, 3);
  }

  static buffer(limit = NO_LIMIT): SharedArrayBuffer {
    const buffer = new SharedArrayBuffer(24);
    new BigInt64Array(buffer)[1] = BigInt(limit);
    return buffer;
  }

  next(): number {
    for (;;) {
      const installs = Atomics.load(this.cell, 2);
      // An install is between its two stores (nanoseconds, unless its thread is descheduled).
      if (installs & 1n) continue;
      const seen = Atomics.load(this.cell, 0);
      if (seen >= Atomics.load(this.cell, 1)) {
        if (Atomics.load(this.cell, 2) === installs) throw new MessageIdsExhausted();
        continue;
      }
      if (Atomics.compareExchange(this.cell, 0, seen, seen + 1n) === seen) return Number(seen + 1n);
    }
  }

  /** The highest id handed out so far. */
  current(): number {
    return Number(Atomics.load(this.cell, 0));
  }

  /** How many ids may still be handed out. */
  remaining(): number {
    return Math.max(0, Number(Atomics.load(this.cell, 1) - Atomics.load(this.cell, 0)));
  }

  /** Raises the counter to at least `mark` (compare-and-swap, so shards may race). */
  raiseTo(mark: number): void {
    const target = BigInt(mark);
    for (;;) {
      const seen = Atomics.load(this.cell, 0);
      if (seen >= target || Atomics.compareExchange(this.cell, 0, seen, target) === seen) return;
    }
  }

  /**
   * Switches to the block (lo, hi]: ids lo + 1 .. hi. The block must lie above every id handed
   * out so far. The counter moves first, then the limit, inside an odd install count: `next`
   * waits meanwhile, so it never hands out an id between the old block and the new, and never
   * takes the moment between the two stores for a used-up block.
   */
  install(lo: number, hi: number): void {
    if (lo < this.current()) throw new Error(`block (${lo}, ${hi}] lies below id ${this.current()}, already handed out`);
    Atomics.add(this.cell, 2, 1n);
    this.raiseTo(lo);
    Atomics.store(this.cell, 1, BigInt(hi));
    Atomics.add(this.cell, 2, 1n);
  }
}
