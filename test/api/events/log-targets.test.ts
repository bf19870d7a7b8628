import t from 'tap';
import { packTargets, unpackTargets } from '../../../src/api/events/log-targets.js';

// The packed form must give back exactly the list it was made from, whatever the numbers.
t.test('targets round-trip through their packed form', async (t) => {
  let seed = 12;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const cases: number[][] = [[], [0, 0, 1], [1, 2, 3], [5, 100, 1, 3, 90, 1, 4, 91, 2], [2 ** 40, 2 ** 45, 1, 0, 0, 7], [127, 128, 129, 16383, 16384, 1]];
  for (let i = 0; i < 500; i++) {
    const list: number[] = [];
    const n = Math.floor(random() * 80);
    const scale = [10, 1000, 1e6, 2 ** 31, 2 ** 50][Math.floor(random() * 5)];
    for (let k = 0; k < n; k++) list.push(Math.floor(random() * scale), Math.floor(random() * scale), random() < 0.8 ? 1 : 1 + Math.floor(random() * scale));
    cases.push(list);
  }
  let wrong = 0;
  t.ok(packTargets(cases[3]) instanceof Uint8Array, 'packed as bytes');
  for (const list of cases) {
    const packed = packTargets(list);
    if (JSON.stringify(unpackTargets(packed)) !== JSON.stringify(list)) {
      wrong++;
      t.same(unpackTargets(packed), list, `round trip of ${JSON.stringify(list).slice(0, 200)}`);
    }
  }
  t.equal(wrong, 0, `${cases.length} lists come back as they were`);
});

t.test('a channel message to 50 queues registered together packs small', async (t) => {
  const list: number[] = [];
  for (let i = 0; i < 50; i++) list.push(10 + i, 30_000 + (i % 3), 1);
  const packed = packTargets(list);
  t.ok(packed.length <= 110, `${packed.length} bytes for 50 queues`);
  t.same(unpackTargets(packed), list);
});

t.test('a row of an earlier version (a list) reads as it is', async (t) => {
  t.same(unpackTargets([3, 7, 1, 4, 9, 2]), [3, 7, 1, 4, 9, 2]);
});

t.test('truncated bytes are refused, not read as other queues', async (t) => {
  const packed = packTargets([300, 70_000, 1]);
  t.throws(() => unpackTargets(packed.subarray(0, packed.length - 1)), /truncated/);
});
