import { log } from './log.js';

/**
 * One full collection of this thread's heap, of the kind that also gives back the young
 * generation's room, for the end of a thread's start.
 *
 * Loading the modules and the store grows each thread's young generation (its semi-spaces) to
 * the 8-16 MB of a busy thread, and V8 only hands that back when its memory reducer finds the
 * thread idle, 10 to 30 s later: until then an idle server held about 25 MB more than it needed
 * (bench/RESULTS.md, P4). A cap on the young generation would have cost the busy server instead.
 * The inspector's collectGarbage is V8's low-memory collection (the one that shrinks the young
 * generation), in-process, with no port opened; a thread under load grows it again as it would.
 * Where Node is built without the inspector, nothing happens.
 */
export async function compactHeap(): Promise<void> {
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
    log.debug({ err }, 'no heap compaction after start');
  }
}
