import { randomBytes } from 'node:crypto';
import type { Etcd3 } from 'etcd3';
import { casDelete, casJson, getJson, KEYS, listJson, type AliveRecord, type MoveRecord, type NodeRecord, type Placement } from './etcd.js';
import type { NodeStatus } from './internal.js';
import type { NewOrganization } from './node.js';
import { SECRET_HEADER } from './transfer.js';

/**
 * What the operator does to a cluster (`stoa cluster ...`, src/cli/cluster.ts): through etcd,
 * and through the nodes' internal API for what a running node must do itself.
 */
export class OperatorError extends Error {}

export interface NodeView {
  id: string;
  address: string;
  alive: boolean;
  status: NodeStatus | null;
  organizations: Placement[];
  /** The capacity model's unit (docs/SCALING.md): active people across its organizations. */
  load: number;
}

async function secret(client: Etcd3): Promise<string> {
  const found = await getJson<string>(client, KEYS.secret);
  if (!found) throw new OperatorError('no node has joined this cluster yet (etcd holds no /stoa/secret)');
  return found.value;
}

async function call<T>(client: Etcd3, address: string, method: string, path: string, body?: unknown, timeoutMs = 10_000): Promise<T> {
  const res = await fetch(`http://${address}/_stoa/cluster/${path}`, {
    method,
    headers: { [SECRET_HEADER]: await secret(client), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const answer = (await res.json()) as T & { msg?: string };
  if (res.status !== 200) throw new OperatorError(`node at ${address}: ${answer.msg ?? res.status}`);
  return answer;
}

export async function addNode(client: Etcd3, id: string, address: string): Promise<'added' | 'updated'> {
  if (!/^[a-z0-9][a-z0-9_-]{0,62}$/.test(id)) throw new OperatorError(`invalid node id "${id}": lower-case letters, digits, - and _`);
  if (!/^[^\s/]+:\d+$/.test(address)) throw new OperatorError(`invalid address "${address}": host:port`);
  const known = await getJson<NodeRecord>(client, KEYS.node(id));
  const record: NodeRecord = { id, address, added: known?.value.added ?? Date.now() };
  if (!(await casJson(client, KEYS.node(id), known?.mod ?? null, record))) throw new OperatorError(`node ${id} changed meanwhile: try again`);
  return known ? 'updated' : 'added';
}

export async function listNodes(client: Etcd3): Promise<NodeView[]> {
  const [nodes, alive, placements] = await Promise.all([listJson<NodeRecord>(client, KEYS.nodes), listJson<AliveRecord>(client, KEYS.alive), listJson<Placement>(client, KEYS.realms)]);
  const views = await Promise.all(
    [...nodes.values()].map(async ({ value: node }): Promise<NodeView> => {
      const live = alive.get(node.id)?.value;
      const status = live ? await call<NodeStatus>(client, live.address, 'GET', 'status').catch(() => null) : null;
      const organizations = [...placements.values()].map((p) => p.value).filter((p) => p.node === node.id);
      const load = status?.realms.reduce((n, r) => n + r.users, 0) ?? 0;
      return { id: node.id, address: live?.address ?? node.address, alive: live !== undefined, status, organizations, load };
    }),
  );
  return views.sort((a, b) => a.id.localeCompare(b.id));
}

/** The live node with the least load (then the fewest organizations), for a new organization. */
export function leastLoaded(nodes: NodeView[]): NodeView {
  const candidates = nodes.filter((n) => n.alive && n.status);
  if (candidates.length === 0) throw new OperatorError('no live node answers');
  return candidates.sort((a, b) => a.load - b.load || a.organizations.length - b.organizations.length || a.id.localeCompare(b.id))[0];
}

export async function createOrganization(client: Etcd3, org: NewOrganization, nodeId?: string): Promise<{ node: string; created: Record<string, unknown> }> {
  const nodes = await listNodes(client);
  const node = nodeId ? nodes.find((n) => n.id === nodeId) : leastLoaded(nodes);
  if (!node) throw new OperatorError(`no node "${nodeId}" in the cluster (see: stoa cluster nodes)`);
  if (!node.alive) throw new OperatorError(`node ${node.id} is not running`);
  const created = await call<Record<string, unknown>>(client, node.address, 'POST', 'realms', org, 120_000);
  return { node: node.id, created };
}

/**
 * Starts a move: the record in state `warm`, created only if no move of the organization is
 * under way (cluster/moves.ts drives the rest).
 */
export async function requestMove(client: Etcd3, subdomain: string, to: string): Promise<MoveRecord> {
  const placement = await getJson<Placement>(client, KEYS.realm(subdomain));
  if (!placement || placement.value.state !== 'active') throw new OperatorError(`no organization "${subdomain}" in the cluster`);
  if (placement.value.node === to) throw new OperatorError(`"${subdomain}" is on ${to} already`);
  if (!(await getJson<AliveRecord>(client, KEYS.aliveNode(to)))) throw new OperatorError(`node ${to} is not running`);
  const current = await getJson<MoveRecord>(client, KEYS.move(subdomain));
  if (current && current.value.state !== 'done') throw new OperatorError(`"${subdomain}" is moving already (${current.value.from} -> ${current.value.to}, ${current.value.state})`);
  const move: MoveRecord = { id: randomBytes(8).toString('hex'), realmId: placement.value.id, subdomain, from: placement.value.node, to, state: 'warm', requested: Date.now() };
  if (!(await casJson(client, KEYS.move(subdomain), current?.mod ?? null, move))) throw new OperatorError(`"${subdomain}" started moving meanwhile`);
  return move;
}

/** Undoes a move not yet switched; false if there is none to undo (done, or never started). */
export async function abortMove(client: Etcd3, subdomain: string): Promise<boolean> {
  const current = await getJson<MoveRecord>(client, KEYS.move(subdomain));
  if (!current || current.value.state === 'done') return false;
  return casDelete(client, KEYS.move(subdomain), current.mod);
}

/** Waits until the move is served at its destination (or undone: null). */
export async function waitMove(client: Etcd3, subdomain: string, moveId: string, onChange: (move: MoveRecord) => void = () => {}): Promise<MoveRecord | null> {
  let last = '';
  for (;;) {
    const current = await getJson<MoveRecord>(client, KEYS.move(subdomain)).catch(() => undefined);
    if (current === null || (current && current.value.id !== moveId)) return null;
    if (current) {
      const seen = `${current.value.state}:${current.value.error ?? ''}`;
      if (seen !== last) onChange(current.value);
      last = seen;
      if (current.value.state === 'done' && current.value.served) return current.value;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function dropCopy(client: Etcd3, subdomain: string, nodeId: string): Promise<{ rows: number }> {
  const live = await getJson<AliveRecord>(client, KEYS.aliveNode(nodeId));
  if (!live) throw new OperatorError(`node ${nodeId} is not running`);
  return call(client, live.value.address, 'DELETE', `copies/${encodeURIComponent(subdomain)}`, undefined, 300_000);
}
