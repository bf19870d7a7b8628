import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { open } from 'lmdb';
import { directoryPath } from '../store/directory.js';
import { checkLmdbFile, directoryFile, shardFile, shardFolders, StoreError } from '../store/integrity.js';
import { isAlive } from '../store/lock.js';
import { openShardStore } from '../store/shard-store.js';
import { uploadsDir } from '../store/uploads.js';
import { ZULIP_VERSION } from '../lib/version.js';
import { cliConfig, CliError } from './context.js';
import { auditCli } from './server-client.js';

/**
 * `stoa backup <dir>`, taken while the server runs.
 *
 * Each LMDB environment is copied by LMDB itself (mdb_env_copy2 with compaction): inside one read
 * transaction, so each copy is one consistent state of its store, written compactly. The realm
 * directory goes first, then each shard; no data links two shards (a realm lives on one), so
 * each realm is consistent. Then the files: the uploads, the finished data exports, the zuliprc
 * files.
 *
 * A backup is consistent with its store copies: every attachment a copied store records has its
 * file in the backup. A file is on disk before its row commits, so the files copied after a
 * store hold every file it names, unless one was deleted in between (its attachment deleted
 * after the store was copied). So the copied stores are read for the files they name, and a
 * shard whose files are not all there is copied again: its newer state no longer names the
 * deleted file. The manifest is written last; until then the copy is `<dir>.partial-<pid>` with
 * a marker file that `stoa check` reports, removed on any failure or SIGINT/SIGTERM, and by the
 * next backup to the same place if the process was killed.
 */
export const MANIFEST = 'stoa-backup.json';
/** In a backup being made: `stoa check` reports a directory holding it as an interrupted backup. */
export const INCOMPLETE = 'stoa-backup.incomplete';

/** How many times a shard is copied again before its files are given up on. */
const ATTEMPTS = 5;

export interface Manifest {
  format: 1;
  created: string;
  server: string;
  source: string;
  stores: { file: string; bytes: number }[];
  uploads: number;
}

export async function backup(target: string, check: (dir: string) => Promise<string | null>): Promise<void> {
  const { dataDir } = cliConfig();
  const dest = resolve(target);
  if (existsSync(dest) && readdirSync(dest).length > 0) throw new CliError(`${dest} is not empty: a backup goes into a new or empty directory`);
  if (!existsSync(directoryFile(dataDir))) throw new CliError(`${dataDir} holds no Stoa data to back up`);
  checkLmdbFile(directoryFile(dataDir));
  removeAbandoned(dest);
  const partial = `${dest}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  // The copy appears with its marker in it (a rename), so that a kill at any moment leaves
  // nothing that could pass for a backup.
  mkdirSync(`${partial}.new`, { recursive: true });
  writeFileSync(join(`${partial}.new`, INCOMPLETE), `an interrupted backup of ${dataDir} (process ${process.pid}); remove it\n`);
  renameSync(`${partial}.new`, partial);
  const interrupted = (signal: NodeJS.Signals) => {
    rmSync(partial, { recursive: true, force: true });
    console.error(`stoa: backup interrupted by ${signal}; nothing was kept`);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    const stores = await copyStores(dataDir, partial);
    const uploads = await copyFiles(dataDir, partial);
    await completeUploads(dataDir, partial, stores);
    const problem = await check(partial);
    if (problem) throw new CliError(`the copy does not check out:\n${problem}`);
    // Checking opened the copies, which leaves LMDB lock files: not part of a backup.
    for (const { file } of stores) rmSync(join(partial, file.replace(/data\.mdb$/, 'lock.mdb')), { force: true });
    const manifest: Manifest = { format: 1, created: new Date().toISOString(), server: `Stoa (Zulip API ${ZULIP_VERSION})`, source: dataDir, stores, uploads };
    writeFileSync(join(partial, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    rmSync(join(partial, INCOMPLETE));
    rmSync(dest, { recursive: true, force: true });
    renameSync(partial, dest);
    const bytes = stores.reduce((n, s) => n + s.bytes, 0);
    console.log(`Backed up ${dataDir} to ${dest}: ${stores.length} stores (${(bytes / 1048576).toFixed(1)} MiB, compacted), ${uploads} uploaded files`);
    await auditCli(dataDir, { event: 'backup', dest, stores: stores.length, bytes });
  } catch (err) {
    rmSync(partial, { recursive: true, force: true });
    // Known failures are one line (cli/stoa.ts); so is anything else the file system throws.
    if (err instanceof CliError || err instanceof StoreError) throw err;
    throw new CliError(`backup failed: ${(err as Error).message}`);
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  }
}

/** Copies of `dest` left by backups that were killed (their process is gone). */
function removeAbandoned(dest: string): void {
  const parent = dirname(dest);
  if (!existsSync(parent)) return;
  const prefix = `${basename(dest)}.partial-`;
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(/^\d+/.exec(name.slice(prefix.length))?.[0]);
    if (Number.isInteger(pid) && pid !== process.pid && !isAlive(pid)) rmSync(join(parent, name), { recursive: true, force: true });
  }
}

async function copyStores(dataDir: string, partial: string): Promise<Manifest['stores']> {
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
    await copyShard(dataDir, partial, shard);
    const file = join('shards', String(shard), 'data.mdb');
    stores.push({ file, bytes: statSync(join(partial, file)).size });
  }
  return stores;
}

async function copyShard(dataDir: string, partial: string, shard: number): Promise<void> {
  checkLmdbFile(shardFile(dataDir, shard));
  const into = join(partial, 'shards', String(shard));
  rmSync(into, { recursive: true, force: true });
  mkdirSync(into, { recursive: true });
  const store = openShardStore(dataDir, shard, true);
  try {
    await store.env.backup(into, true);
  } finally {
    await store.env.close();
  }
}

/**
 * The uploaded files (uploads/tmp holds requests' files in flight, not yet anyone's), the data
 * exports the stores list as complete (an archive being written is not one), the zuliprc files
 * and the push registration.
 * A file deleted while this runs is skipped. Returns how many uploaded files were copied.
 */
async function copyFiles(dataDir: string, partial: string): Promise<number> {
  const inFlight = join(uploadsDir(dataDir), 'tmp');
  const uploads = await copyTree(uploadsDir(dataDir), join(partial, 'uploads'), (src) => src !== inFlight);
  await copyTree(join(dataDir, 'exports'), join(partial, 'exports'), (src) => !src.endsWith('.partial'));
  // The push registration (its key is the server's password at the push notification service) goes with them.
  for (const name of readdirSync(dataDir).filter((n) => n === 'zuliprc' || n.endsWith('.zuliprc') || n === 'push-registration.json')) await copyFile(join(dataDir, name), join(partial, name));
  return uploads;
}

async function copyTree(from: string, to: string, keep: (src: string) => boolean): Promise<number> {
  let entries;
  try {
    entries = await readdir(from, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  await mkdir(to, { recursive: true });
  let files = 0;
  for (const entry of entries) {
    const src = join(from, entry.name);
    if (!keep(src)) continue;
    if (entry.isDirectory()) files += await copyTree(src, join(to, entry.name), keep);
    else if (await copyIfThere(src, join(to, entry.name))) files++;
  }
  return files;
}

async function copyIfThere(src: string, dest: string): Promise<boolean> {
  try {
    await copyFile(src, dest);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** The uploaded files a copied shard records (their path ids). */
async function namedFiles(partial: string, shard: number): Promise<string[]> {
  const store = openShardStore(partial, shard, true);
  try {
    const paths: string[] = [];
    for (const { key, value } of store.uploads.getRange({})) if ((key as unknown[])[1] === 'a') paths.push((value as { pathId: string }).pathId);
    return paths;
  } finally {
    await store.env.close();
  }
}

/** Makes every copied shard's attachments have their files in the copy (see the top). */
async function completeUploads(dataDir: string, partial: string, stores: Manifest['stores']): Promise<void> {
  for (const { file } of stores) {
    const match = /^shards\/(\d+)\/data\.mdb$/.exec(file);
    if (!match) continue;
    const shard = Number(match[1]);
    for (let attempt = 1; ; attempt++) {
      const missing: string[] = [];
      for (const pathId of await namedFiles(partial, shard)) {
        const dest = join(partial, 'uploads', ...pathId.split('/'));
        if (existsSync(dest)) continue;
        await mkdir(dirname(dest), { recursive: true });
        if (!(await copyIfThere(join(uploadsDir(dataDir), ...pathId.split('/')), dest))) missing.push(pathId);
      }
      if (missing.length === 0) break;
      if (attempt === ATTEMPTS) throw new CliError(`shard ${shard} records ${missing.length} uploaded file${missing.length > 1 ? 's' : ''} not on disk (uploads/${missing[0]}${missing.length > 1 ? ', ...' : ''}); stoa check names them`);
      // Deleted since the shard was copied: a newer copy no longer records them.
      await copyShard(dataDir, partial, shard);
      stores.find((s) => s.file === file)!.bytes = statSync(join(partial, file)).size;
    }
  }
}
