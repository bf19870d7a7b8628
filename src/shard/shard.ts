import type { ResolvedConfig } from '../config.js';
import { RealmState, type SubInterval } from '../model/realm-state.js';
import { MessageIds } from '../store/message-ids.js';
import { firstMessageIn } from '../store/messages.js';
import { NOTIFICATION_BOT_EMAIL, type GroupRecord, type RealmRecord, type StreamRecord, type SubscriptionRecord, type UserRecord } from '../model/types.js';
import type { Database } from 'lmdb';
import type { UserTopicRecord } from '../model/user-topics.js';
import type { ChannelFolderRecord } from '../model/channel-folders.js';
import { openShardStore, PendingWrites, WriteBatch, type Key, type ShardStore, type StoreView } from '../store/shard-store.js';
import { EventBus } from './events.js';
import { TimerWheel } from '../lib/timer-wheel.js';
import { log } from '../lib/log.js';

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
    const shard = new Shard(index, config, openShardStore(config.dataDir, index), new MessageIds(idBuffer));
    shard.load();
    shard.messageIds.raiseTo(shard.seq.get('message') ?? 0);
    return shard;
  }

  private load(): void {
    const { store } = this;
    for (const { key, value } of store.meta.getRange({ start: 'seq:', end: 'seq;' })) this.seq.set(String(key).slice(4), value as number);
    for (const { value } of store.realms.getRange({})) this.addRealm(new RealmState(value as RealmRecord));
    for (const { key, value } of store.users.getRange({})) {
      const user = value as UserRecord;
      // Stores from before system bots: the Notification Bot was an ordinary bot user.
      if (user.isSystemBot === undefined && user.isBot && user.botOwnerId === null && user.email === NOTIFICATION_BOT_EMAIL) user.isSystemBot = true;
      this.realmOf(key).setUser(user);
    }
    for (const { key, value } of store.streams.getRange({})) {
      const stream = value as StreamRecord;
      if (stream.firstMessageId === undefined) stream.firstMessageId = firstMessageIn(this, stream.realmId, stream.id);
      this.realmOf(key).setStream(stream);
    }
    for (const { key, value } of store.subs.getRange({})) {
      const realm = this.realmOf(key);
      const sub = value as SubscriptionRecord;
      // ...which joined the default channels; a system bot subscribes to nothing.
      if (!realm.users.get(sub.userId)?.isSystemBot) realm.setSubscription(sub);
    }
    for (const { key, value } of store.formerSubs.getRange({})) {
      const [, userId, streamId] = key as number[];
      this.realmOf(key).setFormerSubscription(value as SubscriptionRecord, userId, streamId);
    }
    for (const { key, value } of store.groups.getRange({})) this.realmOf(key).setGroup(value as GroupRecord);
    for (const { key, value } of store.readMarks.getRange({})) this.realmOf(key).readMarks.set((key as number[])[1], value as number);
    for (const { key, value } of store.userTopics.getRange({})) this.realmOf(key).userTopics.set(value as UserTopicRecord);
    for (const { key, value } of store.channelFolders.getRange({})) this.realmOf(key).channelFolders.set((key as number[])[1], value as ChannelFolderRecord);
    for (const { key, value } of store.subHistory.getRange({})) {
      const [, userId, streamId] = key as number[];
      this.realmOf(key).setIntervals(userId, streamId, value as SubInterval[]);
    }
  }

  private realmOf(key: unknown): RealmState {
    const realmId = (key as number[])[0];
    const realm = this.realms.get(realmId);
    if (!realm) throw new Error(`shard ${this.index}: record for unknown realm ${realmId}`);
    return realm;
  }

  batch(): WriteBatch {
    return new WriteBatch(this.store, this.pending, this.events);
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

  async close(): Promise<void> {
    this.wheel.stop();
    await this.store.env.flushed;
    await this.store.env.close();
  }
}
