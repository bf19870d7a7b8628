/** [first message id received, last message id received or null while subscribed]. */
export type SubInterval = [number, number | null];

import { PeopleState } from './people.js';
import type { GroupRecord, RealmEmojiRecord, RealmRecord, StreamRecord, SubscriptionRecord, UserRecord } from './types.js';
import { UserTopics } from './user-topics.js';
import type { ChannelFolderRecord } from './channel-folders.js';

/**
 * One realm's organization model, held in memory by the shard that owns the realm.
 *
 * The shard's thread is the only writer, so these maps need no locks. Every change is made here
 * and written to LMDB in the same do-action (see store/shard-store.ts WriteBatch); on start the
 * shard rebuilds this from a range read per table.
 */
export class RealmState {
  readonly users = new Map<number, UserRecord>();
  /** Lower-cased email -> user. */
  readonly usersByEmail = new Map<string, UserRecord>();
  readonly streams = new Map<number, StreamRecord>();
  /** Lower-cased channel name -> channel. */
  readonly streamsByName = new Map<string, StreamRecord>();
  /** userId -> (streamId -> subscription). */
  readonly subsByUser = new Map<number, Map<number, SubscriptionRecord>>();
  /** streamId -> subscriber user ids (deactivated users included: filter on isActive). */
  readonly subscribers = new Map<number, Set<number>>();
  /** Ids of the realm default channels, derived from StreamRecord.isDefault. */
  readonly defaultStreamIds = new Set<number>();
  readonly groups = new Map<number, GroupRecord>();
  /** System group name (role:members, ...) -> id. */
  readonly systemGroups = new Map<string, number>();

  /**
   * Each user's read watermark: messages up to it are read, later ones unread, each unless the
   * message carries the READ_FLIP bit (model/read-state.ts).
   */
  readonly readMarks = new Map<number, number>();
  /**
   * userId -> (streamId -> [first, last] message-id intervals of subscription; last is null
   * while subscribed). A channel message was received by a user iff its id lies in one.
   */
  readonly subHistory = new Map<number, Map<number, SubInterval[]>>();
  /** Custom profile fields, statuses, mutes and alert words (model/people.ts). */
  readonly people = new PeopleState();

  /** Custom emoji by id, deactivated ones included (api/emoji/). */
  readonly realmEmoji = new Map<number, RealmEmojiRecord>();

  /** Each user's topic visibility policies (model/user-topics.ts). */
  readonly userTopics = new UserTopics();
  /** The realm's channel folders by id (model/channel-folders.ts). */
  readonly channelFolders = new Map<number, ChannelFolderRecord>();

  /** The realm's URL (Shard.realmUrl), set when the shard loads or creates the realm. */
  url = '';
  private names: Map<string, UserRecord | null> | null = null;
  /**
   * Bumped by every change to a user record (usersChanged), so that anything derived from all
   * users can be cached until the next one: the serialised realm_users of POST /register is
   * about 320 bytes a user, and rebuilding it was a third of a register's work in a big realm.
   */
  private usersVersion = 0;
  private usersJson = new Map<string, { version: number; json: string }>();

  constructor(public realm: RealmRecord) {}

  /**
   * Lower-cased full name -> the user with it, or null when several share it (the renderer then
   * only links @**Name|id**). Built on demand and dropped whenever a user is added or changed.
   */
  userByFullName(name: string): UserRecord | null | undefined {
    if (!this.names) {
      this.names = new Map();
      for (const user of this.users.values()) {
        const key = user.fullName.toLowerCase();
        this.names.set(key, this.names.has(key) ? null : user);
      }
    }
    return this.names.get(name.toLowerCase());
  }

  /**
   * Active users other than system bots: everyone who may have clients, so the audience of
   * realm-wide events. (System bots have no queues, and clients are never told about them.)
   */
  *activeUsers(): IterableIterator<UserRecord> {
    for (const user of this.users.values()) if (user.isActive && !user.isSystemBot) yield user;
  }

  activeUserIds(): number[] {
    const ids: number[] = [];
    for (const user of this.activeUsers()) ids.push(user.id);
    return ids;
  }

  intervals(userId: number, streamId: number): SubInterval[] {
    return this.subHistory.get(userId)?.get(streamId) ?? [];
  }

  setIntervals(userId: number, streamId: number, intervals: SubInterval[]): void {
    let mine = this.subHistory.get(userId);
    if (!mine) this.subHistory.set(userId, (mine = new Map()));
    mine.set(streamId, intervals);
  }

  get id(): number {
    return this.realm.id;
  }

  setUser(user: UserRecord, previousEmail?: string): void {
    if (previousEmail !== undefined) this.usersByEmail.delete(previousEmail.toLowerCase());
    this.users.set(user.id, user);
    this.usersByEmail.set(user.email.toLowerCase(), user);
    this.usersChanged();
  }

  /** Forgets a user (a failed commit's new account: Shard.repair); users are otherwise never deleted. */
  removeUser(id: number): void {
    const user = this.users.get(id);
    if (!user) return;
    this.users.delete(id);
    if (this.usersByEmail.get(user.email.toLowerCase()) === user) this.usersByEmail.delete(user.email.toLowerCase());
    this.usersChanged();
  }

  /**
   * Told of every user record change, in every realm of this thread (the event queues' desks
   * rest on credentials not having changed: api/events/desk.ts). Static, so that a repair after
   * a failed commit, which replaces user records, keeps it.
   */
  static onUsersChanged: ((realmId: number) => void) | null = null;

  /** Call after changing a user record in place (role, name, activity, ...). */
  usersChanged(): void {
    this.usersVersion++;
    this.names = null;
    RealmState.onUsersChanged?.(this.id);
  }

  /** `build()`'s JSON, kept under `key` until a user record changes. */
  cachedUsersJson(key: string, build: () => unknown): string {
    const hit = this.usersJson.get(key);
    if (hit && hit.version === this.usersVersion) return hit.json;
    const json = JSON.stringify(build());
    this.usersJson.set(key, { version: this.usersVersion, json });
    return json;
  }

  userByEmail(email: string): UserRecord | undefined {
    return this.usersByEmail.get(email.toLowerCase());
  }

  setStream(stream: StreamRecord, previousName?: string): void {
    if (previousName !== undefined) this.streamsByName.delete(previousName.toLowerCase());
    this.streams.set(stream.id, stream);
    this.streamsByName.set(stream.name.toLowerCase(), stream);
    if (stream.isDefault) this.defaultStreamIds.add(stream.id);
    else this.defaultStreamIds.delete(stream.id);
    if (!this.subscribers.has(stream.id)) this.subscribers.set(stream.id, new Set());
  }

  /** Forgets a channel (a failed commit's new channel: Shard.repair); channels are otherwise archived, never deleted. */
  removeStream(id: number): void {
    const stream = this.streams.get(id);
    if (!stream) return;
    this.streams.delete(id);
    if (this.streamsByName.get(stream.name.toLowerCase()) === stream) this.streamsByName.delete(stream.name.toLowerCase());
    this.defaultStreamIds.delete(id);
    if (this.subscribers.get(id)?.size === 0) this.subscribers.delete(id);
  }

  streamByName(name: string): StreamRecord | undefined {
    return this.streamsByName.get(name.toLowerCase());
  }

  subscription(userId: number, streamId: number): SubscriptionRecord | undefined {
    return this.subsByUser.get(userId)?.get(streamId);
  }

  setSubscription(sub: SubscriptionRecord): void {
    let mine = this.subsByUser.get(sub.userId);
    if (!mine) this.subsByUser.set(sub.userId, (mine = new Map()));
    mine.set(sub.streamId, sub);
    let set = this.subscribers.get(sub.streamId);
    if (!set) this.subscribers.set(sub.streamId, (set = new Set()));
    set.add(sub.userId);
  }

  removeSubscription(userId: number, streamId: number): void {
    this.subsByUser.get(userId)?.delete(streamId);
    this.subscribers.get(streamId)?.delete(userId);
  }

  /**
   * Subscriptions the user has left, with their settings: /register lists them as
   * `unsubscribed`, and subscribing again restores them, as the reference keeps its
   * Subscription row, inactive.
   */
  readonly formerSubs = new Map<number, Map<number, SubscriptionRecord>>();

  formerSubscription(userId: number, streamId: number): SubscriptionRecord | undefined {
    return this.formerSubs.get(userId)?.get(streamId);
  }

  setFormerSubscription(sub: SubscriptionRecord | undefined, userId: number, streamId: number): void {
    let mine = this.formerSubs.get(userId);
    if (!mine) this.formerSubs.set(userId, (mine = new Map()));
    if (sub) mine.set(streamId, sub);
    else mine.delete(streamId);
  }

  subscriptionsOf(userId: number): Map<number, SubscriptionRecord> {
    return this.subsByUser.get(userId) ?? new Map();
  }

  subscriberIds(streamId: number): Set<number> {
    return this.subscribers.get(streamId) ?? new Set();
  }

  setGroup(group: GroupRecord): void {
    this.groups.set(group.id, group);
    if (group.isSystemGroup) this.systemGroups.set(group.name, group.id);
  }

  /** Forgets a group (a failed commit's new group: Shard.repair); groups are otherwise deactivated, never deleted. */
  removeGroup(id: number): void {
    const group = this.groups.get(id);
    if (!group) return;
    this.groups.delete(id);
    if (group.isSystemGroup && this.systemGroups.get(group.name) === id) this.systemGroups.delete(group.name);
  }

  systemGroupId(name: string): number {
    const id = this.systemGroups.get(name);
    if (id === undefined) throw new Error(`realm ${this.id} has no system group ${name}`);
    return id;
  }
}
