/**
 * What a shard thread waits for between loading its modules and opening its store: the
 * listener's port (its realms' URLs are made from it) and the number of shards, which the main
 * thread knows only once the start's checks have passed and it listens.
 *
 * So a thread can start before the main thread has loaded its own modules (serve.ts): on a
 * store of a million messages the shard thread's modules took about 600 ms of a 1.0-1.5 s
 * start, begun only after the main thread's 300 ms of its own and the store probe. Behind the
 * gate a thread touches no store, so the probe's verdict and a format upgrade still come before
 * any shard opens one. The gate stays open: a thread started later (a replacement after a crash,
 * a shard first used later) passes at once.
 *
 * Three Int32 cells of a SharedArrayBuffer, given to each thread in its workerData: open (0 or
 * 1), then the port and the shard count, written before `open` is set.
 */
export class StartGate {
  private readonly cells: Int32Array;

  constructor(readonly buffer = new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT)) {
    this.cells = new Int32Array(buffer);
  }

  /** Lets every thread through, now and later. Once: the port and shard count do not change. */
  open(port: number, shards: number): void {
    if (Atomics.load(this.cells, OPEN) === 1) throw new Error('the start gate is open already');
    this.cells[PORT] = port;
    this.cells[SHARDS] = shards;
    Atomics.store(this.cells, OPEN, 1);
    Atomics.notify(this.cells, OPEN);
  }

  /** Resolves with the port and shard count once the gate is open; the thread's loop runs meanwhile. */
  async passed(): Promise<{ port: number; shards: number }> {
    if (Atomics.load(this.cells, OPEN) === 0) {
      // A pending waitAsync does not hold the thread's event loop open; a timer does.
      const hold = setInterval(() => undefined, 1 << 30);
      try {
        while (Atomics.load(this.cells, OPEN) === 0) await waitAsync(this.cells, OPEN, 0).value;
      } finally {
        clearInterval(hold);
      }
    }
    return { port: this.cells[PORT], shards: this.cells[SHARDS] };
  }
}

const OPEN = 0;
const PORT = 1;
const SHARDS = 2;

// ES2024's Atomics.waitAsync (V8 has it; Node 20's TypeScript lib does not declare it).
const waitAsync = (Atomics as unknown as { waitAsync(cells: Int32Array, index: number, value: number): { value: Promise<unknown> | unknown } }).waitAsync;
