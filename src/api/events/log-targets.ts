/**
 * An event-log row's `targets` (journal.ts), packed: [num, firstId, count] per queue the event
 * reached, as bytes rather than a list of numbers. A channel message to 50 subscribers reached 50
 * queues, and its list of 150 numbers was 253 of the row's 417 bytes (msgpack spends 3 to 5 bytes
 * on an id past 255); the row is encoded at every send and written in its transaction.
 *
 * Each queue is its differences from the one before, as unsigned LEB128 varints of zigzagged
 * values: the queue's num (times two, plus one when its count is not 1), its first id, and its
 * count only when it is not 1. Queues of one channel's subscribers were mostly registered near
 * each other, so a queue costs two to four bytes. Rows written before this are lists; both read.
 */

let scratch = new Uint8Array(1024);
let at = 0;

const zigzag = (n: number) => (n >= 0 ? n * 2 : -n * 2 - 1);
const unzigzag = (z: number) => (z % 2 === 0 ? z / 2 : -(z + 1) / 2);

function write(n: number): void {
  // Ten bytes cover any safe integer.
  if (at + 10 > scratch.length) {
    const bigger = new Uint8Array(scratch.length * 2);
    bigger.set(scratch);
    scratch = bigger;
  }
  while (n >= 128) {
    scratch[at++] = (n % 128) | 128;
    n = Math.floor(n / 128);
  }
  scratch[at++] = n;
}

/** [num, firstId, count, ...] as bytes. */
export function packTargets(targets: readonly number[]): Uint8Array {
  at = 0;
  let num = 0;
  let first = 0;
  for (let i = 0; i < targets.length; i += 3) {
    const count = targets[i + 2];
    write(zigzag(targets[i] - num) * 2 + (count === 1 ? 0 : 1));
    write(zigzag(targets[i + 1] - first));
    if (count !== 1) write(count);
    num = targets[i];
    first = targets[i + 1];
  }
  return scratch.slice(0, at);
}

/** A row's targets, packed or (rows of earlier versions) a list, as [num, firstId, count, ...]. */
export function unpackTargets(targets: readonly number[] | Uint8Array): number[] {
  if (Array.isArray(targets)) return targets as number[];
  const bytes = targets as Uint8Array;
  const out: number[] = [];
  let i = 0;
  const read = (): number => {
    let n = 0;
    let scale = 1;
    for (;;) {
      const b = bytes[i++];
      if (b === undefined) throw new Error('truncated event-log targets');
      n += (b & 127) * scale;
      if (b < 128) return n;
      scale *= 128;
    }
  };
  let num = 0;
  let first = 0;
  while (i < bytes.length) {
    const head = read();
    num += unzigzag(Math.floor(head / 2));
    first += unzigzag(read());
    out.push(num, first, head % 2 === 1 ? read() : 1);
  }
  return out;
}
