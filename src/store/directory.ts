import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { open, type Database, type RootDatabase } from 'lmdb';

/**
 * The realm directory: which shard owns which realm. It lives in its own small LMDB
 * environment (<dataDir>/directory), read by the front end to route requests and written only
 * when a realm is created (first start, or the admin CLI while the server is stopped).
 *
 *   realms  subdomain     -> DirectoryEntry
 *   meta    'seq:realm'   -> last realm id handed out
 *           'format'      -> the data directory's format version (store/format.ts)
 *
 * A realm's shard is chosen by hashing its subdomain once and then recorded: changing the shard
 * count later moves no realm.
 */
export interface DirectoryEntry {
  id: number;
  subdomain: string;
  name: string;
  shard: number;
}

export const directoryPath = (dataDir: string) => join(dataDir, 'directory');

/** The owner's zuliprc a realm's creation writes: `<dataDir>/zuliprc` for the root realm, `<dataDir>/<subdomain>.zuliprc`. */
export const zuliprcPath = (dataDir: string, subdomain: string) => join(dataDir, subdomain ? `${subdomain}.zuliprc` : 'zuliprc');

export class Directory {
  private readonly env: RootDatabase;
  private readonly realms: Database<DirectoryEntry, string>;
  private readonly meta: Database<number, string>;

  constructor(dataDir: string) {
    const path = directoryPath(dataDir);
    mkdirSync(path, { recursive: true });
    this.env = open({ path, maxDbs: 4 });
    this.realms = this.env.openDB({ name: 'realms' });
    this.meta = this.env.openDB({ name: 'meta' });
  }

  list(): DirectoryEntry[] {
    return [...this.realms.getRange({})].map(({ value }) => value);
  }

  get(subdomain: string): DirectoryEntry | undefined {
    return this.realms.get(subdomain);
  }

  /** The number of shards the recorded realms need: one past the highest shard in use. */
  shardsInUse(): number {
    return this.list().reduce((n, e) => Math.max(n, e.shard + 1), 0);
  }

  /**
   * Reserves an id and picks a shard for a new realm. The id is committed before the shard
   * creates the realm, so a creation that fails half-way burns its id instead of leaving a
   * half-made realm that the next creation would collide with.
   */
  async reserve(subdomain: string, shardCount: number): Promise<{ id: number; shard: number }> {
    const digest = createHash('sha256').update(subdomain).digest();
    let id = 0;
    await this.env.transaction(() => {
      id = (this.meta.get('seq:realm') ?? 0) + 1;
      this.meta.put('seq:realm', id);
    });
    return { id, shard: digest.readUInt32BE(0) % shardCount };
  }

  /** The data format version recorded, or undefined (a data directory from before versions). */
  format(): number | undefined {
    return this.meta.get('format');
  }

  async setFormat(version: number): Promise<void> {
    await this.meta.put('format', version);
  }

  async add(entry: DirectoryEntry): Promise<void> {
    await this.realms.put(entry.subdomain, entry);
  }

  async close(): Promise<void> {
    await this.env.close();
  }
}
