import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { directoryFile, shardFile, shardFolders, StoreError } from './integrity.js';
import type { Directory } from './directory.js';
import { moveFlipsOfDataDir } from './format-flips.js';

/**
 * The data format version of a data directory, recorded in the realm directory's meta table.
 * A server that finds an older format upgrades the data on start, after copying the stores
 * aside; one that finds a newer format refuses to start: it would misread, and then overwrite,
 * data it does not understand.
 *
 * Format history (raise STORE_FORMAT and add a step to UPGRADES when stored data changes shape
 * in a way the code that reads it cannot take as it is):
 *   1  data directories made before the version was recorded (Stoa 0.1.0)
 *   2  the version is recorded; nothing else changed
 *   3  read flips are per-user sets of ids in blocks (store/flips.ts), no longer a uflags bit with
 *      a uflagUsers and a uflagIdx row each (store/format-flips.ts moves them)
 */
export const STORE_FORMAT = 3;

interface Upgrade {
  /** What the step changes, for the start's message. */
  what: string;
  run(dataDir: string, directory: Directory): Promise<void>;
}

/** UPGRADES[n] takes a data directory from format n to n + 1. */
const UPGRADES: Record<number, Upgrade> = {
  1: { what: 'records the format version', run: async () => {} },
  2: { what: 'stores read flips as per-user sets of ids', run: (dataDir) => moveFlipsOfDataDir(dataDir) },
};

export class StoreFormatError extends StoreError {}

/**
 * Brings a data directory to STORE_FORMAT, or refuses a newer one. Runs before any shard opens
 * its store, with the data-directory lock held, so nothing writes while the stores are copied.
 * Returns what an operator should be told.
 */
export async function ensureStoreFormat(dataDir: string, directory: Directory, upgrades: Record<number, Upgrade> = UPGRADES, current = STORE_FORMAT): Promise<string[]> {
  const recorded = directory.format();
  const fresh = recorded === undefined && directory.list().length === 0 && shardFolders(dataDir).length === 0;
  if (fresh) {
    await directory.setFormat(current);
    return [];
  }
  const found = recorded ?? 1;
  if (found > current) {
    throw new StoreFormatError(
      directoryFile(dataDir),
      `data format ${found} is newer than this server's (${current}): it was written by a newer Stoa. Run that version (or a newer one), or restore a backup taken before the upgrade (upgrade-backups/ holds the copy an upgrade made)`,
    );
  }
  if (found === current) return [];
  const backup = copyStores(dataDir, found);
  const done: string[] = [];
  for (let version = found; version < current; version++) {
    const step = upgrades[version];
    if (!step) throw new StoreFormatError(directoryFile(dataDir), `no upgrade from data format ${version}; the stores as they were are in ${backup}`);
    await step.run(dataDir, directory);
    await directory.setFormat(version + 1);
    done.push(`${version} -> ${version + 1}: ${step.what}`);
  }
  return [`upgraded the data from format ${found} to ${current} (${done.join('; ')}); the stores as they were are in ${backup}`];
}

/**
 * Copies the stores' files (the realm directory and every shard) into
 * <dataDir>/upgrade-backups/format-<n>-<time>/. No process writes them now (the lock is held
 * and no shard is open), so a plain file copy is a consistent one. Uploaded files and exports
 * are not copied: no upgrade changes them.
 */
function copyStores(dataDir: string, format: number): string {
  const dest = join(dataDir, 'upgrade-backups', `format-${format}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(join(dest, 'directory'), { recursive: true });
  cpSync(directoryFile(dataDir), join(dest, 'directory', 'data.mdb'));
  for (const shard of shardFolders(dataDir)) {
    if (!existsSync(shardFile(dataDir, shard))) continue;
    mkdirSync(join(dest, 'shards', String(shard)), { recursive: true });
    cpSync(shardFile(dataDir, shard), join(dest, 'shards', String(shard), 'data.mdb'));
  }
  writeFileSync(
    join(dest, 'README'),
    `The stores of ${dataDir} in data format ${format}, copied before a newer Stoa upgraded them.\n` +
      'To go back: stop the server, put the older Stoa back, and copy directory/ and shards/ from here over the\n' +
      'data directory\'s (keep uploads/ and exports/ as they are).\n',
  );
  return dest;
}
