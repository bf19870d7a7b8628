import type { ResolvedConfig } from '../config.js';
import { normalizeSystemGroupSettings } from '../model/groups.js';
import { RealmState, type SubInterval } from '../model/realm-state.js';
import { MessageIds } from '../store/message-ids.js';
import { firstMessageIn } from '../store/messages.js';
import { NOTIFICATION_BOT_EMAIL, type GroupRecord, type ProfileFieldRecord, type RealmEmojiRecord, type RealmRecord, type StreamRecord, type SubscriptionRecord, type UserRecord, type UserStatusRecord } from '../model/types.js';
import type { Database } from 'lmdb';
import type { UserTopicRecord } from '../model/user-topics.js';
import type { ChannelFolderRecord } from '../model/channel-folders.js';
import { openShardStore, PendingWrites, shardPath, WriteBatch, type Key, type ShardStore, type StoreView } from '../store/shard-store.js';
import { EventBus } from './events.js';
import { TimerWheel } from '../lib/timer-wheel.js';
import { log } from '../lib/log.js';
import { storageError } from '../lib/errors.js';
import { shardFile, StoreError } from '../store/integrity.js';

/** How long a stop waits for the store to flush and close. */
const CLOSE_LIMIT_MS = 5_000;

/**
 * A shard: the realms it owns, their in-memory state, and its LMDB environment. It runs on one
 * thread (a one-thread piscina pool, see shard/pool.ts), or in-process for the admin CLI while
 * the server is stopped.
 */
export class Shard implements StoreView {
  readonly realms = new Map<number, RealmState>();
  readonly events = new EventBus();
  /** The shard's clock for timers (event queues now; scheduled sends and retries later). */
  readonly wheel = new TimerWheel();
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
   * threads; without one (the CLI, tests) the shard counts on its own.
   */
  static open(index: number, config: ResolvedConfig, idBuffer?: SharedArrayBuffer): Shard {
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
    for (const realm of this.readRealms().values()) this.addRealm(realm);
  }

  /** The id counters; never lowered: an id a failed transaction took is skipped, not reused. */
  private readSeqs(): void {
    for (const { key, value } of this.store.meta.getRange({ start: 'seq:', end: 'seq;' })) {
      const kind = String(key).slice(4);
      this.seq.set(kind, Math.max(this.seq.get(kind) ?? 0, value as number));
    }
  }

  /** Every realm's organization model as the store has it. */
  private readRealms(): Map<number, RealmState> {
    const { store } = this;
    const realms = new Map<number, RealmState>();
    const realmOf = (key: unknown): RealmState => {
      const realmId = (key as number[])[0];
      const realm = realms.get(realmId);
      if (!realm) throw new Error(`shard ${this.index}: record for unknown realm ${realmId}`);
      return realm;
    };
    for (const { value } of store.realms.getRange({})) {
      const realm = new RealmState(value as RealmRecord);
      realms.set(realm.id, realm);
    }
    for (const { key, value } of store.users.getRange({})) {
      const user = value as UserRecord;
      // Stores from before system bots: the Notification Bot was an ordinary bot user.
      if (user.isSystemBot === undefined && user.isBot && user.botOwnerId === null && user.email === NOTIFICATION_BOT_EMAIL) user.isSystemBot = true;
      realmOf(key).setUser(user);
    }
    for (const { key, value } of store.streams.getRange({})) {
      const stream = value as StreamRecord;
      if (stream.firstMessageId === undefined) stream.firstMessageId = firstMessageIn(this, stream.realmId, stream.id);
      realmOf(key).setStream(stream);
    }
    for (const { key, value } of store.subs.getRange({})) {
      const realm = realmOf(key);
      const sub = value as SubscriptionRecord;
      // ...which joined the default channels; a system bot subscribes to nothing.
      if (!realm.users.get(sub.userId)?.isSystemBot) realm.setSubscription(sub);
    }
    for (const { key, value } of store.formerSubs.getRange({})) {
      const [, userId, streamId] = key as number[];
      realmOf(key).setFormerSubscription(value as SubscriptionRecord, userId, streamId);
    }
    for (const { key, value } of store.groups.getRange({})) realmOf(key).setGroup(value as GroupRecord);
    for (const realm of realms.values()) normalizeSystemGroupSettings(realm);
    for (const { key, value } of store.readMarks.getRange({})) realmOf(key).readMarks.set((key as number[])[1], value as number);
    for (const { key, value } of store.userTopics.getRange({})) realmOf(key).userTopics.set(value as UserTopicRecord);
    for (const { key, value } of store.channelFolders.getRange({})) realmOf(key).channelFolders.set((key as number[])[1], value as ChannelFolderRecord);
    for (const { key, value } of store.subHistory.getRange({})) {
      const [, userId, streamId] = key as number[];
      realmOf(key).setIntervals(userId, streamId, value as SubInterval[]);
    }
    for (const { key, value } of store.emoji.getRange({})) realmOf(key).realmEmoji.set((key as number[])[1], value as RealmEmojiRecord);
    this.readPeople(realmOf);
    return realms;
  }

  /** Custom profile fields, statuses, mutes and alert words (model/people.ts). */
  private readPeople(realmOf: (key: unknown) => RealmState): void {
    const { store } = this;
    for (const { key, value } of store.profileFields.getRange({})) {
      const field = value as ProfileFieldRecord;
      realmOf(key).people.profileFields.set(field.id, field);
    }
    for (const { key, value } of store.userStatus.getRange({})) realmOf(key).people.statuses.set((key as number[])[1], value as UserStatusRecord);
    for (const { key, value } of store.mutedUsers.getRange({})) {
      const [, userId, mutedId] = key as number[];
      realmOf(key).people.setMute(userId, mutedId, value as number);
    }
    for (const { key, value } of store.alertWords.getRange({})) realmOf(key).people.setAlertWords((key as number[])[1], value as string[]);
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
    this.commitHasFailed = true;
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

  /** Whether a reload after a failed commit is under way (tests wait for it). */
  get recovering(): Promise<void> | null {
    return this.reloading;
  }

  batch(): WriteBatch {
    return new WriteBatch(this.store, this.pending, this.events, this.commitFailed);
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
    const id = this.messageIds.next();
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
