import type { Database } from 'lmdb';
import { pack, unpack } from 'msgpackr';
import type { JobRecord } from './jobs.js';
import type { Key, ShardStore, ShardTable } from './shard-store.js';
import { forgetCachedReads } from './read-caches.js';

/**
 * One realm's rows, read out of a shard's store and written into another's: how a cluster moves
 * an organization between nodes (src/cluster/moves.ts), and how a node drops a copy it no longer
 * serves. Every table of the shard is named here with how its rows belong to a realm, so a new
 * table cannot be forgotten (test/cluster/realm-copy.test.ts fails on an unnamed one):
 *
 *   prefix      keys lead with realmId: one range read
 *   realm       the `realms` row, keyed by realmId
 *   messages    keyed by message id (`messages`) or [msgId, n] (`submessages`): the realm's ids
 *               come from its `bySender` index (every message has a sender)
 *   tagged      keys lead with a tag: ['c', realmId, ...] (channelEmails), ['active', realmId, ...]
 *               (notify) name the realm in the key; token rows (['t'|'m', token] of channelEmails,
 *               ['unsub', token] of notify) in their value
 *   jobs        `jobs` rows whose JobRecord names the realm, and their `jobKeys` rows
 *   meta        the realm's `dmgroup:<realmId>:` and `secret:<realmId>:` rows (REALM_META); the
 *               shard's id counters (`seq:<kind>`),
 *               which the receiving shard raises its own to (a realm's user, channel and group
 *               ids come from its first shard's counters: the next ones must lie above them)
 *   live        event queues and the event log: they end with the move (clients register again)
 *
 * Values are decoded and encoded again: each table's records share structures (msgpackr's
 * sharedStructuresKey) that differ from store to store, so raw bytes would not read back.
 */
/** Prefixes of the meta rows that belong to one realm: `<prefix>:<realmId>:...`. */
const REALM_META = ['dmgroup', 'secret'];

/** The meta row of a realm's own secret (Shard.realmSigningKey): it moves with the realm. */
export const realmSecretKey = (realmId: number) => `secret:${realmId}:`;

function realmOfMetaKey(key: string): number | undefined {
  const [prefix, realm, rest] = key.split(':', 3);
  return rest !== undefined && REALM_META.includes(prefix) ? Number(realm) : undefined;
}

type Scope = 'prefix' | 'realm' | 'messages' | 'tagged' | 'jobs' | 'meta' | 'live';

export const TABLE_SCOPES: Record<ShardTable, Scope> = {
  realms: 'realm',
  users: 'prefix',
  streams: 'prefix',
  subs: 'prefix',
  groups: 'prefix',
  devices: 'prefix',
  meta: 'meta',
  messages: 'messages',
  byStream: 'prefix',
  byTopic: 'prefix',
  byDm: 'prefix',
  byUserDm: 'prefix',
  bySender: 'prefix',
  uflags: 'prefix',
  uflagIdx: 'prefix',
  uflagUsers: 'prefix',
  flips: 'prefix',
  flipUsers: 'prefix',
  readMarks: 'prefix',
  subHistory: 'prefix',
  search: 'prefix',
  uploads: 'prefix',
  submessages: 'messages',
  queues: 'live',
  eventLog: 'live',
  formerSubs: 'prefix',
  profileFields: 'prefix',
  userStatus: 'prefix',
  mutedUsers: 'prefix',
  alertWords: 'prefix',
  emoji: 'prefix',
  emojiImages: 'prefix',
  userTopics: 'prefix',
  channelFolders: 'prefix',
  avatars: 'prefix',
  invites: 'prefix',
  inviteKeys: 'prefix',
  botStorage: 'prefix',
  channelEmails: 'tagged',
  jobs: 'jobs',
  jobKeys: 'jobs',
  drafts: 'prefix',
  snippets: 'prefix',
  navigationViews: 'prefix',
  scheduled: 'prefix',
  exports: 'prefix',
  passwordResets: 'prefix',
  // A browser's session goes with its organization: it stays logged in after a move.
  sessions: 'prefix',
  notify: 'tagged',
  emailChanges: 'prefix',
};

/** The tags of a tagged table whose keys name the realm second; other tags' values name it. */
const TAGS_WITH_REALM: Partial<Record<ShardTable, string[]>> = { channelEmails: ['c'], notify: ['unsubUser', 'active', 'digest', 'batchItem'] };

/** A row as it travels: table name, key, decoded value; a deletion carries `true` fourth. */
export type Row = [ShardTable, Key, unknown] | [ShardTable, Key, undefined, true];

/**
 * Where a dump stands: the step (an index into the steps below) and the last key it read there.
 * Plain data, so it crosses threads and processes.
 */
export interface DumpCursor {
  step: number;
  after: Key | null;
}

const PREFIX_TABLES = (Object.keys(TABLE_SCOPES) as ShardTable[]).filter((t) => TABLE_SCOPES[t] === 'prefix');
/** The steps of a dump, in order: the realm row, the prefix tables, then the rest. */
const TAGGED_TABLES = (Object.keys(TABLE_SCOPES) as ShardTable[]).filter((t) => TABLE_SCOPES[t] === 'tagged');
const STEPS = ['realm', ...PREFIX_TABLES, 'messages', 'tagged', 'jobs', 'meta'] as const;

const sameKey = (a: Key, b: Key) => JSON.stringify(a) === JSON.stringify(b);

/** Rows of `db` in [start, end), from just after `after` when it is given. */
function* rangeRows(db: Database, start: Key, end: Key, after: Key | null): Generator<[Key, unknown]> {
  for (const { key, value } of db.getRange({ start: after ?? start, end })) {
    if (after !== null && sameKey(key as Key, after)) continue;
    yield [key as Key, value];
  }
}

type Step = (typeof STEPS)[number];

/**
 * The rows of one step from `after` on, each with the key to resume after. A step's rows come
 * in key order of the table the step walks. The whole-table steps (the tagged tables, jobs,
 * meta) are small and always read from their start.
 */
function* stepRows(store: ShardStore, realmId: number, step: Step, after: Key | null): Generator<{ rows: Row[]; resume: Key }> {
  switch (step) {
    case 'realm': {
      const value = store.realms.get(realmId);
      if (value !== undefined) yield { rows: [['realms', realmId, value]], resume: realmId };
      return;
    }
    case 'messages':
      // The walk is over bySender; each message brings its record and its submessages.
      for (const [key] of rangeRows(store.bySender, [realmId], [realmId + 1], after)) {
        const id = (key as number[])[2];
        const rows: Row[] = [];
        const record = store.messages.get(id);
        if (record !== undefined) rows.push(['messages', id, record]);
        for (const { key: k, value } of store.submessages.getRange({ start: [id], end: [id + 1] })) rows.push(['submessages', k as Key, value]);
        yield { rows, resume: key };
      }
      return;
    case 'tagged':
      // Small tables (a few rows per person): read whole, the realm's rows picked out.
      for (const table of TAGGED_TABLES) {
        for (const { key, value } of store[table].getRange({})) if (realmOfWrite(table, key as Key, value) === realmId) yield { rows: [[table, key as Key, value]], resume: key as Key };
      }
      return;
    case 'jobs':
      for (const { key, value } of store.jobs.getRange({})) {
        const job = value as JobRecord;
        if (job.realmId === realmId) yield { rows: [['jobs', key as Key, job], ['jobKeys', job.key, job.due]], resume: key as Key };
      }
      return;
    case 'meta':
      for (const [key, value] of rangeRows(store.meta, 'seq:', 'seq;', null)) yield { rows: [['meta', key, value]], resume: key };
      for (const prefix of REALM_META) {
        for (const [key, value] of rangeRows(store.meta, `${prefix}:${realmId}:`, `${prefix}:${realmId};`, null)) yield { rows: [['meta', key, value]], resume: key };
      }
      return;
    default:
      for (const [key, value] of rangeRows(store[step], [realmId], [realmId + 1], after)) yield { rows: [[step, key, value]], resume: key };
  }
}

const WHOLE: ReadonlySet<Step> = new Set(['tagged', 'jobs', 'meta']);

/**
 * Reads the realm's rows from `cursor` on until about `maxBytes` of them are packed or
 * `budgetMs` has passed (a shard is one thread: its other realms wait meanwhile). Returns the
 * packed rows and where to go on, or null once everything is read.
 */
export function dumpRealm(store: ShardStore, realmId: number, cursor: DumpCursor, maxBytes = 4 << 20, budgetMs = 20): { bytes: Uint8Array; rows: number; next: DumpCursor | null } {
  const started = performance.now();
  const rows: Row[] = [];
  let size = 0;
  const over = () => size > maxBytes || performance.now() - started > budgetMs;
  for (let step = cursor.step, after = cursor.after; step < STEPS.length; step++, after = null) {
    const name = STEPS[step];
    let n = 0;
    for (const item of stepRows(store, realmId, name, WHOLE.has(name) ? null : after)) {
      for (const row of item.rows) {
        rows.push(row);
        size += 48 + (row[2] instanceof Uint8Array ? row[2].byteLength : 0);
      }
      if (!WHOLE.has(name) && ++n % 64 === 0 && over()) return { bytes: pack(rows), rows: rows.length, next: { step, after: item.resume } };
    }
    if (over() && step + 1 < STEPS.length) return { bytes: pack(rows), rows: rows.length, next: { step: step + 1, after: null } };
  }
  return { bytes: pack(rows), rows: rows.length, next: null };
}

/**
 * Writes packed rows (from dumpRealm) in one transaction. The shard's id counters are raised,
 * never lowered; every other row is written as it came.
 */
export async function loadRows(store: ShardStore, bytes: Uint8Array): Promise<number> {
  const rows = unpack(bytes) as Row[];
  await store.env.transaction(() => {
    for (const [table, key, value, deleted] of rows) {
      if (TABLE_SCOPES[table] === undefined || TABLE_SCOPES[table] === 'live') throw new Error(`a realm copy carries no rows of table ${table}`);
      const db = store[table];
      if (deleted) {
        db.remove(key);
        continue;
      }
      if (table === 'meta' && typeof key === 'string' && key.startsWith('seq:')) {
        const mine = db.get(key) as number | undefined;
        if (mine !== undefined && mine >= (value as number)) continue;
      }
      db.put(key, value);
    }
  });
  forgetCachedReads(store);
  return rows.length;
}

/**
 * The realm a written row belongs to, if it tells (see TABLE_SCOPES): a transaction is a
 * realm's when one of its rows is. A message's submessages and a job's key row say nothing, but
 * come in the transaction of a row that does (the message record, the job).
 */
export function realmOfWrite(table: ShardTable, key: Key, value: unknown): number | undefined {
  switch (TABLE_SCOPES[table]) {
    case 'prefix':
      return (key as number[])[0];
    case 'realm':
      return key as number;
    case 'messages':
    case 'jobs':
      return (value as { realmId?: number } | undefined)?.realmId;
    case 'tagged':
      return TAGS_WITH_REALM[table]!.includes(String((key as unknown[])[0])) ? ((key as number[])[1] as number) : (value as { realmId?: number } | undefined)?.realmId;
    case 'meta':
      return typeof key === 'string' ? realmOfMetaKey(key) : undefined;
    default:
      return undefined;
  }
}

/**
 * The rows written since a copy began (the keys a tracker gathered, host/realm-moves.ts), as
 * they stand now: each one's value, or its deletion; and the shard's counters. Packed.
 */
export function deltaRows(store: ShardStore, keys: Iterable<[ShardTable, Key]>): { bytes: Uint8Array; rows: number } {
  const rows: Row[] = [];
  for (const [table, key] of keys) {
    const value = store[table].get(key);
    rows.push(value === undefined ? [table, key, undefined, true] : [table, key, value]);
  }
  for (const [key, value] of rangeRows(store.meta, 'seq:', 'seq;', null)) rows.push(['meta', key, value]);
  return { bytes: pack(rows), rows: rows.length };
}

/**
 * The order a clear walks: messages while their index still finds them, the realm row last,
 * and never the shard's counters.
 */
const CLEAR_STEPS: Step[] = ['messages', 'tagged', 'jobs', 'meta', ...PREFIX_TABLES, 'realm'];

/**
 * Deletes up to `limit` of the realm's rows, from `cursor` on (a copy no longer served, or the
 * partial copy of a move that starts over). Returns how many, and where to go on (null: done).
 */
export async function clearRealm(store: ShardStore, realmId: number, cursor: DumpCursor = { step: 0, after: null }, limit = 20_000): Promise<{ deleted: number; next: DumpCursor | null }> {
  const doomed: [Database, Key][] = [];
  let next: DumpCursor | null = null;
  walk: for (let step = cursor.step, after = cursor.after; step < CLEAR_STEPS.length; step++, after = null) {
    const name = CLEAR_STEPS[step];
    for (const item of stepRows(store, realmId, name, name === 'messages' ? after : null)) {
      for (const [table, key] of item.rows) {
        if (table === 'meta' && typeof key === 'string' && key.startsWith('seq:')) continue;
        doomed.push([store[table], key]);
      }
      if (doomed.length >= limit) {
        // Deleted rows are not met again; only the message walk (over an index it keeps) resumes.
        next = { step, after: name === 'messages' ? item.resume : null };
        break walk;
      }
    }
  }
  if (doomed.length > 0) {
    await store.env.transaction(() => {
      for (const [db, key] of doomed) db.remove(key);
    });
    forgetCachedReads(store);
  }
  return { deleted: doomed.length, next };
}
