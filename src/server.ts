import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import type { CreatedRealm } from './api/realm/actions.js';
import { loadConfig, resolveConfig, type Config, type ResolvedConfig } from './config.js';
import { createFrontEnd } from './front/app.js';
import { longPollHandler } from './front/longpoll.js';
import { setLogLevel } from './lib/log.js';
import { ShardPool } from './shard/pool.js';
import { startMailListener } from './front/smtp.js';
import { Directory } from './store/directory.js';
import { acquireLock, type DataDirLock } from './store/lock.js';

export interface RunningServer {
  config: ResolvedConfig;
  url: string;
  port: number;
  /** Set on the first start with an empty data directory: the root realm and its owner. */
  bootstrap: (CreatedRealm & { zuliprc: string }) | null;
  /** The email gateway's SMTP port, when its listener runs (front/smtp.ts). */
  mailPort: number | null;
  /** Stops accepting, lets in-flight requests finish, flushes LMDB. */
  close(): Promise<void>;
}

function listen(server: Server, port: number, bind: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, bind, () => resolve((server.address() as AddressInfo).port));
  });
}

export async function startServer(config: Config = loadConfig()): Promise<RunningServer> {
  setLogLevel(config.logLevel);
  mkdirSync(config.dataDir, { recursive: true });
  // One writer per data directory: refuse a second server, and the admin CLI while we run.
  const lock = acquireLock(config.dataDir);
  try {
    return await start(config, lock);
  } catch (err) {
    lock.release();
    throw err;
  }
}

/** How long a stop waits for requests in flight before it closes their connections. */
const STOP_GRACE_MS = 5000;

async function start(config: Config, lock: DataDirLock): Promise<RunningServer> {
  const directory = new Directory(config.dataDir);
  // Requests that arrive while the shards load wait here: none may run before every shard has
  // raised the shared message-id counter (ShardPool.ready).
  let handle: RequestListener | null = null;
  const early: [IncomingMessage, ServerResponse][] = [];
  const http = createServer((req, res) => (handle ? handle(req, res) : early.push([req, res])));
  const port = await listen(http, config.port, config.bind);
  const resolved = resolveConfig(config, port);
  resolved.shards = Math.max(resolved.shards, directory.shardsInUse());
  const pool = new ShardPool(resolved);
  const front = createFrontEnd(resolved, directory, pool);
  await pool.ready(directory.list().map((realm) => realm.shard));

  let bootstrap: RunningServer['bootstrap'] = null;
  if (directory.list().length === 0) {
    // Loaded only here: realm creation pulls in every action (and the Markdown renderer), which
    // the main thread otherwise never runs; keeping it out saves its memory on every later start.
    const { createRealm } = await import('./realms.js');
    const { name, ownerEmail, ownerFullName } = resolved.rootRealm;
    bootstrap = await createRealm(resolved, directory, (shard, spec) => pool.admin(shard, { kind: 'admin', op: 'createRealm', spec }), {
      subdomain: '',
      name,
      ownerEmail,
      ownerFullName,
    });
    front.refreshRealms();
  }
  const mail = resolved.emailGateway.enabled && resolved.emailGateway.port !== null ? await startMailListener(resolved, pool, () => directory.list().map((realm) => realm.shard)) : null;
  const koa = front.app.callback();
  let closing: Promise<void> | null = null;
  const longPoll = longPollHandler(front.realmFor, pool, () => closing !== null);
  handle = (req, res) => {
    // Once stopping, every answer closes its connection (see longpoll.ts).
    if (closing) res.shouldKeepAlive = false;
    if (!longPoll(req, res)) void koa(req, res);
  };
  for (const [req, res] of early.splice(0)) handle(req, res);

  const close = () =>
    (closing ??= (async () => {
      // Parked long-polls would hold the HTTP server open until their heartbeat: answer them first.
      await mail?.close();
      await pool.drain();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeIdleConnections();
        // A request still unanswered after the grace period (a client that stopped reading, a
        // connection whose peer vanished without a FIN) must not keep the server from stopping.
        setTimeout(() => http.closeAllConnections(), STOP_GRACE_MS).unref();
      });
      await pool.close();
      await directory.close();
      lock.release();
    })());

  return { config: resolved, url: `http://${resolved.bind.includes(':') ? `[${resolved.bind}]` : resolved.bind}:${port}`, port, bootstrap, mailPort: mail?.port ?? null, close };
}
