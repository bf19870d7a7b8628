import { createRequire } from 'node:module';
import t from 'tap';
import { open } from 'lmdb';
import { Packr } from 'msgpackr';
import { tempDir } from '../cli/run.js';

/**
 * One msgpackr in each thread: ours is the major version lmdb declares and is built and tested
 * against (1.x), so npm installs one copy, not a second beside lmdb's (0.7 MB of heap a thread:
 * bench/RESULTS.md, the idle6 session). lmdb's native writes read the buffers its encoder fills;
 * forcing lmdb onto our msgpackr 2.x instead was taken back after a native crash in CI (idle5).
 */
const require = createRequire(import.meta.url);

t.test('lmdb and the store code share one msgpackr', async (t) => {
  const fromLmdb = createRequire(require.resolve('lmdb')).resolve('msgpackr');
  t.equal(fromLmdb, require.resolve('msgpackr'), "lmdb's msgpackr is the one the store code imports");
  const env = open({ path: tempDir(t, 'one-msgpackr-') });
  t.teardown(() => env.close());
  const db = env.openDB({ name: 'rows', sharedStructuresKey: Symbol.for('structures') });
  t.ok((db as unknown as { encoder: unknown }).encoder instanceof Packr, "lmdb's encoder is an instance of that msgpackr's Packr");
  await db.put(1, { a: 1, b: 'two' });
  t.same(db.get(1), { a: 1, b: 'two' }, 'and a row reads back');
});
