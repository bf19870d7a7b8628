import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The data directory lock: <dataDir>/stoa.pid holds the pid of the one process allowed to
 * write the directory (the running server, or an admin CLI command while it writes).
 *
 * The server keeps realms in memory and is their only writer; a second writer (the CLI while
 * the server runs, or a second server) would write behind its back and be overwritten or
 * ignored. LMDB itself allows several processes, so readers (`stoa realm list`) need no lock.
 *
 * The file appears with its content in one step: the pid is written to a private temporary
 * file which is then hard-linked to stoa.pid, and link() fails if stoa.pid exists. A pid file
 * whose process is gone (a crash, a kill -9) is stale and taken over; so is one whose pid now
 * names a process that started after the file was written (the pid was reused, typically after
 * a reboot: a live process that is not the one that took the lock).
 */
export const LOCK_FILE = 'stoa.pid';

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';

  constructor(
    readonly pid: number,
    readonly path: string,
  ) {
    super(`data directory ${dirname(path)} is in use by process ${pid} (a running Stoa server or admin command); stop it first`);
  }
}

export interface DataDirLock {
  readonly path: string;
  /** Removes the pid file if it is still ours. Safe to call twice. */
  release(): void;
}

// Lock files this process holds: a pid file naming this process is ours only if it is listed
// here. Otherwise it is left from an earlier process that had the same pid (in a container the
// server is often pid 1 on every start), and is stale.
const held = new Set<string>();

/** The pid in a lock file; null when there is no file, 0 when its content is not a pid. */
function readPid(path: string): number | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return /^\d+\s*$/.test(text) ? Number(text.trim()) : 0;
}

/** Whether a process with this pid exists (whoever it is). */
export function isAlive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Linux's USER_HZ: the unit of /proc/<pid>/stat's start time. */
const TICKS_PER_SECOND = 100;

/** When process `pid` started (ms since the epoch), from /proc; null where that cannot be read. */
function startedAt(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ", field 3 (state) on: the start time is field 22.
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const boot = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    return Number.isFinite(ticks) && Number.isFinite(boot) ? boot * 1000 + (ticks * 1000) / TICKS_PER_SECOND : null;
  } catch {
    return null;
  }
}

/** The boot time is to the second: a process that started within that of the file may have written it. */
const START_SLACK_MS = 1500;

/** The pid of the live process holding the lock, or null when the directory is free. */
export function lockHolder(dataDir: string): number | null {
  const path = join(dataDir, LOCK_FILE);
  const pid = readPid(path);
  if (pid === null) return null;
  if (pid === process.pid) return held.has(path) ? pid : null;
  if (!isAlive(pid)) return null;
  // The process that wrote the file had started by then: one that started later has its pid
  // by reuse, and holds nothing.
  const started = startedAt(pid);
  let written: number;
  try {
    written = statSync(path).mtimeMs;
  } catch {
    return null;
  }
  return started !== null && started > written + START_SLACK_MS ? null : pid;
}

/** Takes the lock on an existing data directory, or throws DataDirLockedError. */
export function acquireLock(dataDir: string): DataDirLock {
  const path = join(dataDir, LOCK_FILE);
  if (held.has(path)) throw new DataDirLockedError(process.pid, path);
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, `${process.pid}\n`);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(tmp, path);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 5) throw err;
      }
      const holder = lockHolder(dataDir);
      if (holder !== null) throw new DataDirLockedError(holder, path);
      // Stale: remove it and link again. (Two processes taking over the same stale file in the
      // same microseconds could both win; starting a server and a CLI command at one instant
      // after a crash is the only way there, and is not worth a lock on the lock.)
      unlinkQuietly(path);
    }
  } finally {
    unlinkQuietly(tmp);
  }
  held.add(path);
  return {
    path,
    release() {
      if (!held.delete(path)) return;
      if (readPid(path) === process.pid) unlinkQuietly(path);
    },
  };
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
