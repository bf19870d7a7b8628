import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { open } from 'lmdb';
import { directoryPath } from '../store/directory.js';
import { checkLmdbFile, directoryFile, shardFile, shardFolders, StoreError } from '../store/integrity.js';
import { acquireLock, DataDirLockedError } from '../store/lock.js';
import { probeStores, type ProbeProblem } from '../store/probe.js';
import { openShardStore } from '../store/shard-store.js';
import { uploadsDir } from '../store/uploads.js';
import { ZULIP_VERSION } from '../version.js';
import { auditCli } from './server-client.js';
import { cliConfig, CliError } from './context.js';

/**
 * Backups: `stoa backup`, `stoa restore`, `stoa check`.
 *
 * A backup is taken while the server runs. Each LMDB environment is copied by LMDB itself
 * (mdb_env_copy2 with compaction): inside one read transaction, so each copy is one consistent
 * state of its store, written compactly (free pages dropped). The realm directory goes first,
 * then each shard, then the uploaded files: every file a copied shard records was on disk
 * before its row was committed, so it is in the copy. Shards are copied one after the other, so
 * the copy of shard 1 may be a moment newer than shard 0's; no data links two shards (a realm
 * lives on one), so each realm is consistent. The manifest is written last: a backup without
 * one was interrupted.
 */
const MANIFEST = 'stoa-backup.json';

interface Manifest {
  format: 1;
  created: string;
  server: string;
  source: string;
  stores: { file: string; bytes: number }[];
  uploads: number;
}

/** The files of a data directory that hold its state: the stores, the uploads, the data exports, the zuliprc files, the push registration. */
function stateEntries(dataDir: string): string[] {
  if (!existsSync(dataDir)) return [];
  return readdirSync(dataDir).filter((name) => ['directory', 'shards', 'uploads', 'exports', 'push-registration.json'].includes(name) || name === 'zuliprc' || name.endsWith('.zuliprc'));
}

function countFiles(dir: string): number {
  if (!existsSync(dir)) return 0;
  let n = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) n += entry.isDirectory() ? countFiles(join(dir, entry.name)) : 1;
  return n;
}

function describeProblems(problems: ProbeProblem[]): string {
  return problems.map((p) => `  ${p.file}${p.table && !p.problem.includes(p.table) ? ` (table ${p.table})` : ''}: ${p.problem}`).join('\n');
}

/** Every problem with a data directory's stores: their headers, then reading every table. */
export async function checkDataDir(dataDir: string): Promise<{ problems: ProbeProblem[]; stores: number; rows: number }> {
  const problems: ProbeProblem[] = [];
  const shards = shardFolders(dataDir).map((k) => shardFile(dataDir, k));
  if (!existsSync(directoryFile(dataDir)) && !shards.some((file) => existsSync(file))) throw new CliError(`${dataDir} holds no Stoa data`);
  // The directory must be there; a shard folder without its file is reported too.
  const present = [directoryFile(dataDir), ...shards];
  const damaged = new Set<string>();
  for (const file of present) {
    try {
      checkLmdbFile(file);
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
      problems.push({ file, table: null, problem: err.problem });
      damaged.add(file);
    }
  }
  const report = await probeStores(dataDir, 'full', (file) => !damaged.has(file));
  problems.push(...report.problems);
  // Every realm the directory lists must be in its shard.
  const listed = report.realmIds.get(directoryFile(dataDir));
  if (listed !== undefined && !damaged.has(directoryFile(dataDir))) {
    const env = open({ path: directoryPath(dataDir), maxDbs: 4, readOnly: true });
    try {
      for (const { value } of env.openDB({ name: 'realms' }).getRange({})) {
        const entry = value as { id: number; subdomain: string; shard: number };
        const file = shardFile(dataDir, entry.shard);
        if (damaged.has(file)) continue;
        if (!existsSync(file)) problems.push({ file, table: null, problem: `missing: the directory places realm "${entry.subdomain}" here` });
        else if (!(report.realmIds.get(file) ?? []).includes(entry.id)) problems.push({ file, table: 'realms', problem: `realm "${entry.subdomain}" (id ${entry.id}) is in the directory but not in its shard` });
      }
    } finally {
      await env.close();
    }
  }
  let rows = 0;
  for (const byTable of report.rows.values()) for (const n of byTable.values()) rows += n;
  return { problems, stores: present.length, rows };
}

async function backup(target: string): Promise<void> {
  const { dataDir } = cliConfig();
  const dest = resolve(target);
  if (existsSync(dest) && readdirSync(dest).length > 0) throw new CliError(`${dest} is not empty: a backup goes into a new or empty directory`);
  if (!existsSync(directoryFile(dataDir))) throw new CliError(`${dataDir} holds no Stoa data to back up`);
  checkLmdbFile(directoryFile(dataDir));
  const partial = `${dest}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  try {
    const stores: Manifest['stores'] = [];
    mkdirSync(join(partial, 'directory'));
    const directory = open({ path: directoryPath(dataDir), maxDbs: 4, readOnly: true });
    try {
      // LMDB writes data.mdb into the folder it is given.
      await directory.backup(join(partial, 'directory'), true);
    } finally {
      await directory.close();
    }
    stores.push({ file: 'directory/data.mdb', bytes: statSync(join(partial, 'directory', 'data.mdb')).size });
    for (const shard of shardFolders(dataDir)) {
      if (!existsSync(shardFile(dataDir, shard))) continue;
      checkLmdbFile(shardFile(dataDir, shard));
      const file = join('shards', String(shard), 'data.mdb');
      mkdirSync(join(partial, 'shards', String(shard)), { recursive: true });
      const store = openShardStore(dataDir, shard, true);
      try {
        await store.env.backup(join(partial, 'shards', String(shard)), true);
      } finally {
        await store.env.close();
      }
      stores.push({ file, bytes: statSync(join(partial, file)).size });
    }
    // After the stores: every file they record was written before its row.
    // (uploads/tmp holds requests' files in flight, not yet anyone's.)
    const inFlight = join(uploadsDir(dataDir), 'tmp');
    if (existsSync(uploadsDir(dataDir))) cpSync(uploadsDir(dataDir), join(partial, 'uploads'), { recursive: true, filter: (src) => resolve(src) !== inFlight });
    // Data exports the stores list as complete (an archive still being written is not one).
    const exportsRoot = join(dataDir, 'exports');
    if (existsSync(exportsRoot)) cpSync(exportsRoot, join(partial, 'exports'), { recursive: true, filter: (src) => !src.endsWith('.partial') });
    // The push registration (its key is the server's password at the push notification service) goes with them.
    for (const name of stateEntries(dataDir).filter((n) => n.endsWith('zuliprc') || n === 'push-registration.json')) cpSync(join(dataDir, name), join(partial, name));
    const { problems } = await checkDataDir(partial);
    if (problems.length > 0) throw new CliError(`the copy does not check out:\n${describeProblems(problems)}`);
    // Checking opened the copies, which leaves LMDB lock files: not part of a backup.
    for (const { file } of stores) rmSync(join(partial, file.replace(/data\.mdb$/, 'lock.mdb')), { force: true });
    const manifest: Manifest = { format: 1, created: new Date().toISOString(), server: `Stoa (Zulip API ${ZULIP_VERSION})`, source: dataDir, stores, uploads: countFiles(join(partial, 'uploads')) };
    writeFileSync(join(partial, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    rmSync(dest, { recursive: true, force: true });
    renameSync(partial, dest);
    const bytes = stores.reduce((n, s) => n + s.bytes, 0);
    console.log(`Backed up ${dataDir} to ${dest}: ${stores.length} stores (${(bytes / 1048576).toFixed(1)} MiB, compacted), ${manifest.uploads} uploaded files`);
    await auditCli(dataDir, { event: 'backup', dest, stores: stores.length, bytes });
  } catch (err) {
    rmSync(partial, { recursive: true, force: true });
    throw err;
  }
}

async function restore(source: string, opts: { force?: boolean }): Promise<void> {
  const { dataDir } = cliConfig();
  const from = resolve(source);
  if (!existsSync(join(from, MANIFEST))) throw new CliError(`${from} is not a complete Stoa backup (no ${MANIFEST}; an interrupted backup has none)`);
  const manifest = JSON.parse(readFileSync(join(from, MANIFEST), 'utf8')) as Manifest;
  const { problems } = await checkDataDir(from);
  if (problems.length > 0) throw new CliError(`the backup does not check out:\n${describeProblems(problems)}`);
  mkdirSync(dataDir, { recursive: true });
  let lock;
  try {
    lock = acquireLock(dataDir);
  } catch (err) {
    if (err instanceof DataDirLockedError) throw new CliError(`the server is running (pid ${err.pid}); stop it first`);
    throw err;
  }
  try {
    const existing = stateEntries(dataDir);
    let movedTo: string | null = null;
    if (existing.length > 0) {
      if (!opts.force) throw new CliError(`${dataDir} already holds data (${existing.join(', ')}); --force moves it aside first, to ${dataDir}/replaced-<time>/`);
      // Never deleted: moved into the data directory, where a mistaken restore can be undone.
      movedTo = join(dataDir, `replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`);
      mkdirSync(movedTo);
      for (const name of existing) renameSync(join(dataDir, name), join(movedTo, name));
    }
    const staging = join(dataDir, `.restoring-${process.pid}`);
    rmSync(staging, { recursive: true, force: true });
    cpSync(from, staging, { recursive: true, filter: (src) => basename(src) !== MANIFEST && basename(src) !== 'lock.mdb' });
    for (const name of readdirSync(staging)) renameSync(join(staging, name), join(dataDir, name));
    rmSync(staging, { recursive: true, force: true });
    console.log(`Restored the backup of ${manifest.created} into ${dataDir}${movedTo ? `; what was there is in ${movedTo}` : ''}`);
  } finally {
    lock.release();
  }
}

async function check(dir: string | undefined): Promise<void> {
  const dataDir = dir ? resolve(dir) : cliConfig().dataDir;
  const { problems, stores, rows } = await checkDataDir(dataDir);
  if (problems.length > 0) {
    console.error(`${dataDir}: ${problems.length} problem${problems.length > 1 ? 's' : ''}:\n${describeProblems(problems)}`);
    process.exitCode = 1;
    return;
  }
  console.log(`${dataDir}: ok (${stores} stores, ${rows} rows read)`);
}

export function storeCommands(program: Command): void {
  program
    .command('backup')
    .description('Copy the data directory into <dir> (new or empty), consistently, while the server runs: LMDB copies each store, compacted; then the uploads and zuliprc files')
    .argument('<dir>', 'where the backup goes')
    .action((dir: string) => backup(dir));
  program
    .command('restore')
    .description('Put a backup made by `stoa backup` back as the data directory (the server must be stopped)')
    .argument('<dir>', 'the backup')
    .option('--force', 'move data already in the data directory aside (to replaced-<time>/) instead of refusing')
    .action((dir: string, opts: { force?: boolean }) => restore(dir, opts));
  program
    .command('check')
    .description('Verify a data directory (default: the configured one) or a backup: every store readable, every realm in its shard. Exit status 1 on any problem')
    .argument('[dir]', 'the data directory or backup to check')
    .action((dir: string | undefined) => check(dir));
}
