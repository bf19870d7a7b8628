import { readFileSync } from 'node:fs';
import t from 'tap';
import { open } from 'lmdb';
import { openShardStore, shardPath, type ShardTable } from '../../src/store/shard-store.js';
import { tempDir } from '../cli/run.js';

/**
 * Nothing on disk may change when the store's encoder does (lmdb's msgpackr, or an upgrade of
 * either). Rows as the build at 843adce wrote them (test/fixtures/store/README.md), with each
 * table's shared structures, are read by the current code as that build read them, and written
 * again they are the same bytes. (lmdb on msgpackr 2.x instead of its own 1.12.1 passed this,
 * then a test process crashed with SIGSEGV in its CI run: the store and lmdb share the 1.x that
 * lmdb declares, test/store/one-msgpackr.test.ts.)
 */
interface Fixture {
  [table: string]: { structures: string | null; rows: { key: unknown; bytes: string; value: unknown }[] };
}
const fixture = JSON.parse(readFileSync(new URL('../../../test/fixtures/store/rows-843adce.json', import.meta.url), 'utf8')) as Fixture;
const STRUCTURES = Symbol.for('structures');

/** A value as the fixture holds it: JSON, with byte strings and undefined tagged. */
function tagged(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, function (this: Record<string, unknown>, k, x) {
      const raw = this[k];
      if (raw instanceof Uint8Array) return { $bytes: Buffer.from(raw).toString('base64') };
      if (raw === undefined && k !== '') return { $undefined: true };
      return x;
    }),
  );
}

t.test('rows written by an earlier build read and write as before', async (t) => {
  const dataDir = tempDir(t, 'stoa-old-rows-');
  // The old rows' bytes, as they were on disk.
  const raw = open({ path: shardPath(dataDir, 0), maxDbs: 64 });
  for (const [name, table] of Object.entries(fixture)) {
    const db = raw.openDB({ name, encoding: 'binary' });
    if (table.structures) db.putSync(STRUCTURES, Buffer.from(table.structures, 'base64'));
    for (const row of table.rows) db.putSync(row.key as never, Buffer.from(row.bytes, 'base64'));
  }
  await raw.close();

  const store = openShardStore(dataDir, 0);
  let rows = 0;
  let withStructures = 0;
  for (const [name, table] of Object.entries(fixture)) {
    const db = store[name as ShardTable];
    for (const row of table.rows) {
      const value = db.get(row.key as never);
      t.same(tagged(value), row.value, `${name} ${JSON.stringify(row.key)}: the value the old build read`);
      // Written again, over itself: the encoder finds the table's structures and writes the same bytes.
      db.putSync(row.key as never, value);
      t.equal(Buffer.from(db.getBinary(row.key as never)!).toString('base64'), row.bytes, `${name} ${JSON.stringify(row.key)}: the same bytes written again`);
      rows++;
    }
    if (table.structures) {
      withStructures++;
      t.equal(Buffer.from(db.getBinary(STRUCTURES)!).toString('base64'), table.structures, `${name}: its shared structures unchanged`);
    }
  }
  t.ok(rows >= 150 && withStructures >= 8, `${rows} rows of ${Object.keys(fixture).length} tables, ${withStructures} with shared structures`);
  await store.env.close();
});
