import { createHmac, randomBytes } from 'node:crypto';
import type { ResolvedConfig } from '../lib/config.js';
import type { RealmState } from '../model/realm-state.js';
import { MessageIds, MessageIdsExhausted } from '../store/message-ids.js';
import type { RealmRecord } from '../model/types.js';
import { idsAcrossShards } from '../store/server-ids.js';
import type { Database } from 'lmdb';
import { openShardStore, PendingWrites, shardPath, WriteBatch, type Key, type ShardStore, type StoreView, type Touched } from '../store/shard-store.js';
import { readModel, repairModel } from './model-rows.js';
import { damageMap, guardTables, type DamageMap } from '../store/damage.js';
import { EventBus } from './events.js';
import { RealmGate } from './realm-gate.js';
import type { ShardNote } from './desk-wire.js';
import { TimerWheel } from '../lib/timer-wheel.js';
import { log } from '../lib/log.js';
import { realmUnavailable, storageError } from '../lib/errors.js';
import { shardFile, StoreError } from '../store/integrity.js';
import { realmSecretKey } from '../store/realm-copy.js';

/** How long a stop waits for the store to flush and close. */
const CLOSE_LIMIT_MS = 5_000;

/**
 * A shard: the realms it owns, their in-memory state, and its LMDB environment. It runs on one
 * thread (a one-thread piscina pool, see host/pool.ts), or in-process for the admin CLI while
 * the server is stopped.
 */
export class Shard implements StoreView {
  readonly realms = new Map<number, RealmState>();
  readonly events = new EventBus();
  /** Sends a note to the front end over the shard's link (the worker sets it; a no-op elsewhere). */
  toFront: (note: ShardNote) => void = () => {};
  /** The shard's clock for timers (event queues now; scheduled sends and retries later). */
  readonly wheel = new TimerWheel();
  /** Realms whose writes are held while a cluster moves them (shard/realm-gate.ts). */
  readonly realmGate = new RealmGate();
  private readonly seq = new Map<string, number>();
  private readonly pending: PendingWrites;
  /** Tables found damaged (store/damage.ts): their reads are refused. */
  readonly damage: DamageMap;

  private constructor(
    readonly index: number,
    readonly config: ResolvedConfig,
    readonly store: ShardStore,
    readonly messageIds: MessageIds,
  ) {
    // The indexes whose rows are written in bulk and read only by range (see PendingWrites).
    this.pending = new PendingWrites([store.messages], [store.uflagIdx, store.uflagUsers, store.flipUsers, store.byStream, store.byTopic, store.byDm, store.byUserDm, store.bySender, store.search], undefined, store.byTopic, [store.uflags, store.flips]);
    // Reads that meet damage answer 503 STORAGE_DAMAGED, naming the table once in the log.
    this.damage = damageMap({ shard: index, path: shardPath(config.dataDir, index) });
    const { env, ...tables } = store;
    guardTables(env, tables, this.damage);
    this.events.ephemeral = (events) => {
      this.batch()
        .emitEphemeral(events)
        .commit()
        .catch((err) => log.error({ err, shard: index }, 'ephemeral event commit failed'));
    };
  }

  /**
   * Opens shard `index`. `idBuffer` is the server-wide message-id counter shared by the shard
   * threads; without one (the CLI, imports, tests) the counter starts above every shard's mark,
   * so ids written with no server running stay unique and increasing server-wide.
   */
  static open(index: number, config: ResolvedConfig, idBuffer: SharedArrayBuffer = idsAcrossShards(config.dataDir)): Shard {
    let store: ShardStore;
    try {
      store = openShardStore(config.dataDir, index);
    } catch (err) {
      throw new StoreError(shardFile(config.dataDir, index), `cannot be opened: ${(err as Error).message}`);
    }
    const shard = new Shard(index, config, store, new MessageIds(idBuffer));
    shard.load();
    shard.messageIds.raiseTo(shard.seq.get('message') ?? 0);
    return shard;
  }

  private load(): void {
    this.readSeqs();
    this.readSecret();
    for (const realm of readModel(this, this.index).values()) this.addRealm(realm);
  }

  /**
   * The shard's secret, made at its first open and kept in its store: links signed with it (a
   * video call's join link posted in a message) must outlive a restart, and a backup restores it.
   */
  private secret!: Buffer;

  private readSecret(): void {
    const stored = this.store.meta.get('secret') as Uint8Array | undefined;
    if (stored) {
      this.secret = Buffer.from(stored);
      return;
    }
    this.secret = randomBytes(32);
    this.store.meta.putSync('secret', this.secret);
  }

  /** A key for one purpose, derived from the shard's secret: no two purposes share a key. */
  signingKey(purpose: string): Buffer {
    return createHmac('sha256', this.secret).update(purpose).digest();
  }

  private readonly realmSecrets = new Map<number, Promise<Buffer>>();

  /**
   * A key for one purpose and one realm, derived from a secret the realm's rows carry
   * (`secret:<realmId>:` in meta, which a cluster move copies with the realm): what is signed
   * with it, a call link in a message, still verifies after the realm moves to another shard.
   * The secret is made on first use; concurrent first uses share the one write.
   */
  realmSigningKey(realmId: number, purpose: string): Promise<Buffer> {
    let secret = this.realmSecrets.get(realmId);
    if (!secret) {
      secret = this.readRealmSecret(realmId);
      this.realmSecrets.set(realmId, secret);
      secret.catch(() => this.realmSecrets.delete(realmId));
    }
    return secret.then((key) => createHmac('sha256', key).update(purpose).digest());
  }

  private async readRealmSecret(realmId: number): Promise<Buffer> {
    const key = realmSecretKey(realmId);
    const stored = this.read<Uint8Array>(this.store.meta, key);
    if (stored) return Buffer.from(stored);
    const secret = randomBytes(32);
    await this.batch().put(this.store.meta, key, secret).commit();
    return secret;
  }

  /** The id counters; never lowered: an id a failed transaction took is skipped, not reused. */
  private readSeqs(): void {
    for (const { key, value } of this.store.meta.getRange({ start: 'seq:', end: 'seq;' })) {
      const kind = String(key).slice(4);
      this.seq.set(kind, Math.max(this.seq.get(kind) ?? 0, value as number));
    }
  }

  /**
   * Run after memory was repaired from the store, with the rows the failed commits would have
   * written (the event queues resync theirs here).
   */
  readonly repaired: ((touched: Touched) => void)[] = [];
  private repairing: Promise<void> | null = null;
  private toRepair: Touched = [];
  private readonly reportedCauses = new WeakSet<object>();
  /** Rows read by the last repair (tests). */
  lastRepairRows = 0;

  /**
   * A WriteBatch's commit failed (a full disk, an I/O error, a damaged page). The action has
   * already changed memory, and so may others that lmdb-js committed in the same transaction
   * (each of which comes here with its own rows): memory now holds changes the store does not.
   * So: log the failure with its cause, and once no transaction is in flight, read those rows
   * again and put memory back to what the store holds (repair); the action's client gets a
   * storageError. Nothing else stops: reads go on, and so do writes, which succeed again once
   * there is space.
   */
  private readonly commitFailed = (err: unknown, touched: Touched): Error => {
    // lmdb-js rejects the transaction with a generic error and carries the cause (errno) in a
    // promise that rejects too: unhandled, it would end the thread.
    const cause = (err as { commitError?: Promise<unknown> }).commitError;
    const report = (c: unknown) => log.error({ err: c, shard: this.index, path: shardPath(this.config.dataDir, this.index) }, 'LMDB commit failed: its requests were refused and the shard repairs their rows in memory from the store');
    if (cause && typeof cause.then === 'function') {
      cause.then(undefined, (c: unknown) => {
        if (this.reportedCauses.has(cause)) return;
        this.reportedCauses.add(cause);
        report(c);
      });
    } else report(err);
    this.commitHasFailed = true;
    this.toRepair.push(...touched);
    this.scheduleRepair();
    return storageError();
  };

  private scheduleRepair(): void {
    this.repairing ??= (async () => {
      while (this.toRepair.length > 0) await this.quiesced(() => this.repair());
    })()
      .catch((err) => log.error({ err, shard: this.index }, 'repairing the shard after a failed commit failed'))
      .finally(() => (this.repairing = null));
  }

  /**
   * Puts the rows of the failed commits back as the store has them (shard/model-rows.ts), in
   * place: handlers in flight hold their RealmState, and must go on working on the live one.
   * Runs with no transaction in flight and new requests held at the gate (quiesced), so the
   * store is exactly what was acknowledged. Id counters are never lowered: an id a failed
   * transaction took is skipped, not reused.
   */
  private repair(): void {
    const touched = this.toRepair.splice(0);
    this.lastRepairRows = repairModel(this, this.realms, touched, (realm) => this.addRealm(realm));
    for (const listener of this.repaired) listener(touched);
    log.warn({ shard: this.index, rows: this.lastRepairRows }, 'shard state repaired from the store after a failed commit');
  }

  /**
   * Reads one realm from the store into memory (a realm that arrived by a cluster move), with
   * the counters the copy raised. Throws if the store has no such realm.
   */
  attachRealm(realmId: number): RealmState {
    this.readSeqs();
    const realm = readModel(this, this.index, realmId).get(realmId);
    if (!realm) throw new Error(`shard ${this.index} has no realm ${realmId} in its store`);
    this.addRealm(realm);
    return realm;
  }

  /** Forgets a realm's in-memory model (its rows stay: the copy a move leaves behind). */
  detachRealm(realmId: number): void {
    this.realms.delete(realmId);
  }

  /** Whether a repair after a failed commit is under way (tests wait for it). */
  get recovering(): Promise<void> | null {
    return this.repairing;
  }

  /** Told of every transaction's duration and outcome (host/metrics.ts sets it in the server). */
  commitObserver: ((seconds: number, ok: boolean) => void) | null = null;
  /** Set while a cluster copies one of this shard's realms away (host/realm-moves.ts). */
  writeObserver: ((writes: [Database, Key, unknown][]) => void) | null = null;
  private readonly observer = () => this.writeObserver;

  batch(): WriteBatch {
    return new WriteBatch(this.store.env, this.pending, this.events, this.commitFailed, this.commitObserver, this.observer);
  }

  /** While set, requests wait before their handler runs (see quiesced()). */
  gate: Promise<void> | null = null;
  private gateHolders = 0;
  private openGate: () => void = () => {};

  /**
   * Runs `snapshot` once no action is between its state change and its commit. New requests
   * are held at the gate meanwhile, so the wait is bounded by the actions already running, even
   * under continuous writes (waiting for a natural lull could starve POST /register).
   */
  async quiesced<T>(snapshot: () => T): Promise<T> {
    if (this.gateHolders++ === 0) this.gate = new Promise((resolve) => (this.openGate = resolve));
    try {
      await this.pending.settled();
      return snapshot();
    } finally {
      if (--this.gateHolders === 0) {
        this.gate = null;
        this.openGate();
      }
    }
  }

  /** A row's uncommitted write, if any (`{value}`, undefined for a delete). */
  pendingWrite(db: Database, key: Key, k?: string): { value: unknown } | undefined {
    return this.pending.peek(db, key, k);
  }

  /** A stored row as this shard's own uncommitted writes have left it (store/shard-store.ts). */
  read<T>(db: Database, key: Key): T | undefined {
    return this.pending.read<T>(db, key);
  }

  /** The next message id (server-wide), recording this shard's high-water mark in the batch. */
  allocateMessageId(batch: WriteBatch): number {
    let id: number;
    try {
      id = this.messageIds.next();
    } catch (err) {
      // A cluster node whose block of ids ran out and could not get the next (etcd unreachable).
      if (err instanceof MessageIdsExhausted) throw realmUnavailable('offline', 5);
      throw err;
    }
    this.seq.set('message', id);
    batch.put(this.store.meta, 'seq:message', id);
    return id;
  }

  /** Hands out the next id of a kind, recording the counter in the action's batch. */
  allocate(batch: WriteBatch, kind: string): number {
    const id = (this.seq.get(kind) ?? 0) + 1;
    this.seq.set(kind, id);
    batch.put(this.store.meta, `seq:${kind}`, id);
    return id;
  }

  /**
   * Reserves `count` consecutive ids of a kind at once (an import's block), recording the
   * counter in the batch; returns the id before the first of them.
   */
  reserve(batch: WriteBatch, kind: string, count: number): number {
    const base = this.seq.get(kind) ?? 0;
    this.seq.set(kind, base + count);
    batch.put(this.store.meta, `seq:${kind}`, base + count);
    return base;
  }

  /** reserve() for message ids, which come from the server-wide counter. */
  reserveMessageIds(batch: WriteBatch, count: number): number {
    const base = this.messageIds.current();
    this.messageIds.raiseTo(base + count);
    this.seq.set('message', base + count);
    batch.put(this.store.meta, 'seq:message', base + count);
    return base;
  }

  addRealm(realm: RealmState): void {
    realm.url = this.realmUrl(realm.realm);
    this.realms.set(realm.id, realm);
  }

  realm(id: number): RealmState | undefined {
    return this.realms.get(id);
  }

  /** The URL a realm answers at: the external host, or `<subdomain>.<external host>`. */
  realmUrl(realm: RealmRecord): string {
    const host = realm.subdomain ? `${realm.subdomain}.${this.config.externalHost}` : this.config.externalHost;
    return `${this.config.scheme}://${host}`;
  }

  /** Set by a failed commit: closing then needs a transaction that succeeds first (see close). */
  private commitHasFailed = false;

  /**
   * Flushes and closes the store. lmdb-js never resolves a failed commit's flush promise, and
   * both `flushed` and close() wait on the latest one: after a failure (a full disk) they would
   * wait forever, and the stop with them. An empty transaction gives them a later one to wait
   * for; LMDB commits it without writing a page, so it succeeds on a full disk. Should even that
   * not settle, the stop goes on without the store's close: every acknowledged write is already
   * committed, and the process ending closes the file.
   */
  async close(): Promise<void> {
    this.wheel.stop();
    if (this.commitHasFailed) await this.store.env.transaction(() => undefined).catch(() => undefined);
    const closed = (async () => {
      await this.store.env.flushed;
      await this.store.env.close();
      return true;
    })();
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), CLOSE_LIMIT_MS)));
    if (!(await Promise.race([closed, limit]))) log.error({ shard: this.index }, 'the store did not close in time; stopping without it');
    clearTimeout(timer);
  }
}
