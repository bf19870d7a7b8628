/**
 * New ids for imported rows. Each kind gets one block of the shard's counter, reserved in the
 * import's first transaction (its base is stored with the import's checkpoint); the n-th old id
 * in a fixed order gets base + n + 1. The mapping is a function of the export and the base, so
 * an import resumed after a crash gives every row the id it had before, and what was written
 * then is rewritten in place, never doubled.
 */
export class IdMap {
  private readonly map = new Map<number, number>();

  constructor(
    readonly kind: string,
    readonly base: number,
    oldIds: Iterable<number>,
  ) {
    let n = base;
    for (const id of oldIds) this.map.set(id, ++n);
  }

  get size(): number {
    return this.map.size;
  }

  has(old: number): boolean {
    return this.map.has(old);
  }

  /** The new id of an old one; a missing one is a bug of the plan (the first pass checked every reference). */
  get(old: number): number {
    const id = this.map.get(old);
    if (id === undefined) throw new Error(`import: no new ${this.kind} id for ${old}`);
    return id;
  }

  /** The new id, or null for null/undefined/unknown old ids (optional references). */
  opt(old: unknown): number | null {
    return typeof old === 'number' ? (this.map.get(old) ?? null) : null;
  }

  entries(): IterableIterator<[number, number]> {
    return this.map.entries();
  }
}

/** The kinds of ids an import reserves, with how many of each. */
export type Reservation = Record<string, number>;
