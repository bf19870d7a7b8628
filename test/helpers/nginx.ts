import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../src/lib/config.js';

/**
 * Debian's nginx, run by a test with the configuration docs/OPERATIONS.md shows, on free ports
 * and a temporary prefix. `.ci/run` installs nginx; where it is missing, the tests that need it
 * say so and skip.
 */
export const NGINX = '/usr/sbin/nginx';
export const OPENSSL = '/usr/bin/openssl';

export function missingTools(): string | null {
  if (!existsSync(NGINX)) return `${NGINX} is not installed (apt-get install nginx)`;
  if (!existsSync(OPENSSL)) return `${OPENSSL} is not installed (apt-get install openssl)`;
  return null;
}

/** A fenced block of a markdown file: the first whose info string is `lang` and whose text matches. */
export function markdownBlock(file: string, lang: string, matching: RegExp = /./): string {
  const text = readFileSync(join(projectRoot, file), 'utf8');
  for (const m of text.matchAll(new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```$', 'gm'))) if (matching.test(m[1])) return m[1];
  throw new Error(`${file} has no \`\`\`${lang} block matching ${matching}`);
}

export function run(cmd: string, args: string[], opts: { cwd?: string } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(cmd, args, { ...opts, timeout: 60_000 }, (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr })),
  );
}

export interface Ports {
  /** Stoa's port (the upstream). */
  upstream: number;
  https: number;
  http: number;
}

export interface NginxSite {
  /** The guide's server blocks, rewritten for this machine: loopback ports, a temporary certificate. */
  conf: string;
  dir: string;
  cert: Buffer;
  hostName: string;
}

/**
 * The guide's nginx configuration with what differs on a test machine replaced: the listen
 * ports (loopback only, no IPv6), the upstream port, the host name and the certificate, made
 * here by openssl (self-signed, for the host and its subdomains).
 */
export async function prepareSite(ports: Ports, hostName = 'chat.test'): Promise<NginxSite> {
  const dir = mkdtempSync(join(tmpdir(), 'stoa-nginx-'));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const made = await run(OPENSSL, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', `/CN=${hostName}`, '-addext', `subjectAltName=DNS:${hostName},DNS:*.${hostName}`]);
  if (made.code !== 0) throw new Error(`openssl failed: ${made.stderr}`);
  const conf = markdownBlock('docs/OPERATIONS.md', 'nginx', /upstream stoa/)
    .replace(/server 127\.0\.0\.1:9991;/, `server 127.0.0.1:${ports.upstream};`)
    .replace(/^\s*listen \[::\]:\d+.*\n/gm, '')
    .replace(/listen 80;/, `listen 127.0.0.1:${ports.http};`)
    .replace(/listen 443 ssl;/, `listen 127.0.0.1:${ports.https} ssl;`)
    .replace(/chat\.example\.com/g, hostName)
    .replace(/ssl_certificate\s+\S+;/, `ssl_certificate ${cert};`)
    .replace(/ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${key};`);
  return { conf, dir, cert: readFileSync(cert), hostName };
}

/** The http-context wrapper a site file is included from in /etc/nginx/nginx.conf, with temporary paths. */
export function mainConf(site: NginxSite): string {
  const dir = site.dir;
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(join(dir, 'stoa.conf'), site.conf);
  // As root, the workers would switch to nobody, who cannot read a private temporary folder.
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  const text = `${user}worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 512; }
http {
    access_log ${dir}/access.log;
    client_body_temp_path ${dir}/body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
    include ${dir}/stoa.conf;
}
`;
  const path = join(dir, 'nginx.conf');
  writeFileSync(path, text);
  return path;
}

export interface RunningNginx {
  dir: string;
  stop(): Promise<void>;
}

function waitForPort(port: number, deadline: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline) reject(new Error(`nothing listens on ${port}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

/** Checks the configuration (nginx -t), then runs nginx in the foreground until stop(). */
export async function startNginx(site: NginxSite, ports: Ports): Promise<RunningNginx> {
  const conf = mainConf(site);
  const args = ['-p', site.dir, '-c', conf, '-e', join(site.dir, 'error.log')];
  const test = await run(NGINX, [...args, '-t']);
  if (test.code !== 0) throw new Error(`nginx -t refused the guide's configuration:\n${test.stderr}`);
  const child = spawn(NGINX, [...args, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await Promise.race([waitForPort(ports.https, Date.now() + 30_000), exited.then(() => Promise.reject(new Error(`nginx exited: ${stderr}`)))]);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    dir: site.dir,
    async stop() {
      // SIGQUIT: nginx's graceful stop.
      if (child.exitCode === null) child.kill('SIGQUIT');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
      rmSync(site.dir, { recursive: true, force: true });
    },
  };
}
