import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Etcd3, Lease, Watcher } from 'etcd3';
import type { ResolvedConfig } from '../lib/config.js';
import { noSuchRealm, realmUnavailable } from '../lib/errors.js';
import { log } from '../lib/log.js';
import type { ShardPool } from '../host/pool.js';
import type { Directory, DirectoryEntry } from '../store/directory.js';
import { casDelete, casJson, connect, decode, getJson, KEYS, listJson, takeRange, type AliveRecord, type MoveRecord, type NodeRecord, type Placement, type Versioned } from './etcd.js';
import { IdBlocks } from './ids.js';
import { MoveDriver } from './moves.js';

/**
 * This process as a node of a cluster (config `cluster`, docs/SCALING.md). Without it nothing
 * here runs, and the server is the single machine it always was.
 *
 * At start, before any request or durable job runs (ShardPool.ready's hook):
 *   1. the node is recorded under /stoa/nodes/<id> (its address), and its realms not yet in
 *      etcd are placed on it (a single server joining a cluster brings its organizations);
 *   2. it takes a block of message ids above every id anywhere (ids.ts);
 *   3. it reads the placements and moves: realms placed elsewhere are let go (held in the
 *      directory, not served), realms a move is taking away are paused;
 *   4. it takes a lease and writes /stoa/alive/<id> under it, and watches the placements and
 *      moves from then on.
 *
 * A node serves a realm only while etcd says it owns it. When the placement changes (a move
 * ended) it lets the realm go at once: queues end with BAD_EVENT_QUEUE_ID, requests get 503 and
 * come back through the proxy to the new owner. When its lease is lost (etcd unreachable for
 * longer than the lease), it serves nothing until it has a new lease and has read etcd again.
 */
export interface NewOrganization {
  subdomain: string;
  name: string;
  ownerEmail: string;
  ownerFullName: string;
  ownerPassword?: string;
}

/** The subdomain is claimed already (by a placement in etcd, or a realm here). */
export class RealmTaken extends Error {
  constructor(subdomain: string) {
    super(`subdomain "${subdomain}" is already in use in the cluster`);
  }
}

export class ClusterNode {
  readonly id: string;
  readonly address: string;
  client!: Etcd3;
  secret = '';
  readonly ids: IdBlocks | null = null;
  /** By subdomain. */
  readonly placements = new Map<string, Versioned<Placement>>();
  readonly moves = new Map<string, Versioned<MoveRecord>>();
  readonly driver: MoveDriver;
  private lease: Lease | null = null;
  private watchers: Watcher[] = [];
  private online = false;
  private closed = false;
  private tick: NodeJS.Timeout | null = null;

  constructor(
    readonly config: ResolvedConfig,
    readonly directory: Directory,
    readonly pool: ShardPool,
    /** The front end reads the directory again (front/app.ts refreshRealms). */
    readonly refreshRealms: () => void,
    /** Makes a realm with the given id on this node (src/realms.ts, through the shard pool). */
    private readonly makeRealm: (args: NewOrganization & { id: number }) => Promise<Record<string, unknown>>,
  ) {
    const cluster = config.cluster!;
    this.id = cluster.nodeId;
    const bindHost = config.bind === '0.0.0.0' || config.bind === '::' ? hostname() : config.bind;
    this.address = cluster.advertise ?? `${bindHost.includes(':') ? `[${bindHost}]` : bindHost}:${config.port}`;
    this.driver = new MoveDriver(this);
  }

  get leaseSeconds(): number {
    return this.config.cluster!.leaseSeconds ?? 10;
  }

  /** The host an organization answers at. */
  hostOf(subdomain: string): string {
    return subdomain ? `${subdomain}.${this.config.externalHost}` : this.config.externalHost;
  }

  async start(): Promise<void> {
    this.client = connect(this.config.cluster!.etcd);
    this.secret = await this.sharedSecret();
    const node: NodeRecord = { id: this.id, address: this.address, added: Date.now() };
    const known = await getJson<NodeRecord>(this.client, KEYS.node(this.id));
    if (!known || known.value.address !== this.address) await this.client.put(KEYS.node(this.id)).value(JSON.stringify(known ? { ...known.value, address: this.address } : node));
    await this.adoptLocalRealms();
    (this as { ids: IdBlocks | null }).ids = new IdBlocks(this.client, this.pool.messageIds, this.config.cluster!.idBlock ?? 1_000_000);
    await this.ids!.fresh();
    this.ids!.start();
    await this.readAll();
    // Shards load every realm their store holds; those this node does not serve are let go
    // before any job of theirs may run. (An arrival already switched to this node is finished
    // by the move driver instead; an unfinished one is copied again.)
    for (const entry of this.directory.list()) {
      if (entry.held && !(entry.held === 'arriving' && this.owns(entry.subdomain))) await this.pool.admin(entry.shard, { kind: 'admin', op: 'realmDetach', realmId: entry.id });
    }
    await this.reconcile();
    await this.goOnline();
    await this.watch();
    // Moves are retried and loose ends tied even when no event comes (a copy that failed).
    this.tick = setInterval(() => void this.reconcile().catch((err) => log.warn({ err }, 'cluster: reconcile failed')), 2_000);
    this.tick.unref();
  }

  /** The token nodes and the CLI show each other on the internal API, made by the first node. */
  private async sharedSecret(): Promise<string> {
    await casJson(this.client, KEYS.secret, null, randomBytes(24).toString('hex'));
    return (await getJson<string>(this.client, KEYS.secret))!.value;
  }

  /**
   * Realms in this node's directory that etcd does not know yet are placed here; one whose id
   * or subdomain etcd gives to another realm stops the start (realm ids are unique in a cluster,
   * so two single servers that each made realm 1 cannot both join).
   */
  private async adoptLocalRealms(): Promise<void> {
    const placed = await listJson<Placement>(this.client, KEYS.realms);
    const byId = new Map([...placed.values()].map((p) => [p.value.id, p.value]));
    let top = 0;
    for (const entry of this.directory.list()) {
      top = Math.max(top, entry.id);
      const other = byId.get(entry.id);
      if (other && other.subdomain !== entry.subdomain) throw new Error(`realm id ${entry.id} of "${entry.subdomain}" here is "${other.subdomain}" in the cluster: this data directory cannot join it`);
      const placement = placed.get(entry.subdomain);
      if (placement && placement.value.id !== entry.id) throw new Error(`organization "${entry.subdomain}" here is realm ${entry.id}, in the cluster realm ${placement.value.id}: this data directory cannot join it`);
      if (!placement && !entry.held) {
        const p: Placement = { id: entry.id, subdomain: entry.subdomain, name: entry.name, node: this.id, host: this.hostOf(entry.subdomain), state: 'active' };
        await casJson(this.client, KEYS.realm(entry.subdomain), null, p);
      }
    }
    await takeRange(this.client, KEYS.realmSeq, 0, top);
  }

  private async readAll(): Promise<void> {
    const [placements, moves] = await Promise.all([listJson<Placement>(this.client, KEYS.realms), listJson<MoveRecord>(this.client, KEYS.moves)]);
    this.placements.clear();
    for (const [k, v] of placements) this.placements.set(k, v);
    this.moves.clear();
    for (const [k, v] of moves) this.moves.set(k, v);
  }

  /**
   * One watch over both the placements and the moves: events come in revision order, so the
   * placement and the move a switch changes in one transaction arrive together.
   */
  private async watch(): Promise<void> {
    const watcher = await this.client.watch().prefix('/stoa/').create();
    const mapOf = (key: string): [Map<string, Versioned<unknown>>, string] | null => {
      if (key.startsWith(KEYS.realms)) return [this.placements, key.slice(KEYS.realms.length)];
      if (key.startsWith(KEYS.moves)) return [this.moves, key.slice(KEYS.moves.length)];
      return null;
    };
    watcher.on('data', (res) => {
      for (const { type, kv } of res.events) {
        const found = mapOf(kv.key.toString());
        if (!found) continue;
        const [map, key] = found;
        const seen = map.get(key);
        if (type === 'Delete') map.delete(key);
        // A full read (readAll, after a lost lease) may already hold something newer.
        else if (!seen || BigInt(seen.mod) < BigInt(kv.mod_revision)) map.set(key, decode(kv));
      }
      void this.reconcile().catch((err) => log.warn({ err }, 'cluster: reconcile failed'));
    });
    watcher.on('error', (err) => log.warn({ err }, 'cluster: etcd watch error'));
    this.watchers.push(watcher);
  }

  /** The lease, and the alive record under it; a lost lease takes the node offline until renewed. */
  private async goOnline(): Promise<void> {
    const lease = this.client.lease(this.leaseSeconds, { autoKeepAlive: true });
    const alive: AliveRecord = { id: this.id, address: this.address, externalHost: this.config.externalHost, pid: process.pid, started: Date.now() };
    await lease.put(KEYS.aliveNode(this.id)).value(JSON.stringify(alive));
    lease.on('lost', (err) => {
      if (this.closed || this.lease !== lease) return;
      log.error({ err: err.message }, 'cluster: lease lost; serving nothing until etcd is back');
      this.online = false;
      this.lease = null;
      void this.goOffline().then(() => this.renew());
    });
    this.lease = lease;
    this.online = true;
  }

  private async renew(): Promise<void> {
    while (!this.closed && !this.online) {
      try {
        await this.readAll();
        await this.goOnline();
        await this.reconcile();
        // What is still ours takes writes again, but for a move's pause.
        for (const entry of this.offlinePaused.splice(0)) {
          const current = this.directory.get(entry.subdomain);
          if (current && !current.held && this.owns(entry.subdomain) && !this.driver.pausing(entry.subdomain)) await this.pool.admin(entry.shard, { kind: 'admin', op: 'realmResume', realmId: entry.id });
        }
        log.warn('cluster: lease renewed; serving again');
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'cluster: etcd still unreachable');
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  }

  private readonly offlinePaused: DirectoryEntry[] = [];

  /** Every served realm closes to writes and ends its queues: the node cannot know it still owns them. */
  private async goOffline(): Promise<void> {
    for (const entry of this.served()) {
      await this.pool.admin(entry.shard, { kind: 'admin', op: 'realmPause', realmId: entry.id });
      this.offlinePaused.push(entry);
      await this.pool.admin(entry.shard, { kind: 'admin', op: 'realmEndQueues', realmId: entry.id });
    }
  }

  /** Realms this node's directory says it serves. */
  served(): DirectoryEntry[] {
    return this.directory.list().filter((e) => !e.held);
  }

  owns(subdomain: string): boolean {
    const p = this.placements.get(subdomain)?.value;
    return p !== undefined && p.node === this.id && p.state === 'active';
  }

  /** front/app.ts RealmAdmission: the realm if this node serves it now. */
  readonly admit = (subdomain: string, entry: DirectoryEntry | undefined): DirectoryEntry => {
    if (!this.online) throw realmUnavailable('offline', 2);
    if (entry && this.owns(subdomain) && this.placements.get(subdomain)!.value.id === entry.id) return entry;
    // Known to the cluster: on its way here, or elsewhere and this request came by a stale route.
    if (this.placements.has(subdomain)) throw realmUnavailable('moved', 1);
    throw noSuchRealm();
  };

  /** Its part of GET /health (front/monitoring.ts): failing while the node holds no lease. */
  readonly health = () => ({
    ok: this.online,
    node: this.id,
    address: this.address,
    lease: this.online ? 'held' : 'lost',
    organizations: this.served().length,
    heldCopies: this.directory.list().filter((e) => e.held === 'moved-away').length,
  });

  private reconciling: Promise<void> | null = null;
  private again = false;

  /** Brings this node in line with etcd: lets go of what it lost, serves what it owns, moves. */
  reconcile(): Promise<void> {
    if (this.reconciling) {
      this.again = true;
      return this.reconciling;
    }
    this.reconciling = (async () => {
      do {
        this.again = false;
        await this.settlePlacements();
        await this.driver.reconcile();
      } while (this.again);
    })().finally(() => (this.reconciling = null));
    return this.reconciling;
  }

  private async settlePlacements(): Promise<void> {
    for (const entry of this.directory.list()) {
      const placement = this.placements.get(entry.subdomain);
      if (placement?.value.node === this.id && placement.value.state === 'creating') {
        // A creation cut short: finished if the realm was made, undone if not.
        if (!entry.held) await casJson(this.client, KEYS.realm(entry.subdomain), placement.mod, { ...placement.value, state: 'active' });
        continue;
      }
      if (!entry.held && placement && placement.value.node !== this.id) await this.letGo(entry);
    }
    for (const [subdomain, placement] of this.placements) {
      if (placement.value.node !== this.id || placement.value.state !== 'creating') continue;
      if (!this.directory.get(subdomain) && !this.creating.has(subdomain)) await casDelete(this.client, KEYS.realm(subdomain), placement.mod);
    }
  }

  /** Organizations being created by this process now (their placement says 'creating'). */
  private readonly creating = new Set<string>();

  /**
   * Creates an organization on this node: its id from etcd, its placement claimed by
   * compare-and-set (two creations of one subdomain cannot both win), the realm made here, and
   * the placement marked active. A failure gives the subdomain back; a crash in between is
   * tidied at the next start (settlePlacements).
   */
  async createRealm(args: NewOrganization): Promise<Record<string, unknown>> {
    const { subdomain } = args;
    const top = this.directory.list().reduce((n, e) => Math.max(n, e.id), 0);
    const [, id] = await takeRange(this.client, KEYS.realmSeq, 1, top);
    const placement: Placement = { id, subdomain, name: args.name, node: this.id, host: this.hostOf(subdomain), state: 'creating' };
    this.creating.add(subdomain);
    try {
      if (this.directory.get(subdomain) || !(await casJson(this.client, KEYS.realm(subdomain), null, placement))) throw new RealmTaken(subdomain);
      try {
        const created = await this.makeRealm({ ...args, id });
        const claimed = (await getJson<Placement>(this.client, KEYS.realm(subdomain)))!;
        const active: Placement = { ...placement, state: 'active' };
        await casJson(this.client, KEYS.realm(subdomain), claimed.mod, active);
        this.placements.set(subdomain, { value: active, mod: claimed.mod });
        this.refreshRealms();
        return created;
      } catch (err) {
        const claimed = await getJson<Placement>(this.client, KEYS.realm(subdomain));
        if (claimed && !this.directory.get(subdomain)) await casDelete(this.client, KEYS.realm(subdomain), claimed.mod);
        throw err;
      }
    } finally {
      this.creating.delete(subdomain);
    }
  }

  /** Another node owns the realm now: end its queues and jobs here, keep its rows. */
  async letGo(entry: DirectoryEntry): Promise<void> {
    await this.directory.add({ ...entry, held: 'moved-away' });
    this.refreshRealms();
    const ended = await this.pool.admin<number>(entry.shard, { kind: 'admin', op: 'realmDetach', realmId: entry.id });
    log.warn({ realm: entry.subdomain, queues: ended }, 'cluster: organization now served by another node; its copy here is kept');
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.tick) clearInterval(this.tick);
    this.ids?.stop();
    await this.driver.stop();
    for (const watcher of this.watchers) await watcher.cancel().catch(() => undefined);
    await this.lease?.revoke().catch(() => undefined);
    this.client?.close();
  }
}
