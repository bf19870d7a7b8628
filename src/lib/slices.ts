import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Long scans in slices. A shard is one thread: a request that walks a million index entries
 * (a negated search over a whole history) would hold every other request of the shard's realms
 * for as long as it runs. So a scan works for at most SLICE_MS, then yields to the event loop,
 * where the requests that arrived meanwhile run, and goes on from where it stopped.
 *
 * And one user's scans take turns: from its second slice on, a scan waits for the user's
 * earlier scans to finish. A client that fires many expensive queries at once then costs the
 * others one slice at a time, not one slice per query.
 */
export const SLICE_MS = 4;
/** How many steps between looks at the clock. */
const CHECK_EVERY = 32;

export class Slice {
  private started = performance.now();
  private steps = 0;

  /** Whether the slice has used its time (checked every few steps). */
  spent(): boolean {
    return ++this.steps % CHECK_EVERY === 0 && performance.now() - this.started > SLICE_MS;
  }

  /** Lets the shard's other work run, then starts a new slice. */
  async next(): Promise<void> {
    await nextTurn();
    this.started = performance.now();
  }
}

const turns = new WeakMap<object, Map<string, Promise<void>>>();

/**
 * Waits until `key`'s earlier holders under `scope` are done; resolves with the release. The
 * chain holds no reference once its last holder has released.
 */
export async function takeTurn(scope: object, key: string): Promise<() => void> {
  let chains = turns.get(scope);
  if (!chains) turns.set(scope, (chains = new Map()));
  const before = chains.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  const chain = before.then(() => mine);
  chains.set(key, chain);
  await before;
  return () => {
    release();
    if (chains.get(key) === chain) chains.delete(key);
  };
}
