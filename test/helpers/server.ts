import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/lib/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { checkResponse } from './openapi.js';

/**
 * A real server on an ephemeral port with a temporary data directory, and a client that talks
 * to it over HTTP exactly as Zulip clients do. Every 2xx answer is checked against the OpenAPI
 * reference (helpers/openapi.ts).
 */
export interface Credentials {
  email: string;
  apiKey: string;
}

export interface RequestOptions {
  params?: Record<string, unknown>;
  /** How parameters travel: query string (GET/DELETE default), urlencoded (default otherwise), multipart or JSON. */
  encoding?: 'query' | 'form' | 'multipart' | 'json';
  auth?: Credentials | null;
  /** Raw Authorization header, overriding `auth`. */
  authorization?: string;
  host?: string;
  /** Skip the OpenAPI check (for tests of deliberately odd inputs). */
  unchecked?: boolean;
}

export interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** Form values as the Python bindings send them: strings as they are, the rest as JSON. */
function encodeValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export interface TestServer {
  server: RunningServer;
  port: number;
  dataDir: string;
  owner: Credentials & { password: string; userId: number };
  request(method: string, path: string, opts?: RequestOptions): Promise<Response>;
  /** A client bound to one user's credentials. */
  as(creds: Credentials): (method: string, path: string, opts?: RequestOptions) => Promise<Response>;
  close(): Promise<void>;
}

/** The root realm owner's credentials from <dataDir>/zuliprc, for a server started on old data. */
function ownerFromZuliprc(dataDir: string): TestServer['owner'] {
  const text = readFileSync(join(dataDir, 'zuliprc'), 'utf8');
  const field = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(text)?.[1] ?? '';
  return { email: field('email'), apiKey: field('key'), password: '', userId: 0 };
}

/**
 * Starts a server on a fresh temporary data directory, or on `dataDir` when given (a restart:
 * the directory is then kept, the caller owns it).
 */
export async function startTestServer(t: { teardown(fn: () => unknown): void }, overrides: Partial<Config> = {}, reuse?: { dataDir: string }): Promise<TestServer> {
  const dataDir = reuse?.dataDir ?? mkdtempSync(join(tmpdir(), 'stoa-test-'));
  // Tests drive a server harder than a client would: API rate limits are off unless a test
  // passes its own `rateLimits`.
  const defaults = loadConfig({}, { dataDir });
  const config = loadConfig({}, { port: 0, bind: '127.0.0.1', dataDir, shards: 2, logLevel: 'silent', rateLimits: { ...defaults.rateLimits, enabled: false }, ...overrides });
  const server = await startServer(config);
  const boot = server.bootstrap;
  const owner = boot
    ? { email: boot.owner.email, apiKey: boot.owner.apiKey, password: boot.ownerPassword, userId: boot.owner.id }
    : ownerFromZuliprc(dataDir);

  async function request(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const encoding = opts.encoding ?? (method === 'GET' || method === 'DELETE' ? 'query' : 'form');
    const params = opts.params ?? {};
    let url = `/api/v1${path}`;
    const headers: Record<string, string> = { host: opts.host ?? server.config.externalHost };
    let body: Buffer | undefined;
    const pairs = Object.entries(params).filter(([, v]) => v !== undefined).map(([k, v]) => [k, encodeValue(v)] as [string, string]);
    if (encoding === 'query') {
      if (pairs.length) url += `?${new URLSearchParams(pairs)}`;
    } else if (encoding === 'form') {
      body = Buffer.from(new URLSearchParams(pairs).toString());
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (encoding === 'json') {
      body = Buffer.from(JSON.stringify(params));
      headers['content-type'] = 'application/json';
    } else {
      const boundary = `stoa${Math.random().toString(16).slice(2)}`;
      const parts = pairs.map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
      body = Buffer.from(`${parts.join('')}--${boundary}--\r\n`);
      headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
    }
    const auth = opts.auth === undefined ? owner : opts.auth;
    if (opts.authorization !== undefined) headers.authorization = opts.authorization;
    else if (auth) headers.authorization = `Basic ${Buffer.from(`${auth.email}:${auth.apiKey}`).toString('base64')}`;
    if (body) headers['content-length'] = String(body.length);

    // A connection per request: a kept-alive socket that the server closes as the next request
    // goes out answers it with ECONNRESET, a race a loaded machine makes likely.
    const res = await new Promise<Response>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: server.port, method, path: url, headers, agent: false }, (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c) => chunks.push(c));
        r.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            return reject(new Error(`${method} ${path}: response is not JSON (${r.statusCode}): ${text.slice(0, 200)}`));
          }
          resolve({ status: r.statusCode!, headers: r.headers, body: parsed });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
    if (res.status >= 200 && res.status < 300 && !opts.unchecked) checkResponse(method, path.split('?')[0], res.body);
    return res;
  }

  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await server.close();
    if (!reuse) rmSync(dataDir, { recursive: true, force: true });
  };
  t.teardown(close);
  return {
    server,
    port: server.port,
    dataDir,
    owner,
    request,
    as: (creds) => (method, path, opts = {}) => request(method, path, { ...opts, auth: creds }),
    close,
  };
}

/** Creates a user through POST /users as the owner and returns their credentials via fetch_api_key. */
export async function createUser(ts: TestServer, email: string, fullName = email.split('@')[0], password = 'a-long-password-1'): Promise<Credentials & { userId: number; password: string }> {
  const created = await ts.request('POST', '/users', { params: { email, password, full_name: fullName } });
  if (created.status !== 200) throw new Error(`POST /users failed: ${JSON.stringify(created.body)}`);
  const key = await ts.request('POST', '/fetch_api_key', { params: { username: email, password }, auth: null });
  if (key.status !== 200) throw new Error(`POST /fetch_api_key failed: ${JSON.stringify(key.body)}`);
  return { email, apiKey: key.body.api_key, userId: created.body.user_id, password };
}
