import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { MessageIds } from './message-ids.js';
import type { DamageMap } from './damage.js';
import type { Key } from './write-batch.js';

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
 *   uflags      [realmId, userId, msgId]                 -> bits   only flags that differ, but
 *                                                                  for the read flip (below)
 *   uflagIdx    [realmId, userId, flag, msgId]           -> null   'starred', 'mentioned',
 *                                                                  'alerted', 'push'
 *   uflagUsers  [realmId, msgId, userId]                 -> null   who has a uflags row for a
 *                                                                  message (deletes, moves)
 *   flips       [realmId, userId, block]                 -> bitmap the user's read flips among
 *                                                                  ids block*1024 to +1023
 *   flipUsers   [realmId, block, userId]                 -> null   who has a flip in a block
 *                                                                  (store/flips.ts, format 3)
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
 *               | ['batchItem', realmId, userId, msgId]     last digest, a missed-message email
 *                                                          batch's later notices (api/notify/store.ts)
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
  flips: Database;
  flipUsers: Database;
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
    flips: db('flips'),
    flipUsers: db('flipUsers'),
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

// The write path (the uncommitted-writes overlay, batches, the event types a batch carries) is
// store/write-batch.ts; it is re-exported here, where the code above the store imports it from.
export { PendingWrites, WriteBatch, type Emitted, type EventStage, type Key, type ShardEvent, type Touched } from './write-batch.js';

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
  /**
   * A row's uncommitted write, if any (`{value}`, undefined for a delete): the same object until
   * another write replaces it. `k` is JSON.stringify(key), when the caller keeps it.
   */
  pendingWrite(db: Database, key: Key, k?: string): { value: unknown } | undefined;
  /** Tables found damaged (store/damage.ts), whose reads are refused rather than answered from memory. */
  readonly damage?: DamageMap;
}
