import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export { freePort } from '../startup/spawn.js';

/**
 * The server as `npm start` runs it (`node dist/src/main.js`, after the build), in a process of
 * its own: what a newcomer starts, and what a test can kill with SIGKILL.
 */
const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));

export interface Spawned {
  proc: ChildProcess;
  /** Everything it printed so far. */
  output: () => string;
  /** The address it printed ("Stoa listening on ..."). */
  url: string;
  owner: { email: string; password: string; apiKey: string } | null;
}

export async function spawnServer(dataDir: string, port: number, env: Record<string, string> = {}): Promise<Spawned> {
  const proc = spawn(process.execPath, [MAIN], {
    env: { ...process.env, STOA_DATA_DIR: dataDir, STOA_PORT: String(port), STOA_BIND: '127.0.0.1', STOA_EXTERNAL_HOST: `127.0.0.1:${port}`, STOA_RATE_LIMITS: 'off', STOA_LOG_LEVEL: 'warn', STOA_SHARDS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (out += c));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 60_000);
    const check = () => {
      const m = /Stoa listening on (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    proc.stdout!.on('data', check);
    proc.once('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
  });
  const field = (name: string) => new RegExp(`owner ${name}:\\s+(\\S+)`).exec(out)?.[1];
  const email = field('email');
  return { proc, output: () => out, url, owner: email ? { email, password: field('password')!, apiKey: field('API key')! } : null };
}

/** Ends the process with SIGKILL: no stop, no flush, as a power cut would. */
export function kill9(s: Spawned): Promise<void> {
  return new Promise((resolve) => {
    if (s.proc.exitCode !== null || s.proc.signalCode !== null) return resolve();
    s.proc.once('exit', () => resolve());
    s.proc.kill('SIGKILL');
  });
}

/** The API as a script calls it, with an account's key. */
export async function api(base: string, creds: { email: string; apiKey: string }, method: string, path: string, params: Record<string, unknown> = {}): Promise<any> {
  const form = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  const get = method === 'GET';
  const res = await fetch(`${base}/api/v1${path}${get && [...form].length ? `?${form}` : ''}`, {
    method,
    headers: { authorization: `Basic ${Buffer.from(`${creds.email}:${creds.apiKey}`).toString('base64')}`, ...(get ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
    body: get ? undefined : form.toString(),
  });
  return res.json();
}
