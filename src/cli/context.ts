import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, resolveConfig, type Config, type ResolvedConfig } from '../lib/config.js';
import { auditToStderr, setLogLevel } from '../lib/log.js';
import type { RealmState } from '../model/realm-state.js';
import { Shard } from '../shard/shard.js';
import { MessageIds } from '../store/message-ids.js';
import { idsAcrossShards } from '../store/server-ids.js';
import { Directory, type DirectoryEntry } from '../store/directory.js';
import { checkDirectoryFile, checkShardFiles } from '../store/integrity.js';
import { acquireLock, DataDirLockedError } from '../store/lock.js';
import { ensureStoreFormat } from '../store/format.js';

/** An error the CLI reports as one line (`stoa: <message>`) with exit status 1. */
export class CliError extends Error {}

/**
 * The server's own configuration (config/default.json, STOA_CONFIG, STOA_*), resolved with the
 * configured port: realm URLs written to zuliprc files must be the ones the server answers at.
 * With port 0 and no externalHost those URLs are unknowable; `needUrls` refuses that case.
 */
export function cliConfig(needUrls = false): ResolvedConfig {
  const config = loadConfig();
  setLogLevel(config.logLevel);
  auditToStderr();
  if (needUrls && !knownUrls(config)) {
    throw new CliError('the port is 0 and externalHost is not set, so realm URLs are unknown: set STOA_PORT or STOA_EXTERNAL_HOST');
  }
  return resolveConfig(config, config.port);
}

export function knownUrls(config: Config): boolean {
  return config.port !== 0 || config.externalHost !== null;
}

/** How the CLI names the root realm: its subdomain, the empty string (`--realm ''`). */
export function realmLabel(subdomain: string): string {
  return subdomain === '' ? 'the root realm' : `realm "${subdomain}"`;
}

export function findRealm(directory: Directory, subdomain: string): DirectoryEntry {
  const entry = directory.get(subdomain);
  if (!entry) throw new CliError(`no ${subdomain === '' ? 'root realm' : `realm with subdomain "${subdomain}"`} (see: stoa realm list)`);
  return entry;
}

/**
 * Runs a write command: takes the data directory lock (refusing while the server runs, since
 * the server holds every realm in memory and would never see the change), opens the realm
 * directory, and releases both however the command ends.
 */
export async function withWriteAccess<T>(config: ResolvedConfig, fn: (directory: Directory) => Promise<T>): Promise<T> {
  mkdirSync(config.dataDir, { recursive: true });
  let lock;
  try {
    lock = acquireLock(config.dataDir);
  } catch (err) {
    // A running server is reached through its admin socket (server-client.ts) before this: the
    // holder is another admin command, or a server that could not open its socket.
    if (err instanceof DataDirLockedError) throw new CliError(`process ${err.pid} holds the data directory (another admin command, or a server without its admin socket); try again once it is done`);
    throw err;
  }
  try {
    // As the server does: a damaged or missing store is refused, never opened or recreated.
    checkDirectoryFile(config.dataDir);
    const directory = new Directory(config.dataDir);
    try {
      checkShardFiles(config.dataDir, directory.list());
      for (const notice of await ensureStoreFormat(config.dataDir, directory)) console.error(`stoa: ${notice}`);
      return await fn(directory);
    } finally {
      await directory.close();
    }
  } finally {
    lock.release();
  }
}

/** Opens the directory for reading, alongside a running server (LMDB allows other processes to read). */
export async function withReadAccess<T>(config: ResolvedConfig, fn: (directory: Directory | null) => Promise<T>): Promise<T> {
  // Reading must not create anything: with no directory yet there are no realms.
  checkDirectoryFile(config.dataDir);
  if (!existsSync(join(config.dataDir, 'directory'))) return fn(null);
  const directory = new Directory(config.dataDir);
  try {
    checkShardFiles(config.dataDir, directory.list());
    return await fn(directory);
  } finally {
    await directory.close();
  }
}

/** A counter at the data directory's marks that hands out nothing until etcd gives it a block. */
function clusterToolIds(dataDir: string): SharedArrayBuffer {
  const buffer = MessageIds.buffer(0);
  new MessageIds(buffer).raiseTo(new MessageIds(idsAcrossShards(dataDir)).current());
  return buffer;
}

/** Opens the shard that owns a realm in this process, as the server's worker thread would. */
export async function withRealmShard<T>(config: ResolvedConfig, entry: DirectoryEntry, fn: (shard: Shard, realm: RealmState) => Promise<T>): Promise<T> {
  if (entry.held) throw new CliError(`${realmLabel(entry.subdomain)} moved to another node of the cluster: only its old copy is here`);
  // A cluster node's messages take ids from a block etcd hands out (src/cluster/ids.ts).
  const shard = Shard.open(entry.shard, config, config.cluster ? clusterToolIds(config.dataDir) : undefined);
  try {
    if (config.cluster) await (await import('../cluster/ids.js')).toolBlock(config.cluster.etcd, shard.messageIds);
    const realm = shard.realm(entry.id);
    if (!realm) throw new CliError(`${realmLabel(entry.subdomain)} is in the directory but missing from shard ${entry.shard}`);
    return await fn(shard, realm);
  } finally {
    await shard.close();
  }
}
