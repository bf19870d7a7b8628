import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/lib/config.js';
import { startServer, type RunningServer } from '../../src/server.js';

/**
 * Helpers for the admin CLI and start-up tests: they run the compiled programs as child
 * processes, exactly as an operator would, against a temporary data directory.
 */
export const CLI = fileURLToPath(new URL('../../src/cli/stoa.js', import.meta.url));
export const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));

/** The environment without any STOA_* variable of the shell running the tests. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('STOA_')) env[k] = v;
  // Servers started by tests are driven harder than one client would: no API rate limits
  // unless a test turns them on (test/api/server/rate-limits.test.ts).
  return { ...env, STOA_RATE_LIMITS: 'off', ...extra };
}

export function tempDir(t: { teardown(fn: () => unknown): void }, prefix = 'stoa-cli-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `stoa <args>` on a data directory, with the port the CLI assumes for realm URLs. */
export function stoa(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: cleanEnv({ STOA_DATA_DIR: dataDir, STOA_PORT: '9991', STOA_SHARDS: '2', ...env }) },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs a command that must succeed, failing with its stderr otherwise. */
export async function stoaOk(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const res = await stoa(dataDir, args, env);
  if (res.code !== 0) throw new Error(`stoa ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout;
}

/** `key: value` lines of the credentials the CLI and the server print. */
export function field(output: string, label: string): string | undefined {
  const match = new RegExp(`^\\s*${label}:\\s+(\\S+)\\s*$`, 'm').exec(output);
  return match?.[1];
}

export interface HttpResult {
  status: number;
  body: any;
}

/** One HTTP request to 127.0.0.1:port (or `address`) with a chosen Host header and Basic credentials. */
export function http(
  port: number,
  opts: { method?: string; path: string; host: string; auth?: { email: string; apiKey: string }; form?: Record<string, string>; address?: string },
): Promise<HttpResult> {
  const headers: Record<string, string> = { host: opts.host };
  if (opts.auth) headers.authorization = `Basic ${Buffer.from(`${opts.auth.email}:${opts.auth.apiKey}`).toString('base64')}`;
  const body = opts.form ? Buffer.from(new URLSearchParams(opts.form).toString()) : undefined;
  if (body) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    headers['content-length'] = String(body.length);
  }
  return new Promise((resolve, reject) => {
    // A connection per request: a kept-alive one reused just as the server's keep-alive timeout
    // closes it (a test that pauses 5 s on a loaded machine) fails with "socket hang up".
    const req = httpRequest({ host: opts.address ?? '127.0.0.1', port, method: opts.method ?? 'GET', path: `/api/v1${opts.path}`, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({ status: res.statusCode!, body: JSON.parse(text) });
        } catch {
          reject(new Error(`${opts.path}: not JSON (${res.statusCode}): ${text.slice(0, 200)}`));
        }
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A server in this process on an existing data directory (the CLI prepared it). */
export async function serveDir(t: { teardown(fn: () => unknown): void }, dataDir: string): Promise<RunningServer> {
  const server = await startServer(loadConfig({}, { port: 0, bind: '127.0.0.1', dataDir, shards: 2, logLevel: 'silent' }));
  t.teardown(() => server.close());
  return server;
}
