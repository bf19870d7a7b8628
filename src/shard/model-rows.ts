import type { Database } from 'lmdb';
import type { ChannelFolderRecord } from '../model/channel-folders.js';
import { normalizeSystemGroupSettings } from '../model/groups.js';
import { RealmState, type SubInterval } from '../model/realm-state.js';
import { NOTIFICATION_BOT_EMAIL, type GroupRecord, type ProfileFieldRecord, type RealmEmojiRecord, type RealmRecord, type StreamRecord, type SubscriptionRecord, type UserRecord, type UserStatusRecord } from '../model/types.js';
import type { UserTopicRecord } from '../model/user-topics.js';
import { firstMessageIn } from '../store/messages.js';
import type { Key, ShardTable, StoreView, Touched } from '../store/shard-store.js';

/**
 * How the organization model (model/realm-state.ts) is read from a shard's store: one rule per
 * table, which puts one row into memory, or takes it out when the row is absent. The same
 * rules serve the start (every row of every table, Shard.load) and the repair after a failed
 * commit (only the rows that commit would have written, read again: Shard.repair), so memory
 * goes back to what the store holds at a cost of the failed write's size, not the realm's.
 */
interface Rule {
  table: ShardTable;
  apply(realm: RealmState, key: number[], value: unknown, view: StoreView): void;
  /** Run once per realm after its rows of this table (derived state). */
  done?(realm: RealmState): void;
}

const at = (key: number[], i: number) => key[i];

/** In load order: a subscription needs its user (system bots subscribe to nothing). */
const RULES: Rule[] = [
  {
    table: 'users',
    apply(realm, key, value) {
      const user = value as UserRecord | undefined;
      if (!user) return realm.removeUser(at(key, 1));
      // Stores from before system bots: the Notification Bot was an ordinary bot user.
      if (user.isSystemBot === undefined && user.isBot && user.botOwnerId === null && user.email === NOTIFICATION_BOT_EMAIL) user.isSystemBot = true;
      realm.setUser(user, realm.users.get(user.id)?.email);
    },
  },
  {
    table: 'streams',
    apply(realm, key, value, view) {
      const stream = value as StreamRecord | undefined;
      if (!stream) return realm.removeStream(at(key, 1));
      if (stream.firstMessageId === undefined) stream.firstMessageId = firstMessageIn(view, stream.realmId, stream.id);
      realm.setStream(stream, realm.streams.get(stream.id)?.name);
    },
  },
  {
    table: 'subs',
    apply(realm, key, value) {
      const sub = value as SubscriptionRecord | undefined;
      // ...which joined the default channels; a system bot subscribes to nothing.
      if (sub && !realm.users.get(sub.userId)?.isSystemBot) realm.setSubscription(sub);
      else realm.removeSubscription(at(key, 1), at(key, 2));
    },
  },
  { table: 'formerSubs', apply: (realm, key, value) => realm.setFormerSubscription(value as SubscriptionRecord | undefined, at(key, 1), at(key, 2)) },
  {
    table: 'groups',
    apply: (realm, key, value) => (value ? realm.setGroup(value as GroupRecord) : realm.removeGroup(at(key, 1))),
    done: normalizeSystemGroupSettings,
  },
  { table: 'readMarks', apply: (realm, key, value) => setOrDelete(realm.readMarks, at(key, 1), value as number | undefined) },
  {
    table: 'userTopics',
    apply(realm, key, value) {
      const [, userId, streamId] = key;
      const topic = String(key[3]);
      const held = realm.userTopics.get(userId, streamId, topic);
      if (held) realm.userTopics.remove(userId, streamId, held.topic);
      if (value) realm.userTopics.set(value as UserTopicRecord);
    },
  },
  { table: 'channelFolders', apply: (realm, key, value) => setOrDelete(realm.channelFolders, at(key, 1), value as ChannelFolderRecord | undefined) },
  {
    table: 'subHistory',
    apply(realm, key, value) {
      if (value) realm.setIntervals(at(key, 1), at(key, 2), value as SubInterval[]);
      else realm.subHistory.get(at(key, 1))?.delete(at(key, 2));
    },
  },
  { table: 'emoji', apply: (realm, key, value) => setOrDelete(realm.realmEmoji, at(key, 1), value as RealmEmojiRecord | undefined) },
  // Custom profile fields, statuses, mutes and alert words (model/people.ts).
  { table: 'profileFields', apply: (realm, key, value) => setOrDelete(realm.people.profileFields, at(key, 1), value as ProfileFieldRecord | undefined) },
  { table: 'userStatus', apply: (realm, key, value) => setOrDelete(realm.people.statuses, at(key, 1), value as UserStatusRecord | undefined) },
  { table: 'mutedUsers', apply: (realm, key, value) => realm.people.setMute(at(key, 1), at(key, 2), (value as number | undefined) ?? null) },
  { table: 'alertWords', apply: (realm, key, value) => realm.people.setAlertWords(at(key, 1), (value as string[] | undefined) ?? []) },
];

function setOrDelete<V>(map: Map<number, V>, id: number, value: V | undefined): void {
  if (value === undefined) map.delete(id);
  else map.set(id, value);
}

/**
 * Every realm's organization model as the store has it (at start); or only realm `only`'s (one
 * that arrived by a cluster move).
 */
export function readModel(view: StoreView, shardIndex: number, only?: number): Map<number, RealmState> {
  const { store } = view;
  const realms = new Map<number, RealmState>();
  // Realm-scoped keys lead with the realm id: one realm is one range of every table.
  const range = only === undefined ? {} : { start: [only], end: [only + 1] };
  const records = only === undefined ? Array.from(store.realms.getRange({}), (e) => e.value) : [store.realms.get(only)].filter((v) => v !== undefined);
  for (const value of records) {
    const realm = new RealmState(value as RealmRecord);
    realms.set(realm.id, realm);
  }
  for (const rule of RULES) {
    for (const { key, value } of store[rule.table].getRange(range)) {
      const realm = realms.get((key as number[])[0]);
      if (!realm) throw new Error(`shard ${shardIndex}: record for unknown realm ${(key as number[])[0]}`);
      rule.apply(realm, key as number[], value, view);
    }
    if (rule.done) for (const realm of realms.values()) rule.done(realm);
  }
  return realms;
}

/**
 * Puts the rows a failed commit would have written back to what the store holds, in memory:
 * runs with no transaction in flight (Shard.quiesced), so the store is exactly what was
 * acknowledged. `realms` is the shard's live map (handlers in flight hold their RealmState,
 * which stays the same object); `addRealm` takes a realm the store has and memory lacks.
 * Returns how many rows were read.
 */
export function repairModel(view: StoreView, realms: Map<number, RealmState>, touched: Touched, addRealm: (realm: RealmState) => void): number {
  const { store } = view;
  const keysOf = (db: Database): Key[] => touched.flatMap(([table, keys]) => (table === db ? keys : []));
  let rows = 0;
  for (const key of keysOf(store.realms)) {
    rows++;
    const record = store.realms.get(key) as RealmRecord | undefined;
    const held = realms.get(key as number);
    if (!record) realms.delete(key as number);
    else if (held) held.realm = record;
    else addRealm(new RealmState(record));
  }
  for (const rule of RULES) {
    const changed = new Set<RealmState>();
    for (const key of keysOf(store[rule.table])) {
      rows++;
      const realm = realms.get((key as number[])[0]);
      if (!realm) continue;
      rule.apply(realm, key as number[], store[rule.table].get(key), view);
      changed.add(realm);
    }
    if (rule.done) for (const realm of changed) rule.done(realm);
  }
  return rows;
}
