import { open, type Database, type RootDatabase } from 'lmdb';
import { DIRECTORY_TABLES, LOAD_TABLES, type ProbeLine } from './probe.js';
import { directoryPath } from './directory.js';
import { openShardStore, shardPath, type ShardTable } from './shard-store.js';

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

function readTable(file: string, table: string, db: Database): void {
  say({ file, table, step: 'read' });
  let rows = 0;
  const realmIds: number[] = [];
  try {
    // Values are decoded too: a page can be whole and its msgpack not.
    for (const { value } of db.getRange({})) {
      rows++;
      if (table === 'realms' && value && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'number') realmIds.push((value as { id: number }).id);
    }
    say({ file, table, step: 'done', rows, realmIds: table === 'realms' ? realmIds : undefined });
  } catch (err) {
    say({ file, table, step: 'error', message: (err as Error).message });
  }
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
