import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { ADMIN_SOCKET } from '../front/admin-socket.js';
import { auditLog } from '../lib/log.js';
import { lockHolder } from '../store/lock.js';
import { CliError } from './context.js';

/**
 * The running server, as the CLI reaches it: through `<dataDir>/admin.sock`
 * (front/admin-socket.ts) when the process holding the data-directory lock is a server with its
 * socket open. Null when no server runs (the CLI then works on the stores itself, under the
 * lock), or when the lock is held by something without a socket (another admin command).
 */
export interface ServerConnection {
  pid: number;
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
}

export interface ServerInfo {
  pid: number;
  url: string;
  externalHost: string;
  scheme: 'http' | 'https';
  port: number;
}

export function runningServer(dataDir: string): ServerConnection | null {
  const pid = lockHolder(dataDir);
  const socketPath = join(dataDir, ADMIN_SOCKET);
  if (pid === null || !existsSync(socketPath)) return null;
  const call = <T>(method: string, path: string, body?: unknown): Promise<T> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = request({ socketPath, method, path, headers: payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {} }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          try {
            const answer = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            if (res.statusCode !== 200) reject(new CliError(answer.error ?? `the server answered ${res.statusCode}`));
            else resolve(answer as T);
          } catch {
            reject(new CliError(`the server (pid ${pid}) gave an answer that is not JSON`));
          }
        });
      });
      req.on('error', (err) => reject(new CliError(`the server (pid ${pid}) did not answer on ${socketPath}: ${err.message}`)));
      req.end(payload);
    });
  return { pid, get: (path) => call('GET', path), post: (path, body) => call('POST', path, body) };
}

/**
 * An audit line for what the CLI did beside the server (a backup): into the running server's
 * log when there is one, so that the operator finds it with the rest; else on stderr.
 */
export async function auditCli(dataDir: string, line: { event: string; [field: string]: unknown }): Promise<void> {
  const server = runningServer(dataDir);
  if (server) {
    try {
      await server.post('/audit', line);
      return;
    } catch {
      // the server went away: stderr then
    }
  }
  auditLog.info({ outcome: 'ok', actor: 'cli', ...line }, line.event);
}
