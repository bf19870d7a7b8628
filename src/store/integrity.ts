import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Checks of a data directory's LMDB files that need no LMDB: what must hold before a process
 * maps a file, because LMDB trusts what it maps. A data.mdb cut short makes the first read past
 * its end a SIGBUS, and garbled meta pages a SIGSEGV, both with nothing in the log; an empty or
 * missing file is quietly initialised as a new, empty database. So the server (and every CLI
 * command) runs these first and refuses, naming the file and the problem.
 *
 * What is checked, from the two meta pages at the head of the file (LMDB writes them
 * alternately; the one with the higher transaction id is current):
 *   - the LMDB signature and data version are there;
 *   - the page size is sane;
 *   - the file is long enough to hold every page the current meta says is in use, and the two
 *     B-tree roots lie within it.
 * Damage inside the trees is found only by reading them: `stoa check` does that (cli/check.ts).
 */
export class StoreError extends Error {
  override name = 'StoreError';

  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
  }
}

const MAGIC = 0xbeefc0de;
const DATA_VERSION = 2;
/** Where the meta record starts in a meta page: after the page header (24 bytes in lmdb-js's LMDB, 16 in older builds). */
const META_OFFSETS = [24, 16];
const NO_PAGE = 0xffffffffffffffffn;

interface Meta {
  psize: number;
  lastPage: bigint;
  txnId: bigint;
  roots: bigint[];
}

function readMeta(page: Buffer): Meta | null {
  for (const at of META_OFFSETS) {
    if (page.length < at + 136 || page.readUInt32LE(at) !== MAGIC || page.readUInt32LE(at + 4) !== DATA_VERSION) continue;
    // mm_address (8), mm_mapsize (8), then two MDB_db of 48 bytes (the free-page tree and the
    // main tree, each ending with its root), then mm_last_pg and mm_txnid.
    const dbs = at + 24;
    return {
      psize: page.readUInt32LE(dbs),
      roots: [page.readBigUInt64LE(dbs + 40), page.readBigUInt64LE(dbs + 88)],
      lastPage: page.readBigUInt64LE(dbs + 96),
      txnId: page.readBigUInt64LE(dbs + 104),
    };
  }
  return null;
}

/** Throws a StoreError when `file` (an LMDB data.mdb) is missing, empty, truncated or has damaged meta pages. */
export function checkLmdbFile(file: string): void {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (err) {
    throw new StoreError(file, (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : `cannot be read: ${(err as Error).message}`);
  }
  if (size === 0) throw new StoreError(file, 'empty (0 bytes): the database was truncated or never written');
  const head = Buffer.alloc(Math.min(size, 2 * 65536));
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const first = readMeta(head);
  if (!first) throw new StoreError(file, 'not a readable LMDB database: its first meta page is damaged (no LMDB signature)');
  const { psize } = first;
  if (psize < 512 || psize > 65536 || (psize & (psize - 1)) !== 0) throw new StoreError(file, `damaged meta page: page size ${psize}`);
  if (size < 2 * psize) throw new StoreError(file, `truncated: ${size} bytes, less than its two meta pages`);
  const second = readMeta(head.subarray(psize));
  if (!second) throw new StoreError(file, 'not a readable LMDB database: its second meta page is damaged (no LMDB signature)');
  const meta = second.txnId > first.txnId ? second : first;
  const needed = (meta.lastPage + 1n) * BigInt(psize);
  if (BigInt(size) < needed) {
    throw new StoreError(file, `truncated: ${size} bytes, but its last committed transaction uses ${needed} (${meta.lastPage + 1n} pages of ${psize})`);
  }
  for (const root of meta.roots) {
    if (root !== NO_PAGE && root > meta.lastPage) throw new StoreError(file, `damaged meta page: a tree root (page ${root}) lies past the last page (${meta.lastPage})`);
  }
}

export const directoryFile = (dataDir: string) => join(dataDir, 'directory', 'data.mdb');
// (directory.ts and shard-store.ts name the folders; these name the data files in them.)
export const shardFile = (dataDir: string, shard: number) => join(dataDir, 'shards', String(shard), 'data.mdb');

/** The shard numbers that have a folder under <dataDir>/shards. */
export function shardFolders(dataDir: string): number[] {
  const dir = join(dataDir, 'shards');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .sort((a, b) => a - b);
}

/** The shards whose folder holds a store (its data.mdb). */
export const shardStores = (dataDir: string): number[] => shardFolders(dataDir).filter((shard) => existsSync(shardFile(dataDir, shard)));

/**
 * Before the realm directory is opened: on a data directory that holds any store, the directory
 * must be there (opening creates a missing one, empty, which would forget every realm).
 */
export function checkDirectoryFile(dataDir: string): void {
  const file = directoryFile(dataDir);
  if (!existsSync(file)) {
    const stores = shardStores(dataDir);
    if (stores.length === 0) return;
    throw new StoreError(file, `missing, while shards/${stores.join(', shards/')} hold data: the realm directory was removed or moved (restore it, or restore a backup: stoa restore)`);
  }
  checkLmdbFile(file);
}

/**
 * After the directory is open: every shard it places a realm on must have its store, and every
 * store present must be whole. `realms` is the directory's list.
 */
export function checkShardFiles(dataDir: string, realms: { subdomain: string; shard: number }[]): void {
  const used = new Map<number, string[]>();
  for (const { subdomain, shard } of realms) used.set(shard, [...(used.get(shard) ?? []), subdomain === '' ? "''" : subdomain]);
  for (const [shard, names] of [...used].sort((a, b) => a[0] - b[0])) {
    const file = shardFile(dataDir, shard);
    if (!existsSync(file)) throw new StoreError(file, `missing: the realm directory places realm${names.length > 1 ? 's' : ''} ${names.join(', ')} on shard ${shard}`);
  }
  for (const shard of shardFolders(dataDir)) {
    const file = shardFile(dataDir, shard);
    if (existsSync(file) || used.has(shard)) checkLmdbFile(file);
  }
}
