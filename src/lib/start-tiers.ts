import { setFlagsFromString } from 'node:v8';

/**
 * The start runs without V8's compiling tiers (TurboFan, and Sparkplug's baseline code), in its
 * interpreter only; `release` turns them back on, once (server.ts: with the first client's
 * connection).
 *
 * An idle server that has compiled nothing holds 9-10 MB less (84 -> 75 MB, as the bench's P4
 * reads it). The start's hot code (module resolution, the config's validator being built, the
 * realm's rows read) had TurboFan compile 74 functions, and Sparkplug more. A single TurboFan
 * compilation touches 3.5 MB of the node binary's pages (the compiler's own code, resident from
 * then on), and the compilations' scratch memory, freed, stayed in malloc's arenas (2.5 MB);
 * Sparkplug's added about 3 MB of both. Once clients come, the tiers compile what their requests
 * make hot, and what only the start ran is never compiled.
 *
 * The flags are V8's ordinary ones, read where V8 decides whether to compile a function, not in
 * the garbage collector (the code-flushing testing flags lib/compact-heap.ts no longer sets
 * crashed V8 when changed while threads ran). Here each is set once each way: off before the
 * server's modules load (main.ts, scripts/start.mjs), on once. Holding again while held does
 * nothing more, and any `release` ends the hold.
 *
 * An operator's own choice of tiers (`--jitless`, `--no-opt`, `--max-opt`, `--no-sparkplug`...,
 * on the command line or in NODE_OPTIONS) is left alone: nothing is held, `release` does nothing.
 */
export function holdCompilingTiers(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): () => void {
  if (OPERATOR_TIERS.test([...execArgv, nodeOptions].join(' ').replaceAll('_', '-'))) return () => undefined;
  setFlagsFromString('--no-turbofan');
  setFlagsFromString('--no-sparkplug');
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    setFlagsFromString('--sparkplug');
    setFlagsFromString('--turbofan');
  };
}

const OPERATOR_TIERS = /--(?:no-)?(?:jitless|opt|turbofan|sparkplug|max-opt|lite-mode|always-(?:opt|turbofan|sparkplug))(?![\w-])/;
