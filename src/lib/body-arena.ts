/**
 * Big answer bodies in memory the front end and a shard thread share, so that a body is written
 * to the socket from the bytes the shard encoded, without crossing the threads as a string.
 *
 * A page of GET /messages (65 KB for P5's 100 messages) posted as a string was copied three
 * times after the shard's join: serialised by postMessage, made a string again on the main
 * thread (a 65 KB allocation per page, which drove the main thread's young-generation
 * collections, about 40 % of its time in P5), and encoded into a buffer for the socket's write.
 * Here the shard encodes the joined body once into a slot of the arena and posts the slot's
 * number and length; the front end writes a view of the slot and frees it once the response
 * has ended (its 'close', after the last write's callback or the connection's end: libuv holds
 * no pointer into the slot then). Buffers transferred per page instead were tried twice and
 * dropped (bench/RESULTS.md, the fetch session): each is external memory, and 240 MB/s of it
 * drove full collections on both threads; the arena is allocated once per shard.
 *
 * Each slot has a state cell: 0 free, else taken (the first slot of a body's run holds the
 * run's length, the others -1). The shard takes the lowest free slot, or run of slots, with a
 * compare-and-swap each (so a light load touches only the first few slots' pages: the rest of
 * the arena stays unbacked virtual memory), the front end frees them with stores. A body that
 * does not fit ARENA_MAX_RUN slots, or finds no run free, travels as a string as before. A replacement thread
 * gets the same arena; a slot taken for a reply lost with a crashed thread stays taken.
 */
export const ARENA_SLOTS = 64;
export const ARENA_SLOT_BYTES = 256 * 1024;
/** The most slots one body takes: a quarter of the arena, so that one huge body leaves room. */
export const ARENA_MAX_RUN = ARENA_SLOTS / 4;
/** Smaller bodies gain nothing from the arena: a string of a few KB is cheap to post. */
export const ARENA_MIN_CHARS = 8 * 1024;

/** Where a body lies in its shard's arena. */
export interface ArenaBody {
  slot: number;
  length: number;
}

const opened = new Set<WeakRef<BodyArena>>();

export class BodyArena {
  private readonly state: Int32Array;
  private readonly bytes: Buffer;
  private readonly encoder = new TextEncoder();

  constructor(readonly buffer: SharedArrayBuffer) {
    this.state = new Int32Array(buffer, 0, ARENA_SLOTS);
    this.bytes = Buffer.from(buffer, ARENA_SLOTS * 4);
    opened.add(new WeakRef(this));
  }

  /** Slots taken, in every arena this thread has opened: a slot never freed is a leak (the tests check it). */
  static taken(): number {
    let n = 0;
    for (const ref of opened) {
      const arena = ref.deref();
      if (!arena) opened.delete(ref);
      else for (let slot = 0; slot < ARENA_SLOTS; slot++) if (Atomics.load(arena.state, slot) !== 0) n++;
    }
    return n;
  }

  /** The arena's memory, made once per shard by the front end and shared with its thread. */
  static allocate(): SharedArrayBuffer {
    return new SharedArrayBuffer(ARENA_SLOTS * 4 + ARENA_SLOTS * ARENA_SLOT_BYTES);
  }

  /**
   * The shard's side: `body` as UTF-8 in a slot taken for it, or in a run of neighbouring slots
   * for a body bigger than one (a /register's 380 KB in a 1,000-user realm), or null (no run
   * free, or too big).
   */
  put(body: string | string[]): ArenaBody | null {
    const pieces = typeof body === 'string' ? [body] : body;
    let units = 0;
    for (const piece of pieces) units += piece.length;
    // At least a byte per UTF-16 unit: so many slots at least, and the body is given no more.
    const run = Math.max(1, Math.ceil(units / ARENA_SLOT_BYTES));
    if (run > ARENA_MAX_RUN) return null;
    const slot = this.take(run);
    if (slot < 0) return null;
    const start = slot * ARENA_SLOT_BYTES;
    const end = start + run * ARENA_SLOT_BYTES;
    let at = start;
    // Small pieces are joined and encoded together, big ones encoded as they are: a /register's
    // plain fields are two small pieces each (key, value) among a few big sections, and an
    // encodeInto (and a view of the arena) per small piece cost more than the join it saves;
    // joining the big sections too was a copy of the whole body.
    let small: string[] = [];
    const encode = (text: string): boolean => {
      const { read, written } = this.encoder.encodeInto(text, this.bytes.subarray(at, end));
      at += written;
      return read === text.length;
    };
    const flush = (): boolean => {
      if (small.length === 0) return true;
      const text = small.length === 1 ? small[0] : small.join('');
      small = [];
      return encode(text);
    };
    for (const piece of pieces) {
      if (piece.length < ARENA_MIN_CHARS) {
        small.push(piece);
        continue;
      }
      if (flush() && encode(piece)) continue;
      this.free(slot);
      return null;
    }
    if (flush()) return { slot, length: at - start };
    this.free(slot);
    return null;
  }

  /**
   * The lowest run of `run` free slots, taken: each with a compare-and-swap to -1, then its first
   * cell set to the run's length, which `free` reads. -1 where no such run is free.
   */
  private take(run: number): number {
    for (let slot = 0; slot + run <= ARENA_SLOTS; slot++) {
      let got = 0;
      while (got < run && Atomics.load(this.state, slot + got) === 0 && Atomics.compareExchange(this.state, slot + got, 0, -1) === 0) got++;
      if (got === run) {
        Atomics.store(this.state, slot, run);
        return slot;
      }
      for (let i = 0; i < got; i++) Atomics.store(this.state, slot + i, 0);
      // The slot after those is taken: look past it.
      slot += got;
    }
    return -1;
  }

  /** Bodies this thread has taken from an arena to write (the tests check the arena is used). */
  static viewed = 0;

  /** The front end's side: the body's bytes, valid until `free`. */
  view(body: ArenaBody): Buffer {
    BodyArena.viewed++;
    const start = body.slot * ARENA_SLOT_BYTES;
    return this.bytes.subarray(start, start + body.length);
  }

  /** Frees the slot a body was put in, and the rest of its run. */
  free(slot: number): void {
    const run = Math.max(1, Atomics.load(this.state, slot));
    for (let i = run - 1; i >= 0; i--) Atomics.store(this.state, slot + i, 0);
  }
}

/** The shard thread's arena (host/worker.ts sets it), or null where there is none. */
let shardArena: BodyArena | null = null;

export function useBodyArena(buffer: SharedArrayBuffer | undefined): void {
  shardArena = buffer ? new BodyArena(buffer) : null;
}

/** The shard's side of a reply: its body (or the body's pieces, in order) moved into the arena when it is big enough and fits. */
export function bodyIntoArena(body: string | string[]): ArenaBody | null {
  if (!shardArena) return null;
  let units = 0;
  if (typeof body === 'string') units = body.length;
  else for (const piece of body) units += piece.length;
  return units < ARENA_MIN_CHARS ? null : shardArena.put(body);
}
