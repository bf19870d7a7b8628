import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { MessageIds } from './message-ids.js';

/**
 * One LMDB environment per shard, written only by that shard's thread.
 *
 * Key layout (lmdb-js ordered-binary array keys, so every prefix below is a range read):
 *
 *   realms    realmId                          -> RealmRecord
 *   users     [realmId, userId]                -> UserRecord
 *   streams   [realmId, streamId]              -> StreamRecord
 *   subs      [realmId, userId, streamId]      -> SubscriptionRecord
 *   formerSubs [realmId, userId, streamId]     -> SubscriptionRecord of a channel the user left
 *   userTopics [realmId, userId, streamId, topicKey] -> UserTopicRecord: a topic's visibility
 *                                                 policy for one user (muted, unmuted, followed)
 *   channelFolders [realmId, folderId]         -> ChannelFolderRecord
 *   groups    [realmId, groupId]               -> GroupRecord
 *   devices   [realmId, userId, kind, token]   -> DeviceRecord
 *   profileFields [realmId, fieldId]           -> ProfileFieldRecord (custom profile fields)
 *   userStatus [realmId, userId]               -> UserStatusRecord
 *   mutedUsers [realmId, userId, mutedUserId]  -> seconds when muted
 *   alertWords [realmId, userId]               -> the user's alert words (string[])
 *   invites   [realmId, inviteId]              -> InviteRecord (email invitations and reusable
 *                                                 links; used and revoked ones stay)
 *   inviteKeys [realmId, key]                  -> inviteId: the secret of a /join/<key>/ link
 *   meta      'seq:<kind>'                     -> last id handed out (user, stream, group;
 *                                                 'seq:message' is this shard's high-water mark);
 *             'secret'                         -> 32 random bytes, the shard's signing secret
 *
 * Messages (see store/messages.ts for how they are read):
 *
 *   messages    msgId                                    -> MessageRecord
 *   byStream    [realmId, streamId, msgId]               -> null   a channel's messages
 *   byTopic     [realmId, streamId, topicKey, msgId]     -> null   topicKey: lower-cased topic
 *   byDm        [realmId, dmKey, msgId]                  -> null   dmKey: '1,5,9', sorted ids
 *   byUserDm    [realmId, userId, msgId]                 -> dmKey  each participant's DMs
 *   bySender    [realmId, senderId, msgId]               -> null
 *   uflags      [realmId, userId, msgId]                 -> bits   only flags that differ
 *   uflagIdx    [realmId, userId, flag, msgId]           -> null   'starred', 'mentioned',
 *                                                                  'alerted', 'flip'
 *   uflagUsers  [realmId, msgId, userId]                 -> null   who has a uflags row for a
 *                                                                  message (deletes, moves)
 *   readMarks   [realmId, userId]                        -> msgId  the user's read watermark
 *   subHistory  [realmId, userId, streamId]              -> [start, end|null][]
 *   search      [realmId, word, msgId]                   -> null   store/search.ts: full-text
 *   uploads     [realmId, kind, ...]                     -> ...    store/uploads.ts: files, links
 *   emoji       [realmId, emojiId]                       -> RealmEmojiRecord (api/emoji/)
 *   emojiImages [realmId, fileName]                      -> bytes  a custom emoji's image, and
 *                                                          'still/<name>' for its first frame
 *   avatars     [realmId, fileName]                      -> bytes  an uploaded avatar: '<key>.png'
 *                                                          (100x100), '<key>-medium.png' (500x500)
 *                                                          (store/avatars.ts)
 *   submessages [msgId, submessageId]                    -> SubmessageRecord  widget state
 *                                                          (store/submessages.ts)
 *   queues      queueId                                  -> a live event queue: options, ceiling
 *   eventLog    seq                                      -> the durable events of one
 *                                                          transaction (api/events/journal.ts)
 *   botStorage  [realmId, userId, keyId]                 -> [key, value]  api/bots/storage.ts
 *   channelEmails ['t', token] | ['c', realm, channel, creator, sender] -> channel email
 *                                                          addresses (api/email-gateway/address.ts)
 *   jobs        [due, key]                               -> JobRecord  store/jobs.ts: durable
 *   jobKeys     key                                      -> due        work run by shard/jobs.ts
 *   drafts      [realmId, userId, draftId]               -> DraftRecord
 *   snippets    [realmId, userId, snippetId]             -> SavedSnippetRecord
 *   navigationViews [realmId, userId, fragment]          -> NavigationViewRecord
 *   scheduled   [realmId, senderId, id]                  -> ScheduledMessageRecord (scheduled
 *                                                          messages and reminders)
 *   exports     [realmId, exportId]                      -> RealmExportRecord  data exports; the
 *                                                          archives are files (api/exports/)
 *   notify      ['unsub', token] | ['unsubUser', realmId, userId] | ['active', realmId, userId]
 *               | ['digest', realmId, userId]          -> unsubscribe keys, last activity and
 *                                                          last digest (api/notify/store.ts)
 *   sessions    [realmId, userId, sha256(token)]         -> SessionRecord  the web app's browser
 *                                                          sessions (store/sessions.ts)
 *   passwordResets [realmId, sha256(token)]              -> PasswordResetRecord  a reset link's
 *                                                          record; the token itself is only mailed
 *   emailChanges [realmId, sha256(token)]                -> EmailChangeRecord  an address change
 *                                                          waiting for its link (api/email-change/)
 *
 * Sends write a constant number of rows whatever the channel's size: per-user state is sparse
 * (model/read-state.ts explains the watermark), and "who received it" is derived from the
 * subscription history rather than stored per recipient.
 *
 * Realm-scoped tables lead with realmId, so loading one realm is one range read per table and
 * deleting a realm is a range delete. Ids for users, streams and groups come from per-shard
 * counters: unique within the shard, which is the unit a realm never leaves.
 */
export interface ShardStore {
  env: RootDatabase;
  realms: Database;
  users: Database;
  streams: Database;
  subs: Database;
  groups: Database;
  devices: Database;
  meta: Database;
  messages: Database;
  byStream: Database;
  byTopic: Database;
  byDm: Database;
  byUserDm: Database;
  bySender: Database;
  uflags: Database;
  uflagIdx: Database;
  uflagUsers: Database;
  readMarks: Database;
  subHistory: Database;
  search: Database;
  uploads: Database;
  submessages: Database;
  queues: Database;
  eventLog: Database;
  formerSubs: Database;
  profileFields: Database;
  userStatus: Database;
  mutedUsers: Database;
  alertWords: Database;
  emoji: Database;
  emojiImages: Database;
  userTopics: Database;
  channelFolders: Database;
  avatars: Database;
  invites: Database;
  inviteKeys: Database;
  botStorage: Database;
  channelEmails: Database;
  jobs: Database;
  jobKeys: Database;
  drafts: Database;
  snippets: Database;
  navigationViews: Database;
  exports: Database;
  scheduled: Database;
  notify: Database;
  sessions: Database;
  passwordResets: Database;
  emailChanges: Database;
}

export function shardPath(dataDir: string, shard: number): string {
  return join(dataDir, 'shards', String(shard));
}

/** Every table of a shard, by its name in the environment. */
export type ShardTable = Exclude<keyof ShardStore, 'env'>;

/** Opens shard `shard`'s environment; `readOnly` (the store checks) neither creates nor writes anything. */
export function openShardStore(dataDir: string, shard: number, readOnly = false): ShardStore {
  const path = shardPath(dataDir, shard);
  if (!readOnly) mkdirSync(path, { recursive: true });
  const env = open({ path, maxDbs: 64, readOnly });
  // Shared structures: msgpackr records their key sets once per table instead of in every row,
  // which halves a message's size and makes decoding it about 4x faster. Rows written before
  // (structures inline) still decode; the structures row is not part of any range read.
  const db = (name: string) => env.openDB({ name, sharedStructuresKey: Symbol.for('structures') });
  return {
    env,
    realms: db('realms'),
    users: db('users'),
    streams: db('streams'),
    subs: db('subs'),
    groups: db('groups'),
    devices: db('devices'),
    meta: db('meta'),
    messages: db('messages'),
    byStream: db('byStream'),
    byTopic: db('byTopic'),
    byDm: db('byDm'),
    byUserDm: db('byUserDm'),
    bySender: db('bySender'),
    uflags: db('uflags'),
    uflagIdx: db('uflagIdx'),
    uflagUsers: db('uflagUsers'),
    readMarks: db('readMarks'),
    subHistory: db('subHistory'),
    search: db('search'),
    uploads: db('uploads'),
    submessages: db('submessages'),
    queues: db('queues'),
    eventLog: db('eventLog'),
    formerSubs: db('formerSubs'),
    profileFields: db('profileFields'),
    userStatus: db('userStatus'),
    mutedUsers: db('mutedUsers'),
    alertWords: db('alertWords'),
    emoji: db('emoji'),
    // Raw bytes: an image gains nothing from msgpack.
    emojiImages: env.openDB({ name: 'emojiImages', encoding: 'binary' }),
    userTopics: db('userTopics'),
    channelFolders: db('channelFolders'),
    avatars: env.openDB({ name: 'avatars', encoding: 'binary' }),
    invites: db('invites'),
    inviteKeys: db('inviteKeys'),
    botStorage: db('botStorage'),
    channelEmails: db('channelEmails'),
    jobs: db('jobs'),
    jobKeys: db('jobKeys'),
    drafts: db('drafts'),
    snippets: db('snippets'),
    navigationViews: db('navigationViews'),
    scheduled: db('scheduled'),
    exports: db('exports'),
    notify: db('notify'),
    sessions: db('sessions'),
    passwordResets: db('passwordResets'),
    emailChanges: db('emailChanges'),
  };
}

export type Key = string | number | (string | number)[];

/** An event as actions emit it, before any queue has shaped it. */
export interface ShardEvent {
  type: string;
  [field: string]: unknown;
}

export interface Emitted {
  realmId: number;
  event: ShardEvent;
  userIds: number[];
  /** Written to the event log with the change (false: typing, presence, heartbeats). */
  durable: boolean;
  /** For one queue only (a heartbeat), instead of the users' queues. */
  queueId?: string;
}

/**
 * What a batch tells the layer above about its events when it commits (the shard's event bus,
 * shard/events.ts): `stage` runs as the transaction is about to start, may add rows to it (the
 * event log), and takes the events' place in the delivery order; `settle` is called once the
 * transaction has ended, committed or not.
 */
export interface EventStage {
  stage(events: Emitted[], batch: WriteBatch): { settle(ok: boolean): void };
}

/**
 * What the code below the shard layer (model, store) needs of a shard: its tables, reads that
 * see the shard's own uncommitted writes, and the server-wide message-id counter. The Shard
 * class is one; this keeps those layers from importing it.
 */
export interface StoreView {
  readonly store: ShardStore;
  readonly messageIds: MessageIds;
  /** A stored row as the shard's own uncommitted writes have left it. */
  read<T>(db: Database, key: Key): T | undefined;
  /** A row's uncommitted write, if any (`{value}`, undefined for a delete). */
  pendingWrite(db: Database, key: Key): { value: unknown } | undefined;
}

/**
 * Writes made but not yet committed, visible to reads in the meantime.
 *
 * A do-action changes state, queues its puts and awaits the commit; while it waits, the shard
 * runs other requests. A read-modify-write of a stored row (a message's reactions, a user's
 * flags) by one of those must see the first action's value, not the committed one, or one of
 * the two updates is lost. So every put lands here first, and `read` looks here before LMDB.
 * Entries leave when their transaction has committed (unless a later write replaced them).
 */
export class PendingWrites {
  private readonly byDb = new Map<Database, Map<string, { value: unknown }>>();
  /**
   * Decoded rows of the tables named in the constructor, most recently read last. Decoding a
   * message costs more than reading it (msgpack, two copies of its content), and history reads
   * come back to the same recent messages, as the reference's memcached message cache assumes.
   * A write drops the row here when it is made; until its commit, reads find it in `byDb`, and
   * after, they decode the committed row again. Rows are never modified in place (actions copy
   * a record before changing it), so readers may share one object.
   */
  private readonly cached = new Map<Database, Map<Key, unknown>>();

  constructor(cachedTables: Database[] = [], private readonly cacheSize = 4096) {
    for (const db of cachedTables) this.cached.set(db, new Map());
  }

  /** Transactions begun and not yet committed, and who waits for there to be none. */
  private inFlight = 0;
  private waiters: (() => void)[] = [];

  begin(): void {
    this.inFlight++;
  }

  end(): void {
    if (--this.inFlight > 0 || this.waiters.length === 0) return;
    // setImmediate runs after the microtasks of the committing actions, which emit their events.
    setImmediate(() => {
      if (this.inFlight > 0) return;
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /**
   * Resolves when no action is between its state change and its events, so that a snapshot
   * (POST /register) taken then agrees with the events that follow it.
   */
  settled(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  set(db: Database, key: Key, value: unknown): { value: unknown } {
    this.cached.get(db)?.delete(key);
    let map = this.byDb.get(db);
    if (!map) this.byDb.set(db, (map = new Map()));
    const entry = { value };
    map.set(JSON.stringify(key), entry);
    return entry;
  }

  settle(db: Database, key: Key, entry: { value: unknown }): void {
    const map = this.byDb.get(db);
    const k = JSON.stringify(key);
    if (map?.get(k) === entry) map.delete(k);
  }

  /** The uncommitted write of a row, if there is one: `{value}` (undefined for a delete). */
  peek(db: Database, key: Key): { value: unknown } | undefined {
    const pending = this.byDb.get(db);
    return pending && pending.size > 0 ? pending.get(JSON.stringify(key)) : undefined;
  }

  read<T>(db: Database, key: Key): T | undefined {
    const pending = this.byDb.get(db);
    const entry = pending && pending.size > 0 ? pending.get(JSON.stringify(key)) : undefined;
    if (entry) return entry.value as T | undefined;
    const cache = this.cached.get(db);
    // Only scalar keys: an array key is a new object at every call.
    if (!cache || typeof key === 'object') return db.get(key) as T | undefined;
    if (cache.has(key)) {
      const value = cache.get(key);
      cache.delete(key);
      cache.set(key, value);
      return value as T;
    }
    const value = db.get(key);
    if (value !== undefined) {
      cache.set(key, value);
      if (cache.size > this.cacheSize) cache.delete(cache.keys().next().value!);
    }
    return value as T | undefined;
  }
}

/**
 * The writes and events of one do-action. The action changes the shard's in-memory state
 * synchronously, records the matching puts and events here, and awaits commit() before it
 * answers: every acknowledged change is durable, all writes of one action land in one LMDB
 * transaction, and so do its events (the event bus logs them for the queues they reach), which
 * are delivered once it has committed.
 */
export class WriteBatch {
  // Keyed by table and key: a row written twice in one action (a read flip set, then dropped by
  // advanceReadMark) costs one write, its last.
  private ops = new Map<Database, Map<string, { key: Key; value: unknown; entry: { value: unknown } }>>();
  private count = 0;
  private events: Emitted[] = [];

  constructor(
    private readonly store: ShardStore,
    private readonly pending: PendingWrites,
    private readonly bus: EventStage | null = null,
    /** Told of a failed commit (Shard.commitFailed); returns the error the action throws instead. */
    private readonly failed: ((err: unknown) => Error) | null = null,
    /** Told how long each transaction took, and whether it committed (shard/metrics.ts). */
    private readonly timed: ((seconds: number, ok: boolean) => void) | null = null,
    /**
     * Told of every row a committed transaction wrote (undefined: deleted). Only while a cluster
     * copies a realm away (shard/realm-moves.ts); otherwise null and free.
     */
    private readonly observer: () => ((writes: [Database, Key, unknown][]) => void) | null = () => null,
  ) {}

  /** An event of this action, for the users `userIds`, delivered after the commit. */
  emit(realmId: number, event: ShardEvent, userIds: Iterable<number>): this {
    const ids = [...userIds];
    if (ids.length > 0) this.events.push({ realmId, event, userIds: ids, durable: true });
    return this;
  }

  /** Events that need no log row (typing, presence, heartbeats): see EventBus.emit. */
  emitEphemeral(events: Emitted[]): this {
    this.events.push(...events);
    return this;
  }

  put(db: Database, key: Key, value: unknown): this {
    let table = this.ops.get(db);
    if (!table) this.ops.set(db, (table = new Map()));
    table.set(JSON.stringify(key), { key, value, entry: this.pending.set(db, key, value) });
    this.count++;
    return this;
  }

  del(db: Database, key: Key): this {
    return this.put(db, key, undefined);
  }

  /**
   * Drops everything recorded and not committed (a job whose run failed half-way): its writes
   * stop being visible to reads. In-memory state the action changed is not undone.
   */
  discard(): void {
    for (const [db, table] of this.ops) for (const { key, entry } of table.values()) this.pending.settle(db, key, entry);
    this.ops = new Map();
    this.count = 0;
    this.events = [];
  }

  async commit(): Promise<void> {
    // The sink numbers the events for their queues now, in commit order, adding its rows here.
    const events = this.events;
    this.events = [];
    const ticket = this.bus && events.length > 0 ? this.bus.stage(events, this) : null;
    if (this.count === 0) {
      ticket?.settle(true);
      return;
    }
    const ops = this.ops;
    this.ops = new Map();
    this.count = 0;
    this.pending.begin();
    let ok = false;
    const started = this.timed ? performance.now() : 0;
    try {
      await this.store.env.transaction(() => {
        for (const [db, table] of ops) {
          for (const { key, value } of table.values()) {
            if (value === undefined) db.remove(key);
            else db.put(key, value);
          }
        }
      });
      ok = true;
      // Asked at the commit, not when the batch was made: a copy that began meanwhile sees it.
      const observer = this.observer();
      if (observer) observer([...ops].flatMap(([db, table]) => [...table.values()].map(({ key, value }): [Database, Key, unknown] => [db, key, value])));
    } catch (err) {
      // A full disk or an I/O error: LMDB has aborted the transaction (and every other one
      // lmdb-js batched with it), so none of this action's writes or events exist.
      throw this.failed ? this.failed(err) : err;
    } finally {
      this.timed?.((performance.now() - started) / 1000, ok);
      for (const [db, table] of ops) for (const { key, entry } of table.values()) this.pending.settle(db, key, entry);
      ticket?.settle(ok);
      this.pending.end();
    }
  }
}

