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
 *   node probe-child.js <load|full> <dataDir> <directory|shard:N>...
 */
const [mode, dataDir, ...specs] = process.argv.slice(2);
const say = (line: ProbeLine) => process.stdout.write(`${JSON.stringify(line)}\n`);

/** Missing or wrong-sized files of attachments reported one by one, up to this many. */
const MAX_FILE_PROBLEMS = 10;

type Attachment = { id: number; pathId: string; size: number };

function readTable(file: string, table: string, db: Database): void {
  say({ file, table, step: 'read' });
  let rows = 0;
  const realmIds: number[] = [];
  const suspects: [unknown, Attachment][] = [];
  try {
    // Values are decoded too: a page can be whole and its msgpack not.
    for (const { key, value } of db.getRange({})) {
      rows++;
      if (table === 'realms' && value && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'number') realmIds.push((value as { id: number }).id);
      if (table === 'uploads' && mode === 'full' && (key as unknown[])[1] === 'a' && fileProblem(value as Attachment)) suspects.push([key, value as Attachment]);
    }
    if (suspects.length > 0) checkAgain(file, db, suspects);
    say({ file, table, step: 'done', rows, realmIds: table === 'realms' ? realmIds : undefined });
  } catch (err) {
    say({ file, table, step: 'error', message: (err as Error).message });
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
    say({ file, table: 'uploads', step: 'error', message: `the file of attachment ${rec.id} (uploads/${rec.pathId}) ${problem}` });
  }
  if (problems > MAX_FILE_PROBLEMS) say({ file, table: 'uploads', step: 'error', message: `${problems - MAX_FILE_PROBLEMS} more attachments with a missing or damaged file` });
}

for (const spec of specs) {
  const shard = spec.startsWith('shard:') ? Number(spec.slice(6)) : null;
  const file = `${shard === null ? directoryPath(dataDir) : shardPath(dataDir, shard)}/data.mdb`;
  say({ file, table: null, step: 'open' });
  let env: RootDatabase | null = null;
  try {
    if (shard === null) {
      env = open({ path: directoryPath(dataDir), maxDbs: 4, readOnly: true });
      for (const name of DIRECTORY_TABLES) readTable(file, name, env.openDB({ name }));
    } else {
      const store = openShardStore(dataDir, shard, true);
      env = store.env;
      const tables = mode === 'full' ? (Object.keys(store).filter((k) => k !== 'env') as ShardTable[]) : LOAD_TABLES;
      for (const name of tables) readTable(file, name, store[name]);
    }
  } catch (err) {
    say({ file, table: null, step: 'error', message: (err as Error).message });
  }
  await env?.close();
}
say({ file: '', table: null, step: 'end' });
