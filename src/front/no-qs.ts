import Module, { createRequire } from 'node:module';

/**
 * co-body (under koa-bodyparser) requires qs as it loads, as its default parser of form bodies.
 * front/body.ts always hands it a parser of its own (flat names, a repeated name a list, as Django
 * reads a form), so qs, and what qs loads (side-channel, object-inspect, get-intrinsic with its
 * table of every intrinsic), was never called: 0.5-0.8 MB of the main thread's heap
 * (bench/RESULTS.md, the idle6 session).
 *
 * This puts a module of ours in the place of co-body's qs in Node's module cache before
 * koa-bodyparser loads (front/body.ts imports this first). It stands for that one file: whatever
 * else requires qs resolves and loads it as before. Its parse throws, so that a form read without
 * our parser fails loudly instead of being read with qs's nesting.
 */
const require = createRequire(import.meta.url);

/** co-body's qs, as co-body resolves it; null when it has none (a co-body without qs needs nothing). */
export function coBodyQsPath(): string | null {
  try {
    const coBody = createRequire(require.resolve('koa-bodyparser')).resolve('co-body');
    return createRequire(coBody).resolve('qs');
  } catch {
    return null;
  }
}

export const standIn = {
  parse(): never {
    throw new Error('qs is not loaded for co-body: give it a parser of its own (its qs option)');
  },
};

const path = coBodyQsPath();
if (path !== null && require.cache[path] === undefined) {
  const module = new Module(path);
  module.filename = path;
  module.loaded = true;
  module.exports = standIn;
  require.cache[path] = module;
}
