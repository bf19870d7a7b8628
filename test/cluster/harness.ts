import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../src/lib/config.js';
import { cleanEnv, CLI } from '../cli/run.js';
import { freePort, spawnServer, type ServerProcess } from '../startup/spawn.js';

/**
 * A cluster on this machine for tests: Debian's etcd and nginx on free ports in temporary
 * folders, nodes as `node dist/src/main.js` child processes, and `stoa cluster proxy` writing
 * nginx's map from etcd with the configuration docs/SCALING.md shows. `.ci/run` installs etcd and
 * nginx; where they are missing the tests say so and skip.
 */
export const ETCD = '/usr/bin/etcd';
export const NGINX = '/usr/sbin/nginx';
export const EXTERNAL_HOST = 'chat.test';

export function missingTools(): string | null {
  if (!existsSync(ETCD)) return `${ETCD} is not installed (apt-get install etcd-server)`;
  if (!existsSync(NGINX)) return `${NGINX} is not installed (apt-get install nginx)`;
  return null;
}

type Teardown = { teardown(fn: () => unknown): void };

export function tempDir(t: Teardown, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export async function waitFor<T>(what: string, check: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

export interface Etcd {
  url: string;
  /** kill -9, then the same data directory started again. */
  kill9(): Promise<void>;
  start(): Promise<void>;
}

export async function startEtcd(t: Teardown): Promise<Etcd> {
  const dir = tempDir(t, 'stoa-etcd-');
  const [client, peer] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${client}`;
  let child: ChildProcess | null = null;
  const start = async () => {
    const args = ['--name', 'test', '--data-dir', join(dir, 'data'), '--listen-client-urls', url, '--advertise-client-urls', url, '--listen-peer-urls', `http://127.0.0.1:${peer}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${peer}`, '--initial-cluster', `test=http://127.0.0.1:${peer}`, '--log-level', 'error', '--logger', 'zap'];
    const proc = spawn(ETCD, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child = proc;
    let stderr = '';
    proc.stderr!.on('data', (c) => (stderr += c));
    await waitFor('etcd to answer', async () => {
      if (proc.exitCode !== null) throw new Error(`etcd exited: ${stderr}`);
      return fetch(`${url}/health`).then((r) => r.ok, () => false);
    }, 30_000);
  };
  const kill9 = async () => {
    const proc = child;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  };
  t.teardown(kill9);
  await start();
  return { url, kill9, start };
}

export interface StoaNode {
  id: string;
  port: number;
  dataDir: string;
  mailPort: number;
  proc: ServerProcess;
  start(): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function startNode(t: Teardown, id: string, etcd: Etcd, env: Record<string, string> = {}, config: Record<string, unknown> = {}): Promise<StoaNode> {
  const dataDir = tempDir(t, `stoa-${id}-`);
  const port = await freePort();
  const mailPort = await freePort();
  const node = {
    id,
    port,
    dataDir,
    mailPort,
    proc: null as unknown as ServerProcess,
    async start() {
      node.proc = await spawnServer(t, {
        STOA_PORT: String(port),
        STOA_DATA_DIR: dataDir,
        STOA_EXTERNAL_HOST: EXTERNAL_HOST,
        STOA_SHARDS: '1',
        STOA_ETCD: etcd.url,
        STOA_NODE_ID: id,
        STOA_ADVERTISE: `127.0.0.1:${port}`,
        // Behind the proxy (docs/SCALING.md): the client's address is the one nginx forwards.
        STOA_TRUSTED_PROXIES: '127.0.0.1',
        STOA_CONFIG: configFile(dataDir, mailPort, config),
        ...env,
      });
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      await node.proc.stop(signal);
    },
  };
  await node.start();
  return node;
}

/** The email gateway on its own port (the mail routing tests), and what a test adds. */
function configFile(dataDir: string, mailPort: number, config: Record<string, unknown>): string {
  const file = join(dataDir, 'node.json');
  writeFileSync(file, JSON.stringify({ emailGateway: { enabled: true, domain: 'mail.chat.test', port: mailPort, bind: '127.0.0.1', maxMessageBytes: 1 << 20 }, ...config }));
  return file;
}

/** `stoa <args>` with the cluster's etcd. */
export function stoaCluster(etcd: Etcd, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(process.execPath, [CLI, ...args], { env: cleanEnv({ STOA_ETCD: etcd.url, ...env }), timeout: 300_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

export async function stoaClusterOk(etcd: Etcd, args: string[], env: Record<string, string> = {}): Promise<string> {
  const res = await stoaCluster(etcd, args, env);
  if (res.code !== 0) throw new Error(`stoa ${args.join(' ')} failed (${res.code}): ${res.stderr}${res.stdout}`);
  return res.stdout;
}

export interface Proxy {
  port: number;
  mapFile: string;
  /** nginx's master process (its workers are its children). */
  nginxPid: number;
  stop(): Promise<void>;
}

/** docs/SCALING.md's nginx configuration, for this machine: loopback port, test host, map file. */
function siteConf(port: number, mapFile: string): string {
  const doc = readFileSync(join(projectRoot, 'docs/SCALING.md'), 'utf8');
  const block = [...doc.matchAll(/^```nginx\n([\s\S]*?)^```$/gm)].map((m) => m[1]).find((b) => b.includes('$stoa_backend'));
  if (!block) throw new Error('docs/SCALING.md has no nginx block routing by $stoa_backend');
  return block
    .replace(/include \/etc\/nginx\/stoa-cluster-map\.conf;/, `include ${mapFile};`)
    .replace(/listen 80;/, `listen 127.0.0.1:${port};`)
    .replace(/chat\.example\.com/g, EXTERNAL_HOST);
}

/** nginx in the foreground on a free port, and `stoa cluster proxy` keeping its map. */
export async function startProxy(t: Teardown, etcd: Etcd): Promise<Proxy> {
  const dir = tempDir(t, 'stoa-nginx-');
  const port = await freePort();
  const mapFile = join(dir, 'stoa-cluster-map.conf');
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
  writeFileSync(join(dir, 'site.conf'), siteConf(port, mapFile));
  // As root, nginx's workers would become nobody, who cannot read a private temporary folder.
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  writeFileSync(
    join(dir, 'nginx.conf'),
    `${user}worker_processes 1;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents { worker_connections 4096; }\nhttp {\n  access_log off;\n  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;\n  fastcgi_temp_path ${dir}/fastcgi;\n  uwsgi_temp_path ${dir}/uwsgi;\n  scgi_temp_path ${dir}/scgi;\n  include ${dir}/site.conf;\n}\n`,
  );
  const nginxArgs = ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')];
  // The map is written once before nginx starts (it includes the file), then kept by the watcher.
  await stoaClusterOk(etcd, ['cluster', 'proxy', '--map', mapFile, '--once']);
  const nginx = spawn(NGINX, [...nginxArgs, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let nginxErr = '';
  nginx.stderr!.on('data', (c) => (nginxErr += c));
  const nginxExited = new Promise<void>((resolve) => nginx.once('exit', () => resolve()));
  await waitFor('nginx to listen', async () => {
    if (nginx.exitCode !== null) throw new Error(`nginx exited: ${nginxErr} ${existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : ''}`);
    return fetch(`http://127.0.0.1:${port}/`, { headers: { host: EXTERNAL_HOST } }).then(() => true, () => false);
  }, 30_000);
  const reload = `${NGINX} ${nginxArgs.join(' ')} -s reload`;
  const writer = spawn(process.execPath, [CLI, 'cluster', 'proxy', '--map', mapFile, '--reload', reload], { env: cleanEnv({ STOA_ETCD: etcd.url, STOA_LOG_LEVEL: 'info' }), stdio: ['ignore', 'pipe', 'pipe'] });
  let writerOut = '';
  writer.stdout!.on('data', (c) => (writerOut += c));
  writer.stderr!.on('data', (c) => (writerOut += c));
  await waitFor('the proxy writer to start', () => writerOut.includes('writing'), 30_000);
  const stop = async () => {
    if (writer.exitCode === null) writer.kill('SIGKILL');
    if (nginx.exitCode === null) nginx.kill('SIGQUIT');
    const killer = setTimeout(() => nginx.kill('SIGKILL'), 10_000);
    await nginxExited;
    clearTimeout(killer);
  };
  t.teardown(stop);
  return { port, mapFile, nginxPid: nginx.pid!, stop };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  raw: Buffer;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/**
 * One HTTP request to 127.0.0.1:port with a Host header: through the proxy, or to a node. A GET
 * whose kept-alive connection was closed under it (nginx's old workers close idle connections
 * when it reloads) goes again once on a new one, as HTTP clients retry idempotent requests.
 */
export async function call(port: number, host: string, method: string, path: string, opts: CallOptions = {}): Promise<Answer> {
  try {
    return await callOnce(port, host, method, path, opts);
  } catch (err) {
    if (method !== 'GET' || !/socket hang up|ECONNRESET/.test((err as Error).message)) throw err;
    return callOnce(port, host, method, path, opts);
  }
}

type CallOptions = { auth?: { email: string; apiKey: string }; params?: Record<string, unknown>; body?: Buffer; contentType?: string; timeoutMs?: number; signal?: AbortSignal };

function callOnce(port: number, host: string, method: string, path: string, opts: CallOptions): Promise<Answer> {
  const headers: Record<string, string> = { host };
  let url = path;
  let body = opts.body;
  if (opts.params) {
    const pairs = Object.entries(opts.params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]);
    if (method === 'GET' || method === 'DELETE') url += `?${new URLSearchParams(pairs)}`;
    else {
      body = Buffer.from(new URLSearchParams(pairs).toString());
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
  }
  if (opts.contentType) headers['content-type'] = opts.contentType;
  if (opts.auth) headers.authorization = `Basic ${Buffer.from(`${opts.auth.email}:${opts.auth.apiKey}`).toString('base64')}`;
  if (body) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path: url, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        let parsed: unknown = null;
        try {
          parsed = JSON.parse(raw.toString('utf8'));
        } catch {
          // Not JSON: a page, a file.
        }
        resolve({ status: res.statusCode!, headers: res.headers, body: parsed, raw });
      });
      res.on('error', reject);
    });
    req.setTimeout(opts.timeoutMs ?? 120_000, () => req.destroy(new Error(`${method} ${path}: no answer in time`)));
    const abort = () => req.destroy(new Error('aborted'));
    opts.signal?.addEventListener('abort', abort, { once: true });
    req.once('close', () => opts.signal?.removeEventListener('abort', abort));
    req.on('error', reject);
    req.end(body);
  });
}

export const hostOf = (subdomain: string) => `${subdomain}.${EXTERNAL_HOST}`;
