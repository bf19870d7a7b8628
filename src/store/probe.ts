import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { existsSync } from 'node:fs';
import { directoryFile, shardFile, shardStores } from './integrity.js';
import type { ShardTable } from './shard-store.js';

/**
 * Reads a data directory's stores in a child process (probe-child.ts), where a damaged page can
 * crash nothing but the child: the crash then names the file and table being read. The server
 * runs it at start on the tables it is about to load (`load`), so that damage there is reported
 * rather than ending the server with SIGBUS and an empty log; `stoa check` runs it on every
 * table (`full`). Damage in a table read only later (a message page) is found by `stoa check`.
 */
export interface ProbeLine {
  file: string;
  table: string | null;
  step: 'open' | 'read' | 'done' | 'error' | 'end';
  rows?: number;
  message?: string;
  /** An error about an attachment's file, not the table's pages. */
  upload?: true;
  realmIds?: number[];
}

export interface ProbeProblem {
  file: string;
  table: string | null;
  problem: string;
  /** About an attachment's file (missing, wrong size), not the table's pages. */
  upload?: true;
}

export interface ProbeReport {
  problems: ProbeProblem[];
  /** Rows per file and table, as read. */
  rows: Map<string, Map<string, number>>;
  /** The realm ids each file's realms table holds. */
  realmIds: Map<string, number[]>;
}

/** What a shard loads at start (Shard.load, the event journal's restore). */
export const LOAD_TABLES: ShardTable[] = ['realms', 'users', 'streams', 'subs', 'formerSubs', 'groups', 'readMarks', 'subHistory', 'meta', 'queues', 'eventLog'];
export const DIRECTORY_TABLES = ['realms', 'meta'];

const CHILD = new URL('./probe-child.js', import.meta.url).pathname;

/** The stores present: the directory, then each shard that has a data file. */
function presentStores(dataDir: string): string[] {
  const specs = existsSync(directoryFile(dataDir)) ? ['directory'] : [];
  for (const shard of shardStores(dataDir)) specs.push(`shard:${shard}`);
  return specs;
}

export interface ProbeOptions {
  /** Run the reader at the lowest CPU priority (the check a running server makes). */
  background?: boolean;
  /** Stops the reader (the server stops). */
  signal?: AbortSignal;
}

function runChild(mode: 'load' | 'full', dataDir: string, specs: string[], opts: ProbeOptions): Promise<{ lines: ProbeLine[]; signal: NodeJS.Signals | null; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, mode, dataDir, ...specs], { stdio: ['ignore', 'pipe', 'pipe'], signal: opts.signal });
    if (opts.background && child.pid) {
      try {
        setPriority(child.pid, 19);
      } catch {
        // not allowed here: it runs at the server's priority
      }
    }
    let out = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      const lines = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as ProbeLine);
      resolve({ lines, signal, code, stderr });
    });
  });
}

/** Reads the stores of `dataDir` (all present ones), reporting every problem found. */
export async function probeStores(dataDir: string, mode: 'load' | 'full', include: (file: string) => boolean = () => true, opts: ProbeOptions = {}): Promise<ProbeReport> {
  const report: ProbeReport = { problems: [], rows: new Map(), realmIds: new Map() };
  const fileOf = (spec: string) => (spec.startsWith('directory') ? directoryFile(dataDir) : shardFile(dataDir, Number(spec.slice(6).split('@')[0])));
  let specs = presentStores(dataDir).filter((spec) => include(fileOf(spec)));
  while (specs.length > 0) {
    const { lines, signal, code, stderr } = await runChild(mode, dataDir, specs, opts);
    if (opts.signal?.aborted) break;
    let last: ProbeLine | null = null;
    for (const line of lines) {
      if (line.step === 'error') report.problems.push({ file: line.file, table: line.table, problem: line.message ?? 'unreadable', ...(line.upload ? { upload: true as const } : {}) });
      if (line.step === 'done') {
        const byTable = report.rows.get(line.file) ?? new Map<string, number>();
        byTable.set(line.table!, line.rows ?? 0);
        report.rows.set(line.file, byTable);
        if (line.realmIds) report.realmIds.set(line.file, line.realmIds);
      }
      if (line.step === 'open' || line.step === 'read') last = line;
      if (line.step === 'end') last = null;
    }
    if (lines.at(-1)?.step === 'end') break;
    // The child died: the damage is where it was reading. Go on with that store's other tables
    // (a table it crashed in is skipped), then the stores after it.
    const file = last?.file ?? fileOf(specs[0]);
    const how = signal ? `reading it crashed the reader (${signal})` : `reading it ended the reader (exit ${code}${stderr ? `: ${stderr.trim().split('\n').at(-1)}` : ''})`;
    report.problems.push({ file, table: last?.table ?? null, problem: `damaged: ${how}${last?.table ? ` in table ${last.table}` : ''}` });
    const at = specs.findIndex((spec) => fileOf(spec) === file);
    if (at < 0) specs = [];
    else if (!last?.table) specs = specs.slice(at + 1);
    else {
      const read = lines.filter((l) => l.file === file && l.table && (l.step === 'done' || l.step === 'error')).map((l) => l.table!);
      const [spec, skipping] = specs[at].split('@skip=');
      const skip = [...new Set([...(skipping ? skipping.split(',') : []), ...read, last.table])];
      specs = [`${spec}@skip=${skip.join(',')}`, ...specs.slice(at + 1)];
    }
  }
  return report;
}
