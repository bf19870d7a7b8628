import { chmodSync, unlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import type { CommandResult, UserCommand } from '../host/user-commands.js';
import type { ResolvedConfig } from '../lib/config.js';
import { auditLog, log } from '../lib/log.js';
import type { ShardPool } from '../host/pool.js';
import type { Directory } from '../store/directory.js';

/**
 * The admin CLI's way into a running server: HTTP on a Unix socket, `<dataDir>/admin.sock`, mode
 * 0600. Whoever may connect to it may write the data directory anyway (the same user), so the
 * socket's permissions are its authentication; nothing listens on the network. The server keeps
 * every realm in memory and is the only writer of its stores, so the CLI's commands that change
 * something run here, in the realms' shards, rather than beside the server (store/lock.ts).
 *
 *   GET  /info            the server's pid, URL, externalHost, scheme and port
 *   POST /user            {realm: subdomain, command: UserCommand} -> CommandResult
 *   POST /realm/create    {subdomain, name, ownerEmail, ownerFullName, ownerPassword?} -> the created realm
 *   POST /realm/active    {realm, active}           -> {changed}
 *   POST /audit           {event, ...fields}        -> an audit line in the server's log (`stoa backup`)
 */
export const ADMIN_SOCKET = 'admin.sock';
/** sun_path holds 108 bytes on Linux (104 on some systems), its terminating zero included. */
const MAX_SOCKET_PATH = 103;

export interface AdminSocket {
  path: string;
  close(): Promise<void>;
}

export interface AdminContext {
  config: ResolvedConfig;
  directory: Directory;
  pool: ShardPool;
  url: string;
  /** After a realm is created: the front end reads the directory again. */
  refreshRealms(): void;
}

class Refusal extends Error {}

async function body(req: IncomingMessage): Promise<Record<string, any>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 65536) throw new Refusal('request too large');
    chunks.push(chunk as Buffer);
  }
  try {
    return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
  } catch {
    throw new Refusal('not JSON');
  }
}

function realmEntry(ctx: AdminContext, subdomain: unknown) {
  const entry = typeof subdomain === 'string' ? ctx.directory.get(subdomain) : undefined;
  if (!entry) throw new Refusal(`no ${subdomain === '' ? 'root realm' : `realm with subdomain "${subdomain}"`} (see: stoa realm list)`);
  return entry;
}

async function answer(ctx: AdminContext, method: string, path: string, req: IncomingMessage): Promise<unknown> {
  if (method === 'GET' && path === '/info') {
    const { externalHost, scheme, port, dataDir } = ctx.config;
    return { pid: process.pid, url: ctx.url, externalHost, scheme, port, dataDir };
  }
  if (method !== 'POST') throw new Refusal(`no ${method} ${path}`);
  const input = await body(req);
  switch (path) {
    case '/user': {
      const entry = realmEntry(ctx, input.realm);
      return ctx.pool.admin<CommandResult>(entry.shard, { kind: 'admin', op: 'userCommand', realmId: entry.id, command: input.command as UserCommand });
    }
    case '/realm/create': {
      const { createRealm, describeCreatedRealm, RealmCreationError } = await import('../realms.js');
      try {
        const created = await createRealm(ctx.config, ctx.directory, (shard, spec) => ctx.pool.admin(shard, { kind: 'admin', op: 'createRealm', spec }), {
          subdomain: String(input.subdomain),
          name: String(input.name),
          ownerEmail: String(input.ownerEmail),
          ownerFullName: String(input.ownerFullName),
          ownerPassword: input.ownerPassword === undefined ? undefined : String(input.ownerPassword),
        });
        ctx.refreshRealms();
        auditLog.info({ event: 'realm.create', outcome: 'ok', realm: created.realm.id, actor: 'cli', subdomain: input.subdomain }, 'realm.create');
        return { ok: true, value: { text: describeCreatedRealm(created) } };
      } catch (err) {
        if (err instanceof RealmCreationError) return { ok: false, error: err.message };
        throw err;
      }
    }
    case '/realm/active': {
      const entry = realmEntry(ctx, input.realm);
      const changed = await ctx.pool.admin<boolean>(entry.shard, { kind: 'admin', op: 'setRealmDeactivated', realmId: entry.id, deactivated: input.active !== true });
      if (changed) auditLog.info({ event: input.active ? 'realm.reactivate' : 'realm.deactivate', outcome: 'ok', realm: entry.id, actor: 'cli' }, 'realm.active');
      return { ok: true, value: { changed } };
    }
    case '/audit': {
      const { event, ...fields } = input;
      if (typeof event !== 'string') throw new Refusal('an audit line needs an event');
      auditLog.info({ event, outcome: 'ok', actor: 'cli', ...fields }, event);
      return { ok: true, value: {} };
    }
  }
  throw new Refusal(`no ${method} ${path}`);
}

/** Listens on <dataDir>/admin.sock; null (and a warning) when the path is too long for a socket. */
export async function startAdminSocket(ctx: AdminContext): Promise<AdminSocket | null> {
  const path = join(ctx.config.dataDir, ADMIN_SOCKET);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    log.warn({ path }, 'the data directory\'s path is too long for a Unix socket: the admin CLI cannot reach this server (stop it to run write commands)');
    return null;
  }
  // The data-directory lock is ours: a socket file left there is a crashed server's.
  try {
    unlinkSync(path);
  } catch {
    // none
  }
  const server: Server = createServer((req, res) => {
    answer(ctx, req.method ?? 'GET', req.url ?? '/', req).then(
      (value) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      },
      (err) => {
        if (!(err instanceof Refusal)) log.error({ err }, 'admin socket request failed');
        res.writeHead(err instanceof Refusal ? 400 : 500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: false, error: err instanceof Refusal ? err.message : `the server failed: ${(err as Error).message}` }));
      },
    );
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    chmodSync(path, 0o600);
  } catch (err) {
    // The server runs without it: the CLI's write commands then wait for it to stop.
    log.warn({ err, path }, 'the admin socket could not be opened: the admin CLI cannot reach this server');
    server.close();
    return null;
  }
  return {
    path,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        try {
          unlinkSync(path);
        } catch {
          // gone already
        }
      }),
  };
}
