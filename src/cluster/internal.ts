import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { log } from '../lib/log.js';
import type { RealmStats } from '../host/realm-moves.js';
import type { DumpCursor } from '../store/realm-copy.js';
import { KEYS, type MoveRecord } from './etcd.js';
import { RealmTaken, type ClusterNode, type NewOrganization } from './node.js';
import { removeRealmFiles, SECRET_HEADER, serveDelta, serveDump, serveFiles } from './transfer.js';
import { receiveMail, type RoutedMail, type WireMail } from './mail.js';

/**
 * The nodes' internal API, on each node's own HTTP port under /_stoa/cluster/, for the other
 * nodes and the `stoa cluster` CLI only: every request carries the cluster's secret (from etcd,
 * so whoever may read etcd may call it), and the proxy's configuration refuses the path
 * (docs/SCALING.md).
 *
 *   GET    /_stoa/cluster/status                node, memory, CPU and each served realm's load
 *   POST   /_stoa/cluster/realms                create an organization here (JSON NewOrganization)
 *   GET    /_stoa/cluster/realms/<id>/dump      a realm's rows, for the move under way
 *   GET    /_stoa/cluster/realms/<id>/delta     those written since the dump began
 *   GET    /_stoa/cluster/realms/<id>/files     its files (transfer.ts)
 *   DELETE /_stoa/cluster/copies/<subdomain>    drop the copy a move left behind
 *   POST   /_stoa/cluster/mail                  mail for one of this node's channel addresses
 */
export const INTERNAL_PREFIX = '/_stoa/cluster/';

export interface NodeStatus {
  node: string;
  address: string;
  pid: number;
  uptimeSeconds: number;
  rssBytes: number;
  heapUsedBytes: number;
  cpuSeconds: number;
  realms: (RealmStats & { subdomain: string; name: string })[];
  /** Copies of organizations that moved away, kept until dropped. */
  heldCopies: string[];
  /** Organizations being copied here by a move not switched yet. */
  arriving: string[];
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    // Mail carries its attachments: the gateway's own limit, with room for base64.
    if (size > 64 << 20) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function authorized(node: ClusterNode, req: IncomingMessage): boolean {
  const given = Buffer.from(String(req.headers[SECRET_HEADER] ?? ''));
  const secret = Buffer.from(node.secret);
  return node.secret !== '' && given.length === secret.length && timingSafeEqual(given, secret);
}

export async function nodeStatus(node: ClusterNode): Promise<NodeStatus> {
  const entries = node.directory.list();
  const stats = (await Promise.all([...new Set(entries.filter((e) => !e.held).map((e) => e.shard))].map((shard) => node.pool.admin<RealmStats[]>(shard, { kind: 'admin', op: 'realmStats' })))).flat();
  const byId = new Map(entries.map((e) => [e.id, e]));
  const usage = process.cpuUsage();
  return {
    node: node.id,
    address: node.address,
    pid: process.pid,
    uptimeSeconds: Math.round(process.uptime()),
    rssBytes: process.memoryUsage.rss(),
    heapUsedBytes: process.memoryUsage().heapUsed,
    cpuSeconds: (usage.user + usage.system) / 1e6,
    realms: stats.filter((s) => byId.has(s.id) && !byId.get(s.id)!.held).map((s) => ({ ...s, subdomain: byId.get(s.id)!.subdomain, name: byId.get(s.id)!.name })),
    heldCopies: entries.filter((e) => e.held === 'moved-away').map((e) => e.subdomain),
    arriving: entries.filter((e) => e.held === 'arriving').map((e) => e.subdomain),
  };
}

/** This node's own mail delivery (front/smtp.ts localMail), for mail other nodes route here. */
export interface LocalMail {
  known(to: string): Promise<boolean>;
  deliver(mail: RoutedMail): Promise<string>;
}

/** The request handler: true if it took the request. */
export function internalHandler(node: ClusterNode, mail: LocalMail) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = new URL(req.url ?? '/', 'http://node');
    if (!url.pathname.startsWith(INTERNAL_PREFIX)) return false;
    if (!authorized(node, req)) {
      json(res, 403, { result: 'error', msg: 'not a node of this cluster' });
      return true;
    }
    route(node, mail, req, res, url).catch((err) => {
      log.error({ err, path: url.pathname }, 'cluster: internal request failed');
      if (!res.headersSent) json(res, err instanceof RealmTaken ? 409 : 500, { result: 'error', msg: (err as Error).message });
      else res.destroy();
    });
    return true;
  };
}

async function route(node: ClusterNode, mail: LocalMail, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const path = url.pathname.slice(INTERNAL_PREFIX.length).split('/');
  const method = req.method ?? 'GET';
  if (method === 'GET' && path[0] === 'status') return json(res, 200, await nodeStatus(node));
  if (method === 'POST' && path[0] === 'realms' && path.length === 1) return json(res, 200, await node.createRealm((await readJson(req)) as NewOrganization));
  if (method === 'POST' && path[0] === 'mail') return json(res, 200, { result: await receiveMail((await readJson(req)) as WireMail, mail) });
  if (method === 'GET' && path[0] === 'realms' && path.length === 3 && ['dump', 'delta', 'files'].includes(path[2])) {
    const realmId = Number(path[1]);
    const entry = node.directory.list().find((e) => e.id === realmId);
    const move = entry && node.moves.get(entry.subdomain)?.value;
    const session = url.searchParams.get('session');
    // Only for the move under way here: its writes tracked (warm), or paused (the last copy).
    if (!entry || entry.held || !move || move.id !== url.searchParams.get('move') || !node.driver.mayDump(entry.subdomain, move, session)) {
      return json(res, 409, { result: 'error', msg: `realm ${realmId} is not being moved from here by that move` });
    }
    if (path[2] === 'dump') return serveDump(node.pool, entry.shard, realmId, res);
    if (path[2] === 'delta') return serveDelta(node.pool, entry.shard, realmId, session ?? '', res);
    const since = url.searchParams.get('since');
    return serveFiles(node.config.dataDir, realmId, res, { since: since === null ? undefined : Number(since), list: url.searchParams.has('list') });
  }
  if (method === 'DELETE' && path[0] === 'copies' && path.length === 2) return json(res, 200, await dropCopy(node, decodeURIComponent(path[1])));
  json(res, 404, { result: 'error', msg: 'no such internal endpoint' });
}

/** The operator's last step of a move: the old node forgets the copy it kept. */
async function dropCopy(node: ClusterNode, subdomain: string): Promise<{ rows: number }> {
  const entry = node.directory.get(subdomain);
  if (!entry || entry.held !== 'moved-away') throw new Error(`no copy of "${subdomain}" is held here (only one that moved away can be dropped)`);
  const move = node.moves.get(subdomain)?.value as MoveRecord | undefined;
  if (move && move.state !== 'done' && move.to === node.id) throw new Error(`"${subdomain}" is moving back here`);
  let rows = 0;
  let cursor: DumpCursor | undefined;
  for (;;) {
    const { deleted, next } = await node.pool.admin<{ deleted: number; next: DumpCursor | null }>(entry.shard, { kind: 'admin', op: 'realmClear', realmId: entry.id, cursor });
    rows += deleted;
    if (!next) break;
    cursor = next;
  }
  await removeRealmFiles(node.config.dataDir, entry.id);
  await node.directory.remove(subdomain);
  log.warn({ realm: subdomain, rows, key: KEYS.realm(subdomain) }, 'cluster: copy of a moved organization dropped');
  return { rows };
}
