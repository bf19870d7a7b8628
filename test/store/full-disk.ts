import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, MAIN } from '../cli/run.js';

/**
 * A full disk, for real: a data directory on a small tmpfs in a mount namespace of its own
 * (unshare), filled by a ballast file. Needs `unshare --mount` (root, or unprivileged user
 * namespaces); tests skip without it and commit-failure.test.ts simulates the failure
 * in-process everywhere.
 */
export const canMount = spawnSync('unshare', ['--mount', 'sh', '-c', 'd=$(mktemp -d) && mount -t tmpfs -o size=1m tmpfs "$d" && umount "$d" && rmdir "$d"'], { stdio: 'ignore' }).status === 0;

export interface Running {
  child: ChildProcess;
  port: number;
  out(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface SmallDisk {
  dataDir: string;
  /** The data directory as this process sees it (through the namespace holder). */
  inside: string;
  /** Starts `node main.js` inside the namespace, on the data directory. */
  start(env?: Record<string, string>): Promise<Running>;
  /** Leaves about `bytes` free. */
  fill(bytes: number): void;
  /** Frees the space fill() took. */
  free(): void;
}

/** A tmpfs of `mib` MiB mounted on a fresh temporary directory, held for the test's life. */
export async function smallDisk(t: { teardown(fn: () => unknown): void }, mib = 16): Promise<SmallDisk> {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-diskfull-'));
  // Holds the namespace (and its tmpfs) between server starts.
  const holder = spawn('unshare', ['--mount', 'sh', '-c', `mount -t tmpfs -o size=${mib}m tmpfs "${dataDir}" && echo mounted && exec sleep 600`], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => {
    holder.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });
  await new Promise((resolve) => holder.stdout!.once('data', resolve));
  const inside = `/proc/${holder.pid}/root${dataDir}`;
  const ballast = join(inside, 'ballast');
  return {
    dataDir,
    inside,
    start: (env = {}) => startIn(holder.pid!, dataDir, env),
    fill(bytes) {
      rmSync(ballast, { force: true });
      const { bavail, bsize } = statfsSync(inside);
      writeFileSync(ballast, Buffer.alloc(Math.max(0, bavail * bsize - bytes)));
    },
    free: () => rmSync(ballast, { force: true }),
  };
}

function startIn(holder: number, dataDir: string, env: Record<string, string>): Promise<Running> {
  const child = spawn('nsenter', [`--mount=/proc/${holder}/ns/mnt`, '--', process.execPath, MAIN], {
    env: cleanEnv({ STOA_DATA_DIR: dataDir, STOA_PORT: '0', STOA_SHARDS: '1', STOA_LOG_LEVEL: 'error', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 60_000);
    child.stdout!.on('data', () => {
      const m = /listening on http:\/\/\S+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), out: () => out, exited });
      }
    });
    exited.then(({ code }) => reject(new Error(`exited ${code}: ${out}`)));
  });
}
