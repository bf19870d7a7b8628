import type { Database, RootDatabase } from 'lmdb';
import { StorageDamageError } from '../lib/errors.js';
import { log } from '../lib/log.js';

/**
 * Damage inside a store's trees, met by a read.
 *
 * LMDB has no checksums. A garbled page is met as an error (MDB_CORRUPTED, MDB_PAGE_NOTFOUND, a
 * value msgpack cannot decode), as a range read that simply ends early (a garbled leaf or
 * branch), or as a crash of the process (an assertion in lmdb, a bad pointer). So:
 *
 * - every read of a shard's tables goes through guardTables: an error of a read becomes a
 *   StorageDamageError naming the table (503 STORAGE_DAMAGED, never a generic 500), and the
 *   environment's read transaction is reset (LMDB leaves it unusable, which would fail every
 *   later read of every table with MDB_BAD_TXN);
 * - a table found damaged is refused from then on without touching LMDB: by a read that met
 *   an error, or by the check of every table that the server runs in a child process after it
 *   starts (server.ts, store/probe.ts), which also finds the silent cases (a table with fewer
 *   rows than its B-tree counts) and the pages that crash a reader;
 * - code that follows an index to its rows treats a row that is not there as damage
 *   (store/messages.ts indexedMessage), so a narrow is never answered short.
 *
 * Each damaged table is logged once per shard.
 */
const DAMAGE_CODES = new Set([-30797 /* MDB_PAGE_NOTFOUND */, -30796 /* MDB_CORRUPTED */, -30795 /* MDB_PANIC */, -30793 /* MDB_INVALID */, -30782 /* MDB_BAD_TXN */]);

/** Whether an error thrown by a read of a table says the table is damaged. */
export function isDamage(err: unknown): boolean {
  if (err instanceof StorageDamageError) return true;
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'number') return DAMAGE_CODES.has(code);
  // Not LMDB's own failures of use: a closed store (a stop), a full reader table.
  if (/closed|MDB_READERS_FULL|MDB_MAP_RESIZED/.test(err.message)) return false;
  // Decoding a value (msgpack) or a key (ordered-binary) failed: the bytes are wrong.
  return true;
}

export interface DamageMap {
  /** Tables found damaged, with what was found. */
  readonly tables: Map<string, string>;
  /** Records a damaged table, logged once; returns the error for the read. */
  damaged(table: string, detail: string, cause?: unknown): StorageDamageError;
}

export function damageMap(where: { shard: number; path: string }): DamageMap {
  const tables = new Map<string, string>();
  return {
    tables,
    damaged(table, detail, cause) {
      if (!tables.has(table)) {
        tables.set(table, detail);
        log.error({ ...where, table, detail, err: cause }, 'storage damage: reads of this table are refused (503 STORAGE_DAMAGED) until the store is repaired; run stoa check, restore from a backup');
      }
      return new StorageDamageError(table, detail);
    },
  };
}

/**
 * Makes every read of `tables` (get, getRange and what is built on them: getKeys, getValues,
 * getCount) refuse a table known damaged, and turn an error into damage of its table.
 */
export function guardTables(env: RootDatabase, tables: Record<string, Database>, map: DamageMap): void {
  for (const [name, db] of Object.entries(tables)) {
    const failed = (err: unknown, cursor?: Iterator<unknown>): never => {
      if (!isDamage(err)) throw err;
      // LMDB leaves a read transaction that met damage unusable; the failed range's cursor,
      // left open, would keep it as the one the next read gets.
      try {
        cursor?.return?.();
      } catch {
        // as broken as its transaction
      }
      env.resetReadTxn();
      throw map.damaged(name, err instanceof Error ? err.message : String(err), err);
    };
    const refuse = () => {
      // '*': the whole store (it could not be opened by the check).
      const known = map.tables.get(name) ?? map.tables.get('*');
      if (known !== undefined) throw map.damaged(name, known);
    };
    const get = db.get;
    db.get = function (this: Database, ...args: Parameters<Database['get']>) {
      refuse();
      try {
        return get.apply(this, args);
      } catch (err) {
        return failed(err);
      }
    } as Database['get'];
    const getRange = db.getRange;
    db.getRange = function (this: Database, ...args: Parameters<Database['getRange']>) {
      refuse();
      const range = getRange.apply(this, args) as ReturnType<Database['getRange']> & { iterate(options?: unknown): Iterator<unknown> };
      const iterate = range.iterate;
      range.iterate = function (this: unknown, options?: unknown) {
        let inner: Iterator<unknown>;
        try {
          inner = iterate.call(this, options);
        } catch (err) {
          return failed(err);
        }
        // getCount asks for a count, not an iterator (onlyCount): nothing more to guard.
        if (typeof inner?.next !== 'function') return inner;
        return {
          next(value?: unknown) {
            try {
              return inner.next(value as undefined);
            } catch (err) {
              return failed(err, inner);
            }
          },
          return(value?: unknown) {
            return inner.return ? inner.return(value) : { done: true, value };
          },
          throw(err?: unknown) {
            if (inner.throw) return inner.throw(err);
            throw err;
          },
        } as Iterator<unknown>;
      };
      return range;
    } as Database['getRange'];
  }
}
