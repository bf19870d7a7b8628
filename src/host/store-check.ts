import { log } from '../lib/log.js';
import { shardFile, shardFolders } from '../store/integrity.js';
import { probeStores } from '../store/probe.js';
import type { ShardPool } from './pool.js';

/**
 * Every table of every store, read once after the server has started, in a child process at
 * the lowest priority (store/probe.ts, what `stoa check` runs). The start itself reads only the
 * tables the shards load; damage elsewhere would be met by requests: as an error (which the
 * shard turns into 503 STORAGE_DAMAGED), as a range read that ends early without one (a short
 * answer that looks complete), or as a crash of the whole server (an assertion in lmdb). A table
 * this finds damaged is handed to its shard, which refuses its reads from then on
 * (store/damage.ts), so that none of those can happen.
 *
 * Resolves when the check is done (or the server stops first), with what it found.
 */
export async function checkStoresAfterStart(dataDir: string, pool: ShardPool, signal: AbortSignal): Promise<number> {
  const started = Date.now();
  let report;
  try {
    report = await probeStores(dataDir, 'full', () => true, { background: true, signal });
  } catch (err) {
    if (!signal.aborted) log.error({ err }, 'the storage check after start could not run');
    return 0;
  }
  if (signal.aborted) return 0;
  const shardOf = new Map(shardFolders(dataDir).map((k) => [shardFile(dataDir, k), k]));
  const byShard = new Map<number, [string, string][]>();
  for (const problem of report.problems) {
    const shard = shardOf.get(problem.file);
    // An attachment's missing file is not damage of a table; the directory is read at start.
    if (shard === undefined || problem.upload) continue;
    const tables = byShard.get(shard) ?? [];
    tables.push([problem.table ?? '*', problem.problem]);
    byShard.set(shard, tables);
  }
  for (const [shard, tables] of byShard) await pool.admin(shard, { kind: 'admin', op: 'damaged', tables });
  const problems = report.problems.length;
  if (problems > 0) log.error({ ms: Date.now() - started, problems: report.problems }, 'storage check after start: damage found (its tables are refused; run stoa check, restore from a backup)');
  else log.info({ ms: Date.now() - started }, 'storage check after start: every table reads whole');
  return problems;
}
