import { exec } from 'node:child_process';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Etcd3, Watcher } from 'etcd3';
import { log } from '../lib/log.js';
import { KEYS, listJson, type AliveRecord, type NodeRecord, type Placement } from './etcd.js';

/**
 * The proxy's routing table, generated from etcd: `stoa cluster proxy` runs beside nginx, writes
 * the map file nginx's configuration includes (docs/SCALING.md), and reloads nginx (graceful:
 * old workers finish their requests, parked long-polls included) whenever the table changes.
 *
 * It runs beside the proxy rather than in the nodes: the file and the reload are the proxy
 * machine's business (no node needs rights there), every proxy of a pair runs its own and no
 * election is needed, and it is stateless: at start it writes the table from what etcd holds
 * now, then follows the changes.
 *
 *   upstream stoa_node_<id> { server <address>; keepalive 64; }     one per node
 *   map $host $stoa_backend { hostnames; default stoa_node_<a live node>; <host> stoa_node_<id>; ... }
 *   map $stoa_node $stoa_node_backend { <id> stoa_node_<id>; ... }  /_nodes/<id>/health, metrics
 *
 * A proxy_pass with a variable finds the upstream of that name, so connections to the nodes are
 * kept alive as with a static upstream.
 */
export interface ClusterView {
  nodes: Map<string, NodeRecord>;
  alive: Map<string, AliveRecord>;
  placements: Placement[];
}

// Node ids take [a-z0-9_-]; nginx names take no '-': '_' and '-' are spelled out, so ids never collide.
const upstreamName = (id: string) => `stoa_node_${id.replace(/[_-]/g, (c) => (c === '_' ? '_5f' : '_2d'))}`;

export function renderMap(view: ClusterView): string {
  const ids = [...view.nodes.keys()].sort();
  const lines = ['# Written by `stoa cluster proxy` from etcd: do not edit (it is rewritten on every change).'];
  for (const id of ids) lines.push(`upstream ${upstreamName(id)} { server ${view.alive.get(id)?.address ?? view.nodes.get(id)!.address}; keepalive 64; }`);
  // Unknown hosts reach a live node, which answers that no organization is there.
  const fallback = ids.find((id) => view.alive.has(id)) ?? ids[0];
  lines.push('map $host $stoa_backend {', '    hostnames;');
  if (fallback) lines.push(`    default ${upstreamName(fallback)};`);
  for (const p of [...view.placements].sort((a, b) => a.host.localeCompare(b.host))) {
    // nginx's $host carries no port.
    if (view.nodes.has(p.node)) lines.push(`    ${p.host.replace(/:\d+$/, '')} ${upstreamName(p.node)};`);
  }
  lines.push('}', 'map $stoa_node $stoa_node_backend {');
  for (const id of ids) lines.push(`    ${id} ${upstreamName(id)};`);
  lines.push('}', '');
  return lines.join('\n');
}

export async function readView(client: Etcd3): Promise<ClusterView> {
  const [nodes, alive, placements] = await Promise.all([listJson<NodeRecord>(client, KEYS.nodes), listJson<AliveRecord>(client, KEYS.alive), listJson<Placement>(client, KEYS.realms)]);
  return {
    nodes: new Map([...nodes].map(([k, v]) => [k, v.value])),
    alive: new Map([...alive].map(([k, v]) => [k, v.value])),
    placements: [...placements.values()].map((v) => v.value),
  };
}

function run(command: string): Promise<void> {
  return new Promise((resolve, reject) => exec(command, { timeout: 30_000 }, (err, _stdout, stderr) => (err ? reject(new Error(`${command}: ${stderr || err.message}`)) : resolve())));
}

export interface ProxyWriter {
  /** How many times the map was written and nginx reloaded. */
  readonly reloads: number;
  stop(): Promise<void>;
}

/**
 * Writes the map (atomically: a temporary file renamed over it) when it differs from what is
 * there, and runs `reload`. Changes that come together (a switch changes a placement and a move
 * in one transaction) are written once.
 */
export async function runProxyWriter(client: Etcd3, mapFile: string, reload: string | null, debounceMs = 50): Promise<ProxyWriter> {
  let reloads = 0;
  let timer: NodeJS.Timeout | null = null;
  let writing = Promise.resolve();
  const update = async () => {
    const text = renderMap(await readView(client));
    let current = '';
    try {
      current = readFileSync(mapFile, 'utf8');
    } catch {
      // Not written yet.
    }
    if (text === current) return;
    writeFileSync(`${mapFile}.tmp`, text);
    renameSync(`${mapFile}.tmp`, mapFile);
    if (reload) await run(reload);
    reloads++;
    log.info({ mapFile, reloads }, 'cluster proxy: routing table written');
  };
  const schedule = () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      writing = writing.then(update).catch((err) => {
        log.error({ err: (err as Error).message }, 'cluster proxy: could not write the routing table; trying again');
        setTimeout(schedule, 1_000).unref();
      });
    }, debounceMs);
  };
  await update();
  const watcher: Watcher = await client.watch().prefix('/stoa/').create();
  watcher.on('data', (res) => {
    if (res.events.some((e) => /^\/stoa\/(realms|nodes|alive)\//.test(e.kv.key.toString()))) schedule();
  });
  // A watch that reconnects after etcd was away may have missed changes: write from scratch.
  watcher.on('connected', schedule);
  return {
    get reloads() {
      return reloads;
    },
    async stop() {
      if (timer) clearTimeout(timer);
      await watcher.cancel();
      await writing;
    },
  };
}
