/**
 * The renderer's heavy libraries (markdown-it, highlight.js with all its languages, KaTeX, the
 * TLD list) are required on first use, so an idle shard does not pay for them. That first use
 * can take longer than a render may (on a loaded machine, well over a second for highlight.js),
 * and the message that happened to trigger it is not the one to blame. Render deadlines are
 * therefore measured on a clock that stops while a module loads.
 */
import { createRequire } from 'node:module';

const requireHere = createRequire(import.meta.url);
let loadingMs = 0;

/** Milliseconds, like performance.now(), less the time spent in lazyRequire. */
export function renderClock(): number {
  return performance.now() - loadingMs;
}

export function lazyRequire<T>(id: string): T {
  const start = performance.now();
  try {
    return requireHere(id) as T;
  } finally {
    loadingMs += performance.now() - start;
  }
}
