import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { log } from './log.js';

/**
 * One low-memory collection of this thread's heap: the kind that also hands back the young
 * generation's room.
 *
 * Loading the modules and the store grows each thread's young generation (its semi-spaces) to a
 * busy thread's 8-16 MB; V8 gives that back only when its memory reducer finds the thread idle,
 * 10 to 30 s later or, on a busy machine, never (bench/RESULTS.md, P4). The inspector's
 * collectGarbage is V8's low-memory collection, in-process, with no port opened (`gc()`, even
 * with --expose-gc, does not shrink the young generation). Where Node is built without the
 * inspector, nothing happens.
 *
 * Such a collection also leaves the old generation's limit at the live size plus a tenth, where
 * a fresh heap has a limit far above it: the next burst of work then ran two or three full
 * collections per thread in its first seconds (P1 cost 15 % more CPU per send). The caller
 * holds the limit at what V8 gives a heap whose collector is fast and whose program is idle
 * (`withRoomyOldGeneration`).
 */
export async function compactHeap(): Promise<YoungGeneration> {
  const before = youngGenerationMb();
  try {
    const { Session } = await import('node:inspector');
    const session = new Session();
    session.connect();
    try {
      await new Promise<void>((resolve, reject) => session.post('HeapProfiler.collectGarbage', (err) => (err ? reject(err) : resolve())));
    } finally {
      session.disconnect();
    }
  } catch (err) {
    log.debug({ err }, 'no heap compaction');
  }
  return { beforeMb: before, afterMb: youngGenerationMb() };
}

/** The young generation's resident size, before and after a compaction. */
export interface YoungGeneration {
  beforeMb: number;
  afterMb: number;
}

function youngGenerationMb(): number {
  const bytes = getHeapSpaceStatistics()
    .filter((space) => space.space_name === 'new_space' || space.space_name === 'new_large_object_space')
    .reduce((sum, space) => sum + space.physical_space_size, 0);
  return Math.round(bytes / 104857.6) / 10;
}

/**
 * Runs `fn` (collections of this process's threads) with V8's old-generation growing factor set
 * to 4, its largest dynamic factor, rather than the low-memory collection's 1.1: the limit each
 * collection leaves is then four times what lives, as after an ordinary collection of an idle
 * program. V8's flags are the process's, so the threads' collections run inside one call.
 *
 * It does not also drop the start's bytecode and baseline code, as it did through V8's
 * `--stress-flush-code` and `--flush-baseline-code` for the same collections (1.7 MB of heap a
 * thread). Those are V8's testing flags, and turning them on and off while other threads run
 * crashed V8: a stress script that did what this did, over and over, while two worker threads
 * compiled and called code, died in 6 of 12 one-minute runs (4 of V8's fatal errors in
 * `SharedFunctionInfo::GetCode` and `MarkCompactCollector::ProcessMarkingWorklist`, 2 SIGSEGV).
 * The same script without them ran 12 of 12 clean. A test process of the CI died of SIGSEGV
 * during the 2.5 s of quiet in which its server compacted (bench/RESULTS.md, the idle6 session).
 */
export async function withRoomyOldGeneration<T>(fn: () => Promise<T>): Promise<T> {
  setFlagsFromString('--heap-growing-percent=300');
  try {
    return await fn();
  } finally {
    // 0: V8's own choice, from the collector's and the program's speeds.
    setFlagsFromString('--heap-growing-percent=0');
  }
}
