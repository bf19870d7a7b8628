import { createHmac, randomBytes } from 'node:crypto';
import type { ResolvedConfig } from '../config.js';
import { normalizeSystemGroupSettings } from '../model/groups.js';
import { RealmState, type SubInterval } from '../model/realm-state.js';
import { MessageIds, MessageIdsExhausted } from '../store/message-ids.js';
import { idsAcrossShards } from '../store/server-ids.js';
import { firstMessageIn } from '../store/messages.js';
import { NOTIFICATION_BOT_EMAIL, type GroupRecord, type ProfileFieldRecord, type RealmEmojiRecord, type RealmRecord, type StreamRecord, type SubscriptionRecord, type UserRecord, type UserStatusRecord } from '../model/types.js';
import type { Database } from 'lmdb';
import type { UserTopicRecord } from '../model/user-topics.js';
import type { ChannelFolderRecord } from '../model/channel-folders.js';
import { openShardStore, PendingWrites, shardPath, WriteBatch, type Key, type ShardStore, type StoreView } from '../store/shard-store.js';
import { EventBus } from './events.js';
import { RealmGate } from './realm-gate.js';
import type { ShardNote } from './desk-wire.js';
import { TimerWheel } from '../lib/timer-wheel.js';
import { log } from '../lib/log.js';
import { realmUnavailable, storageError } from '../lib/errors.js';
import { shardFile, StoreError } from '../store/integrity.js';

/**
 * A shard: the realms it owns, their in-memory state, and its LMDB environment. It runs on one
 * thread (a one-thread piscina pool, see shard/pool.ts), or in-process for the admin CLI while
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

  private constructor(
    readonly index: number,
    readonly config: ResolvedConfig,
    readonly store: ShardStore,
    readonly messageIds: MessageIds,
  ) {
    this.pending = new PendingWrites([store.messages]);
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
    for (const realm of this.readRealms().values()) this.addRealm(realm);
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

  /** The id counters; never lowered: an id a failed transaction took is skipped, not reused. */
  private readSeqs(): void {
    for (const { key, value } of this.store.meta.getRange({ start: 'seq:', end: 'seq;' })) {
      const kind = String(key).slice(4);
      this.seq.set(kind, Math.max(this.seq.get(kind) ?? 0, value as number));
    }
  }

  /** Every realm's organization model as the store has it; or only realm `only`'s. */
  private readRealms(only?: number): Map<number, RealmState> {
    const { store } = this;
    const realms = new Map<number, RealmState>();
    // Realm-scoped keys lead with the realm id: one realm is one range of every table.
    const range = only === undefined ? {} : { start: [only], end: [only + 1] };
    const realmOf = (key: unknown): RealmState => {
      const realmId = (key as number[])[0];
      const realm = realms.get(realmId);
      if (!realm) throw new Error(`shard ${this.index}: record for unknown realm ${realmId}`);
      return realm;
    };
    const records = only === undefined ? Array.from(store.realms.getRange({}), (e) => e.value) : [store.realms.get(only)].filter((v) => v !== undefined);
    for (const value of records) {
      const realm = new RealmState(value as RealmRecord);
      realms.set(realm.id, realm);
    }
    for (const { key, value } of store.users.getRange(range)) {
      const user = value as UserRecord;
      // Stores from before system bots: the Notification Bot was an ordinary bot user.
      if (user.isSystemBot === undefined && user.isBot && user.botOwnerId === null && user.email === NOTIFICATION_BOT_EMAIL) user.isSystemBot = true;
      realmOf(key).setUser(user);
    }
    for (const { key, value } of store.streams.getRange(range)) {
      const stream = value as StreamRecord;
      if (stream.firstMessageId === undefined) stream.firstMessageId = firstMessageIn(this, stream.realmId, stream.id);
      realmOf(key).setStream(stream);
    }
    for (const { key, value } of store.subs.getRange(range)) {
      const realm = realmOf(key);
      const sub = value as SubscriptionRecord;
      // ...which joined the default channels; a system bot subscribes to nothing.
      if (!realm.users.get(sub.userId)?.isSystemBot) realm.setSubscription(sub);
    }
    for (const { key, value } of store.formerSubs.getRange(range)) {
      const [, userId, streamId] = key as number[];
      realmOf(key).setFormerSubscription(value as SubscriptionRecord, userId, streamId);
    }
    for (const { key, value } of store.groups.getRange(range)) realmOf(key).setGroup(value as GroupRecord);
    for (const realm of realms.values()) normalizeSystemGroupSettings(realm);
    for (const { key, value } of store.readMarks.getRange(range)) realmOf(key).readMarks.set((key as number[])[1], value as number);
    for (const { key, value } of store.userTopics.getRange(range)) realmOf(key).userTopics.set(value as UserTopicRecord);
    for (const { key, value } of store.channelFolders.getRange(range)) realmOf(key).channelFolders.set((key as number[])[1], value as ChannelFolderRecord);
    for (const { key, value } of store.subHistory.getRange(range)) {
      const [, userId, streamId] = key as number[];
      realmOf(key).setIntervals(userId, streamId, value as SubInterval[]);
    }
    for (const { key, value } of store.emoji.getRange(range)) realmOf(key).realmEmoji.set((key as number[])[1], value as RealmEmojiRecord);
    this.readPeople(realmOf, range);
    return realms;
  }

  /** Custom profile fields, statuses, mutes and alert words (model/people.ts). */
  private readPeople(realmOf: (key: unknown) => RealmState, range: { start?: number[]; end?: number[] }): void {
    const { store } = this;
    for (const { key, value } of store.profileFields.getRange(range)) {
      const field = value as ProfileFieldRecord;
      realmOf(key).people.profileFields.set(field.id, field);
    }
    for (const { key, value } of store.userStatus.getRange(range)) realmOf(key).people.statuses.set((key as number[])[1], value as UserStatusRecord);
    for (const { key, value } of store.mutedUsers.getRange(range)) {
      const [, userId, mutedId] = key as number[];
      realmOf(key).people.setMute(userId, mutedId, value as number);
    }
    for (const { key, value } of store.alertWords.getRange(range)) realmOf(key).people.setAlertWords((key as number[])[1], value as string[]);
  }

  /** Run after the in-memory model was reloaded from the store (the event queues resync here). */
  readonly reloaded: (() => void)[] = [];
  private reloading: Promise<void> | null = null;
  private reloadAgain = false;
  private readonly reportedCauses = new WeakSet<object>();

  /**
   * A WriteBatch's commit failed (a full disk, an I/O error, a damaged page). The action has
   * already changed memory, and so may others that committed in the same lmdb-js batch: memory
   * now holds changes the store does not. So: log the failure with its cause, reload the
   * organization model from the store once no transaction is in flight, and give the action a
   * storageError for its client. Nothing else stops: reads go on, and so do writes, which
   * succeed again once there is space.
   */
  private readonly commitFailed = (err: unknown): Error => {
    // lmdb-js rejects the transaction with a generic error and carries the cause (errno) in a
    // promise that rejects too: unhandled, it would end the thread.
    const cause = (err as { commitError?: Promise<unknown> }).commitError;
    if (cause && typeof cause.then === 'function') {
      cause.then(undefined, (c: unknown) => {
        if (this.reportedCauses.has(cause)) return;
        this.reportedCauses.add(cause);
        log.error({ err: c, shard: this.index, path: shardPath(this.config.dataDir, this.index) }, 'LMDB commit failed: its requests were refused and the shard reloads its state from the store');
      });
    } else log.error({ err, shard: this.index, path: shardPath(this.config.dataDir, this.index) }, 'LMDB commit failed: its requests were refused and the shard reloads its state from the store');
    this.scheduleReload();
    return storageError();
  };

  private scheduleReload(): void {
    if (this.reloading) {
      this.reloadAgain = true;
      return;
    }
    this.reloading = (async () => {
      do {
        this.reloadAgain = false;
        await this.quiesced(() => this.reload());
      } while (this.reloadAgain);
    })()
      .catch((err) => log.error({ err, shard: this.index }, 'reloading the shard after a failed commit failed'))
      .finally(() => (this.reloading = null));
  }

  /**
   * Replaces each realm's in-memory model by the store's, in place: handlers in flight hold
   * their RealmState, and must go on working on the live one. Runs with no transaction in
   * flight and new requests held at the gate (quiesced), so the store is exactly what was
   * acknowledged.
   */
  private reload(): void {
    this.readSeqs();
    const fresh = this.readRealms();
    for (const [id, realm] of this.realms) {
      const stored = fresh.get(id);
      if (!stored) {
        this.realms.delete(id);
        continue;
      }
      stored.url = realm.url;
      Object.assign(realm, stored);
    }
    for (const [id, realm] of fresh) if (!this.realms.has(id)) this.addRealm(realm);
    for (const listener of this.reloaded) listener();
    log.warn({ shard: this.index }, 'shard state reloaded from the store after a failed commit');
  }

  /**
   * Reads one realm from the store into memory (a realm that arrived by a cluster move), with
   * the counters the copy raised. Throws if the store has no such realm.
   */
  attachRealm(realmId: number): RealmState {
    this.readSeqs();
    const realm = this.readRealms(realmId).get(realmId);
    if (!realm) throw new Error(`shard ${this.index} has no realm ${realmId} in its store`);
    this.addRealm(realm);
    return realm;
  }

  /** Forgets a realm's in-memory model (its rows stay: the copy a move leaves behind). */
  detachRealm(realmId: number): void {
    this.realms.delete(realmId);
  }

  /** Whether a reload after a failed commit is under way (tests wait for it). */
  get recovering(): Promise<void> | null {
    return this.reloading;
  }

  /** Told of every transaction's duration and outcome (shard/metrics.ts sets it in the server). */
  commitObserver: ((seconds: number, ok: boolean) => void) | null = null;
  /** Set while a cluster copies one of this shard's realms away (shard/realm-moves.ts). */
  writeObserver: ((writes: [Database, Key, unknown][]) => void) | null = null;
  private readonly observer = () => this.writeObserver;

  batch(): WriteBatch {
    return new WriteBatch(this.store, this.pending, this.events, this.commitFailed, this.commitObserver, this.observer);
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
  pendingWrite(db: Database, key: Key): { value: unknown } | undefined {
    return this.pending.peek(db, key);
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

  async close(): Promise<void> {
    this.wheel.stop();
    await this.store.env.flushed;
    await this.store.env.close();
  }
}
