import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { open } from 'lmdb';
import { directoryPath } from '../store/directory.js';
import { checkLmdbFile, directoryFile, shardFile, shardFolders, StoreError } from '../store/integrity.js';
import { acquireLock, DataDirLockedError } from '../store/lock.js';
import { probeStores, type ProbeProblem } from '../store/probe.js';
import { backup, INCOMPLETE, MANIFEST, type Manifest } from './backup.js';
import { cliConfig, CliError } from './context.js';

/**
 * Backups: `stoa backup` (cli/backup.ts), `stoa restore`, `stoa check`.
 */

/** The files of a data directory that hold its state: the stores, the uploads, the data exports, the zuliprc files, the push registration. */
function stateEntries(dataDir: string): string[] {
  if (!existsSync(dataDir)) return [];
  return readdirSync(dataDir).filter((name) => ['directory', 'shards', 'uploads', 'exports', 'push-registration.json'].includes(name) || name === 'zuliprc' || name.endsWith('.zuliprc'));
}

function describeProblems(problems: ProbeProblem[]): string {
  return problems.map((p) => `  ${p.file}${p.table && !p.problem.includes(p.table) ? ` (table ${p.table})` : ''}: ${p.problem}`).join('\n');
}

/**
 * Every problem with a data directory's stores: their headers, then reading every table (and
 * finding every attachment's file). A backup still being made (`ownBackup`) is not reported as
 * one that was interrupted.
 */
export async function checkDataDir(dataDir: string, ownBackup = false): Promise<{ problems: ProbeProblem[]; stores: number; rows: number }> {
  const problems: ProbeProblem[] = [];
  const interrupted = !ownBackup && existsSync(join(dataDir, INCOMPLETE));
  if (interrupted) problems.push({ file: join(dataDir, INCOMPLETE), table: null, problem: 'an interrupted backup, never completed: do not restore it; remove it' });
  const shards = shardFolders(dataDir).map((k) => shardFile(dataDir, k));
  if (!existsSync(directoryFile(dataDir)) && !shards.some((file) => existsSync(file))) {
    if (interrupted) return { problems, stores: 0, rows: 0 };
    throw new CliError(`${dataDir} holds no Stoa data`);
  }
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
    .action((dir: string) => backup(dir, async (copy) => {
      const { problems } = await checkDataDir(copy, true);
      return problems.length > 0 ? describeProblems(problems) : null;
    }));
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
