import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { Server as NetServer, type AddressInfo, type Socket } from 'node:net';
import { mkdirSync } from 'node:fs';
import type { CreatedRealm } from './api/realm/actions.js';
import { loadConfig, resolveConfig, type Config, type ResolvedConfig } from './lib/config.js';
import { createFrontEnd } from './front/app.js';
import { longPollHandler } from './front/longpoll.js';
import { fastPostHandler } from './front/fast-post.js';
import { fastGetHandler } from './front/fast-get.js';
import { proxyTrust } from './front/client-address.js';
import { startAdminSocket } from './front/admin-socket.js';
import { setLogLevel } from './lib/log.js';
import { ShardPool } from './host/pool.js';
import { localMail, startMailListener } from './front/smtp.js';
import type { ClusterNode, NewOrganization } from './cluster/node.js';
import { Directory } from './store/directory.js';
import { checkDirectoryFile, checkShardFiles, StoreError } from './store/integrity.js';
import { probeStores, type ProbeReport } from './store/probe.js';
import { acquireLock, type DataDirLock } from './store/lock.js';
import { checkStoresAfterStart } from './host/store-check.js';
import { compactWhenIdle, RequestActivity, type Compaction } from './host/compact-when-idle.js';
import { log } from './lib/log.js';
import { refreshZuliprcSites } from './zuliprc.js';
import { ensureStoreFormat } from './store/format.js';

export interface RunningServer {
  config: ResolvedConfig;
  url: string;
  port: number;
  /** Set on the first start with an empty data directory: the root realm and its owner. */
  bootstrap: (CreatedRealm & { zuliprc: string }) | null;
  /** The email gateway's SMTP port, when its listener runs (front/smtp.ts). */
  mailPort: number | null;
  /** What the start changed that an operator should hear of (main.ts prints them). */
  notices: string[];
  /** The check of every table after start (host/store-check.ts): how many problems it found. */
  storeCheck: Promise<number>;
  /** The threads' one compaction once idle after start (host/compact-when-idle.ts). */
  compaction: Promise<Compaction>;
  /** Stops accepting, lets in-flight requests finish, flushes LMDB. */
  close(): Promise<void>;
}

function listen(server: Server, port: number, bind: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, bind, () => resolve((server.address() as AddressInfo).port));
  });
}

export interface StartOptions {
  /**
   * The start's probe of the tables the shards load (probeStores 'load'), when the caller began
   * it before loading this module (main.ts): its child then reads while this process loads.
   */
  loadProbe?: Promise<ProbeReport>;
  /**
   * Turns V8's compiling tiers back on (lib/start-tiers.ts; main.ts holds them for the start):
   * called when the first client connects, or TIERS_HELD_LATEST_MS after the listener opened
   * if none has.
   */
  releaseTiers?: () => void;
  /**
   * The shard pool, when the caller made it before loading this module (serve.ts), so that its
   * threads load their modules while this process loads its own; they wait at its gate until
   * the checks below have passed (ShardPool.prestart).
   */
  pool?: ShardPool;
}

export async function startServer(config: Config = loadConfig(), opts: StartOptions = {}): Promise<RunningServer> {
  setLogLevel(config.logLevel, config.accessLog);
  mkdirSync(config.dataDir, { recursive: true });
  // One writer per data directory: refuse a second server, and the admin CLI while we run.
  const lock = acquireLock(config.dataDir);
  try {
    return await start(config, lock, opts);
  } catch (err) {
    lock.release();
    throw err;
  }
}

/** A cluster node, with the way it makes an organization here (src/realms.ts through the pool). */
async function clusterNode(config: ResolvedConfig, directory: Directory, pool: ShardPool, refreshRealms: () => void): Promise<ClusterNode> {
  const { ClusterNode } = await import('./cluster/node.js');
  const makeRealm = async (args: NewOrganization & { id: number }) => {
    const { createRealm } = await import('./realms.js');
    const created = await createRealm(config, directory, (shard, spec) => pool.admin(shard, { kind: 'admin', op: 'createRealm', spec }), args);
    return { realmId: created.realm.id, url: created.url, ownerEmail: created.owner.email, ownerPassword: created.ownerPassword, ownerApiKey: created.owner.apiKey, zuliprc: created.zuliprc };
  };
  return new ClusterNode(config, directory, pool, refreshRealms, makeRealm);
}

/** Node's HTTP parser errors that have an answer of their own; the rest are 400. */
const PARSER_ANSWERS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'Request headers are too large.'],
  HPE_HEADER_TIMEOUT: [408, 'Request Timeout', 'The request took too long to arrive.'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'The request took too long to arrive.'],
};

/**
 * Errors of Node's HTTP parser (a malformed request line, oversized headers, a bad chunk) come
 * before any handler runs, and Node answers them with an empty body. Answer them in the API's
 * shape instead, and close: the rest of the connection's bytes cannot be trusted.
 */
function answerParserError(err: NodeJS.ErrnoException & { bytesParsed?: number }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const [status, text, msg] = PARSER_ANSWERS[err.code ?? ''] ?? [400, 'Bad Request', 'Malformed HTTP request.'];
  const body = JSON.stringify({ result: 'error', msg, code: 'BAD_REQUEST' });
  socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** How long a connection must have been idle, once stopping, before it is closed (see close). */
const IDLE_LINGER_MS = 250;
/** How long a stop still accepts connections the kernel has queued (see close). */
const ACCEPT_LINGER_MS = 100;
/**
 * The latest V8's compiling tiers come back after the start (StartOptions.releaseTiers), for a
 * server that no client reaches: work of its own (the email gateway's mail, a cluster's, the
 * admin socket's commands) should not run in the interpreter for long.
 */
const TIERS_HELD_LATEST_MS = 60_000;
/** The latest the storage check after start begins, for a server that is never idle. */
const STORE_CHECK_LATEST_MS = 30_000;

/** Whether the server went idle after start, or the time ran out, before it was stopped. */
function afterIdle(idle: Promise<unknown>, latestMs: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(!signal.aborted), latestMs);
    timer.unref();
    void idle.then(() => {
      clearTimeout(timer);
      resolve(!signal.aborted);
    });
  });
}

async function start(config: Config, lock: DataDirLock, opts: StartOptions): Promise<RunningServer> {
  // Before anything opens them: a missing or damaged store is refused with its file and the
  // problem, never opened (LMDB would crash on it) or replaced by an empty one.
  checkDirectoryFile(config.dataDir);
  const directory = new Directory(config.dataDir);
  let notices: string[];
  try {
    checkShardFiles(config.dataDir, directory.list());
    // What the shards are about to load, read first in a child process: a damaged page there
    // would end this process with SIGBUS or SIGSEGV and nothing in the log.
    if (directory.list().length > 0) {
      const [problem] = (await (opts.loadProbe ?? probeStores(config.dataDir, 'load'))).problems;
      if (problem) throw new StoreError(problem.file, problem.problem + (problem.table && !problem.problem.includes(problem.table) ? ` (table ${problem.table})` : ''));
    }
    // An older data format is upgraded (after a copy), a newer one refused, before a shard opens.
    notices = await ensureStoreFormat(config.dataDir, directory);
  } catch (err) {
    await directory.close();
    throw err;
  }
  // Requests that arrive while the shards load wait here: none may run before every shard has
  // raised the shared message-id counter (ShardPool.ready).
  let handle: RequestListener | null = null;
  const early: [IncomingMessage, ServerResponse][] = [];
  // Each connection's requests in flight and when it last finished one: a stop closes the idle
  // ones, and lets the busy ones finish (see close).
  const connections = new Map<Socket, { busy: number; idleSince: number }>();
  // What happened to the requests a stop found: logged when it ends.
  const stopStats = { answered: 0, cut: 0 };
  // What the idle compaction after start watches (host/compact-when-idle.ts).
  const requests = new RequestActivity();
  // Set once a stop begins (see close). Declared before the listener opens: a response's close
  // handler reads it, and a client may hang up while the shards are still loading.
  let closing: Promise<void> | null = null;
  const http = createServer((req, res) => {
    const conn = connections.get(req.socket);
    if (conn) {
      conn.busy++;
      const waits = requests.begin(req);
      // A response closes once: a plain listener, without once()'s wrapper (per parked poll too).
      res.on('close', () => {
        requests.end(waits);
        conn.busy--;
        conn.idleSince = Date.now();
        if (closing) stopStats[res.writableFinished ? 'answered' : 'cut']++;
      });
    }
    if (handle) handle(req, res);
    else early.push([req, res]);
  });
  http.on('connection', (socket: Socket) => {
    connections.set(socket, { busy: 0, idleSince: Date.now() });
    socket.on('close', () => connections.delete(socket));
  });
  http.on('clientError', answerParserError);
  // Before the first client's request runs: it is served with every tier.
  if (opts.releaseTiers) http.once('connection', opts.releaseTiers);
  // Node closes a kept-alive connection after 5 s idle; a client that reuses it at that moment
  // (any client that paused between two requests) sees its request reset, which for a send
  // means not knowing whether it was stored. Clients and proxies keep connections longer, so
  // keep them as nginx does (75 s, past the 50 s long-poll heartbeat); a stop closes idle ones
  // anyway.
  http.keepAliveTimeout = 75_000;
  http.headersTimeout = 80_000;
  const port = await listen(http, config.port, config.bind);
  if (opts.releaseTiers) setTimeout(opts.releaseTiers, TIERS_HELD_LATEST_MS).unref();
  const resolved = resolveConfig(config, port);
  resolved.shards = Math.max(resolved.shards, directory.shardsInUse());
  const pool = opts.pool ?? new ShardPool(config);
  pool.open(resolved);
  // A cluster node (docs/SCALING.md); loaded only then, with its etcd client.
  const cluster = resolved.cluster ? await clusterNode(resolved, directory, pool, () => front.refreshRealms()) : null;
  const front = createFrontEnd(resolved, directory, pool, cluster ?? undefined);
  await pool.ready(
    directory.list().map((realm) => realm.shard),
    cluster ? () => cluster.start() : undefined,
  );

  let bootstrap: RunningServer['bootstrap'] = null;
  // A cluster's organizations are made by `stoa cluster create-org`, on the node it picks.
  if (directory.list().length === 0 && !cluster) {
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
  notices.push(...refreshZuliprcSites(resolved, directory));
  const shardsWithRealms = () => directory.list().map((realm) => realm.shard);
  const mailRoute = cluster ? new (await import('./cluster/mail.js')).MailRouter(cluster) : undefined;
  const mail = resolved.emailGateway.enabled && resolved.emailGateway.port !== null ? await startMailListener(resolved, pool, shardsWithRealms, mailRoute) : null;
  const koa = front.app.callback();
  // The nodes' internal API (cluster/internal.ts), ahead of everything else.
  let internal: ((req: IncomingMessage, res: ServerResponse) => boolean) | null = null;
  if (cluster) {
    const local = localMail(resolved, pool, shardsWithRealms);
    internal = (await import('./cluster/internal.js')).internalHandler(cluster, { known: async (to) => (await local.shardFor(to)) !== null, deliver: (m) => local.deliver(m) });
  }
  const longPoll = longPollHandler(front.realmFor, pool, () => closing !== null, front.guard);
  const fastPost = fastPostHandler(front.realmFor, pool, front.guard, resolved.requestLimits);
  const fastGet = fastGetHandler(front.realmFor, pool, front.guard, resolved.requestLimits);
  const proxies = proxyTrust(resolved.trustedProxies, resolved.scheme);
  handle = (req, res) => {
    proxies.tag(req);
    front.logRequest(req, res);
    // Once stopping, every answer closes its connection (see longpoll.ts).
    if (closing) res.shouldKeepAlive = false;
    if (internal?.(req, res)) return;
    if (!longPoll(req, res) && !fastPost(req, res) && !fastGet(req, res)) void koa(req, res);
  };
  // A client that hung up while it waited has nobody to answer: a long-poll of its would park
  // until its heartbeat, since the close that cancels it has already fired.
  for (const [req, res] of early.splice(0)) if (!res.destroyed) handle(req, res);
  const url = `http://${resolved.bind.includes(':') ? `[${resolved.bind}]` : resolved.bind}:${port}`;
  // The admin CLI's way in while the server runs (`stoa user ...`).
  const adminSocket = await startAdminSocket({ config: resolved, directory, pool, url, refreshRealms: front.refreshRealms });
  const checking = new AbortController();
  // What the start grew the threads' heaps to goes back once the server is idle.
  const compaction = compactWhenIdle(pool, checking.signal, requests);
  // Every table read once, in a child process at low priority: damaged ones are refused. It
  // begins once the requests that follow a restart (every client registering again) have
  // settled, when the compaction runs, or STORE_CHECK_LATEST_MS after the start if they never
  // do: even at the lowest priority, a child reading a large store on the spare core slowed
  // each of those requests (bench/RESULTS.md, the idle4 session: P7b).
  const storeCheck = afterIdle(compaction, STORE_CHECK_LATEST_MS, checking.signal).then((go) => (go ? checkStoresAfterStart(config.dataDir, pool, checking.signal) : 0));

  /**
   * A graceful stop. In order:
   *   1. for ACCEPT_LINGER_MS more, connections are still accepted: those the kernel queued
   *      while the event loop was busy are requests already on the wire, and closing the
   *      listener would reset them. Every answer from now on closes its connection;
   *   2. stop accepting (a refused connection is one a client knows was never served);
   *   3. every shard answers its parked long-polls, empty, and parks no more;
   *   4. requests in flight finish; an idle keep-alive connection is closed once it has been
   *      idle IDLE_LINGER_MS, so that a client between two requests of a loop sends its next
   *      one and is answered rather than reset (closing idle connections at once, as
   *      http.Server.close does, drops requests already on the wire);
   *   5. after stopGraceSeconds whatever is left is closed: a client that reads its answer
   *      slowly, or dribbles its request in, cannot hold the stop;
   *   6. the shards save their queues and flush LMDB.
   */
  const close = () =>
    (closing ??= (async () => {
      const started = Date.now();
      checking.abort();
      await mail?.close();
      await adminSocket?.close();
      const deadline = started + resolved.stopGraceSeconds * 1000;
      await new Promise((resolve) => setTimeout(resolve, Math.min(ACCEPT_LINGER_MS, resolved.stopGraceSeconds * 1000)));
      // Closed from the check phase, right after the poll phase has accepted every connection
      // the kernel had queued: only one completed in the microseconds between is reset.
      await new Promise((resolve) => setImmediate(resolve));
      const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(http, () => resolve()));
      await pool.drain();
      while (connections.size > 0 && Date.now() < deadline) {
        const now = Date.now();
        for (const [socket, conn] of connections) if (conn.busy === 0 && now - conn.idleSince >= IDLE_LINGER_MS) socket.destroy();
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const left = connections.size;
      if (left > 0) {
        http.closeAllConnections();
        for (const socket of connections.keys()) socket.destroy();
      }
      await closed;
      log.info({ ms: Date.now() - started, answered: stopStats.answered, cut: stopStats.cut, closedAtGrace: left }, 'stop: requests answered during the stop, and cut off when the grace period ended');
      try {
        await storeCheck;
        await cluster?.close();
        await pool.close();
        await directory.close();
      } finally {
        // Whatever failed, this process writes no more: the next start must not find it locked.
        lock.release();
      }
    })());

  return { config: resolved, url, port, bootstrap, mailPort: mail?.port ?? null, notices, storeCheck, compaction, close };
}
