import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { cleanEnv, MAIN } from '../cli/run.js';

/**
 * `node dist/src/main.js` as a child process, as `npm start` runs it. Resolves once it prints
 * its listening line, with the port parsed from it.
 */
export interface ServerProcess {
  child: ChildProcess;
  port: number;
  /** The address part of the listening line, e.g. 127.0.0.1. */
  address: string;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends a signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const LISTENING = /^Stoa listening on http:\/\/(\S+):(\d+) \(data in (.+), (\d+) shards\)$/m;

/**
 * Starts the server; fails if it exits or stays silent for 30 s first. `launch` is the command
 * that runs main.js (node, or node with flags of its own).
 */
export function spawnServer(t: { teardown(fn: () => unknown): void }, env: Record<string, string>, args: string[] = [], launch: string[] = [process.execPath]): Promise<ServerProcess> {
  const child = spawn(launch[0], [...launch.slice(1), MAIN, ...args], { env: cleanEnv({ STOA_SHARDS: '2', ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c) => { out += c; if (process.env.STOA_TEST_SERVER_STDERR) process.stderr.write(c); });
  child.stderr!.on('data', (c) => { err += c; if (process.env.STOA_TEST_SERVER_STDERR) process.stderr.write(c); });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  t.teardown(() => stop('SIGKILL'));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line after 30 s; stdout: ${out}; stderr: ${err}`)), 30_000);
    const check = () => {
      const m = LISTENING.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      resolve({ child, port: Number(m[2]), address: m[1], stdout: () => out, stderr: () => err, exited, stop });
    };
    child.stdout!.on('data', check);
    exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening; stdout: ${out}; stderr: ${err}`));
    });
  });
}

/** Runs main.js to its exit, for starts that must fail. */
export function runToExit(env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** A TCP port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
