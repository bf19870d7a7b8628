import { statSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import { DIRECTORY_TABLES, LOAD_TABLES, type ProbeLine } from './probe.js';
import { directoryPath } from './directory.js';
import { openShardStore, shardPath, type Key, type ShardTable } from './shard-store.js';

/**
 * The child process of store/probe.ts: opens stores read-only and reads their tables, saying
 * on stdout what it is about to read before it reads it. A damaged page can crash a process
 * that maps it (SIGBUS, SIGSEGV), so this runs in a process of its own, and its last line names
 * the file and table where the damage is.
 *
 *   node probe-child.js <load|full> <dataDir> <directory|shard:N[@skip=table,...]>...
 *
 * A table whose read crashed the reader is skipped when the reader is started again (`@skip`).
 * Besides reading, a table's rows are counted against the count its B-tree keeps: a garbled page
 * can end a range read early without any error.
 */
const [mode, dataDir, ...specs] = process.argv.slice(2);
const say = (line: ProbeLine) => process.stdout.write(`${JSON.stringify(line)}\n`);

/** Missing or wrong-sized files of attachments reported one by one, up to this many. */
const MAX_FILE_PROBLEMS = 10;

type Attachment = { id: number; pathId: string; size: number };

const STRUCTURES = Symbol.for('structures');

function readTable(file: string, table: string, db: Database, env: RootDatabase): void {
  say({ file, table, step: 'read' });
  let rows = 0;
  const realmIds: number[] = [];
  const suspects: [unknown, Attachment][] = [];
  // Iterated by hand: the cursor of a read that fails must be closed (for..of leaves it open,
  // holding the broken read transaction for the tables after it).
  const range = db.getRange({})[Symbol.iterator]();
  try {
    // Values are decoded too: a page can be whole and its msgpack not.
    for (let next = range.next(); !next.done; next = range.next()) {
      const { key, value } = next.value;
      rows++;
      if (table === 'realms' && value && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'number') realmIds.push((value as { id: number }).id);
      if (table === 'uploads' && mode === 'full' && (key as unknown[])[1] === 'a' && fileProblem(value as Attachment)) suspects.push([key, value as Attachment]);
    }
    // The shared-structures row of msgpack (a table of records has one) is in the tree's count
    // but in no range read.
    const counted = (db.getStats() as { entryCount: number }).entryCount - (db.get(STRUCTURES as unknown as Key) === undefined ? 0 : 1);
    if (counted !== rows) say({ file, table, step: 'error', message: `damaged: ${rows} rows read where its tree counts ${counted} (a page read as the end of the table)` });
    if (suspects.length > 0) checkAgain(file, db, suspects);
    say({ file, table, step: 'done', rows, realmIds: table === 'realms' ? realmIds : undefined });
  } catch (err) {
    say({ file, table, step: 'error', message: (err as Error).message });
    // LMDB leaves a read transaction that met damage unusable: the next table gets a fresh one.
    try {
      range.return?.();
    } catch {
      // the cursor is as broken as its transaction
    }
    env.resetReadTxn();
  }
}

/** Every attachment a store records must have its file under <dataDir>/uploads, whole. */
function fileProblem(rec: Attachment): string | null {
  try {
    const size = statSync(join(dataDir, 'uploads', ...String(rec.pathId).split('/'))).size;
    return size === rec.size ? null : `is ${size} bytes, the attachment ${rec.size}`;
  } catch {
    return 'is missing';
  }
}

/**
 * A live server may have deleted an attachment after the range read's snapshot, and its file
 * with it: only what a fresh read still records is a problem.
 */
function checkAgain(file: string, db: Database, suspects: [unknown, Attachment][]): void {
  db.resetReadTxn();
  let problems = 0;
  for (const [key] of suspects) {
    const rec = db.get(key as Key) as Attachment | undefined;
    const problem = rec && fileProblem(rec);
    if (!problem || ++problems > MAX_FILE_PROBLEMS) continue;
    say({ file, table: 'uploads', step: 'error', message: `the file of attachment ${rec.id} (uploads/${rec.pathId}) ${problem}`, upload: true });
  }
  if (problems > MAX_FILE_PROBLEMS) say({ file, table: 'uploads', step: 'error', message: `${problems - MAX_FILE_PROBLEMS} more attachments with a missing or damaged file`, upload: true });
}

for (const arg of specs) {
  const [spec, skipping] = arg.split('@skip=');
  const skip = new Set(skipping ? skipping.split(',') : []);
  const shard = spec.startsWith('shard:') ? Number(spec.slice(6)) : null;
  const file = `${shard === null ? directoryPath(dataDir) : shardPath(dataDir, shard)}/data.mdb`;
  say({ file, table: null, step: 'open' });
  let env: RootDatabase | null = null;
  try {
    if (shard === null) {
      env = open({ path: directoryPath(dataDir), maxDbs: 4, readOnly: true });
      for (const name of DIRECTORY_TABLES) if (!skip.has(name)) readTable(file, name, env.openDB({ name }), env);
    } else {
      const store = openShardStore(dataDir, shard, true);
      env = store.env;
      const tables = mode === 'full' ? (Object.keys(store).filter((k) => k !== 'env') as ShardTable[]) : LOAD_TABLES;
      for (const name of tables) if (!skip.has(name)) readTable(file, name, store[name], env);
    }
  } catch (err) {
    say({ file, table: null, step: 'error', message: (err as Error).message });
  }
  await env?.close();
}
say({ file: '', table: null, step: 'end' });
