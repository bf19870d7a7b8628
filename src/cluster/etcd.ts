import { Etcd3, type IKeyValue } from 'etcd3';

/**
 * What a cluster keeps in etcd, the one source of truth (values are JSON):
 *
 *   /stoa/secret               the token nodes and the CLI show each other (internal API)
 *   /stoa/nodes/<id>           NodeRecord: a node added to the cluster, and its address
 *   /stoa/alive/<id>           AliveRecord, under the node's lease: it runs, and serves
 *   /stoa/realms/<subdomain>   Placement: which node owns the organization
 *   /stoa/moves/<subdomain>    MoveRecord: an organization between two nodes (cluster/moves.ts)
 *   /stoa/seq/realm            the last realm id handed out: realm ids are unique in the cluster
 *   /stoa/seq/message          the top of the last block of message ids handed out (ids.ts)
 *
 * Every change of a placement or a move is a compare-and-set on the key's mod revision, so two
 * writers never both win; an organization changes owner only in the transaction that ends its
 * move (moves.ts).
 */
export const KEYS = {
  secret: '/stoa/secret',
  nodes: '/stoa/nodes/',
  node: (id: string) => `/stoa/nodes/${id}`,
  alive: '/stoa/alive/',
  aliveNode: (id: string) => `/stoa/alive/${id}`,
  realms: '/stoa/realms/',
  // The root organization's subdomain is '': its key ends with the slash.
  realm: (subdomain: string) => `/stoa/realms/${subdomain}`,
  moves: '/stoa/moves/',
  move: (subdomain: string) => `/stoa/moves/${subdomain}`,
  realmSeq: '/stoa/seq/realm',
  messageSeq: '/stoa/seq/message',
};

export interface NodeRecord {
  id: string;
  /** host:port of its HTTP listener. */
  address: string;
  added: number;
}

export interface AliveRecord {
  id: string;
  address: string;
  /** The node's external host: organizations answer at <subdomain>.<externalHost>. */
  externalHost: string;
  pid: number;
  started: number;
}

export interface Placement {
  id: number;
  subdomain: string;
  name: string;
  node: string;
  /** The Host the organization answers at, for the proxy's map. */
  host: string;
  /** 'creating' until the node has made it (a creation cut short is undone at the node's start). */
  state: 'creating' | 'active';
}

export type MoveState = 'warm' | 'pause' | 'copy' | 'done';

export interface MoveRecord {
  /** Random, per move: a destination that restarts knows whether a copy is of this move. */
  id: string;
  realmId: number;
  subdomain: string;
  from: string;
  to: string;
  state: MoveState;
  requested: number;
  /** The source's tracker of the writes made since the warm copy began (moves.ts). */
  session?: string;
  /** Rows the warm copy carried. */
  warmRows?: number;
  /** When the source had closed the organization to writes (ms). */
  paused?: number;
  /** When the destination owned it (the compare-and-set), and served it. */
  switched?: number;
  served?: number;
  /** What the copy carried. */
  rows?: number;
  files?: number;
  bytes?: number;
  /** The last failure of a copy attempt, for the operator (the destination retries). */
  error?: string;
}

export function connect(endpoints: string[]): Etcd3 {
  // Short dial and call timeouts: a call that cannot reach etcd fails and is retried by its
  // caller, rather than hanging a move or a request behind it.
  return new Etcd3({ hosts: endpoints, dialTimeout: 3_000, defaultCallOptions: () => ({ deadline: Date.now() + 5_000 }) });
}

export interface Versioned<T> {
  value: T;
  /** The key's mod revision, for a compare-and-set. */
  mod: string;
}

export function decode<T>(kv: IKeyValue): Versioned<T> {
  return { value: JSON.parse(kv.value.toString()) as T, mod: kv.mod_revision };
}

export async function getJson<T>(client: Etcd3, key: string): Promise<Versioned<T> | null> {
  const res = await client.get(key).exec();
  const kv = res.kvs[0];
  return kv ? decode<T>(kv) : null;
}

/** Every value under a prefix, by the key's rest. */
export async function listJson<T>(client: Etcd3, prefix: string): Promise<Map<string, Versioned<T>>> {
  const res = await client.getAll().prefix(prefix).exec();
  return new Map(res.kvs.map((kv) => [kv.key.toString().slice(prefix.length), decode<T>(kv)]));
}

/**
 * Writes `value` if the key's mod revision is still `mod` (null: if the key does not exist).
 * False when someone else changed it first.
 */
export async function casJson(client: Etcd3, key: string, mod: string | null, value: unknown): Promise<boolean> {
  const cmp = mod === null ? client.if(key, 'Version', '==', 0) : client.if(key, 'Mod', '==', mod);
  const res = await cmp.then(client.put(key).value(JSON.stringify(value))).commit();
  return res.succeeded;
}

/** Deletes the key if its mod revision is still `mod`. */
export async function casDelete(client: Etcd3, key: string, mod: string): Promise<boolean> {
  const res = await client.if(key, 'Mod', '==', mod).then(client.delete().key(key)).commit();
  return res.succeeded;
}

/**
 * Raises a counter by `size` above max(counter, floor), by compare-and-set (retried when another
 * node won): returns the range (lo, hi] this caller now owns.
 */
export async function takeRange(client: Etcd3, key: string, size: number, floor = 0): Promise<[number, number]> {
  for (;;) {
    const res = await client.get(key).exec();
    const kv = res.kvs[0];
    const lo = Math.max(kv ? Number(kv.value.toString()) : 0, floor);
    const hi = lo + size;
    const cmp = kv ? client.if(key, 'Mod', '==', kv.mod_revision) : client.if(key, 'Version', '==', 0);
    if ((await cmp.then(client.put(key).value(String(hi))).commit()).succeeded) return [lo, hi];
  }
}
