import { putAvatarImages, type AvatarSize } from '../../store/avatars.js';
import { putJob } from '../../store/jobs.js';
import type { StoreView, WriteBatch } from '../../store/shard-store.js';
import { insertAttachment, type AttachmentRecord } from '../../store/uploads.js';
import { topicKey } from '../../model/message.js';
import type { RealmState, SubInterval } from '../../model/realm-state.js';
import type { GroupRecord, RealmRecord, StreamRecord, UserRecord } from '../../model/types.js';
import { JOB_KIND, jobKey } from '../../api/scheduled-messages/actions.js';
import { createHash } from 'node:crypto';
import type { PeopleData } from './people.js';
import type { Subscriptions } from './org.js';

/**
 * The import's last transaction: everything a shard loads into memory at start (the realm and
 * its people, channels, subscriptions, groups, read marks and subscription history, topic
 * policies, mutes, statuses, alert words, profile fields, custom emoji, folders), with the
 * smaller tables and the images. Until it commits, the rows written before it belong to no
 * realm the shard knows: the organization does not exist, and no half of it is ever served.
 */
export interface Organization {
  realm: RealmRecord;
  groups: GroupRecord[];
  users: UserRecord[];
  streams: StreamRecord[];
  subs: Subscriptions;
  people: PeopleData;
  readMarks: Map<number, number>;
  intervals: Map<number, Map<number, SubInterval[]>>;
  attachments: AttachmentRecord[];
  avatars: Map<number, Record<AvatarSize, Uint8Array>>;
  emojiImages: Map<number, { bytes: Uint8Array; still?: Uint8Array }>;
  realmImages: Map<string, Uint8Array>;
}

/** A botStorage key as api/bots/storage.ts keys it (long keys by digest). */
function storageKeyId(key: string): string {
  return Buffer.byteLength(key) > 400 ? `#sha256:${createHash('sha256').update(key).digest('hex')}` : key;
}

export function writeOrganization(shard: StoreView, batch: WriteBatch, org: Organization): void {
  const { store } = shard;
  const r = org.realm.id;
  batch.put(store.realms, r, org.realm);
  for (const g of org.groups) batch.put(store.groups, [r, g.id], g);
  for (const u of org.users) {
    batch.put(store.users, [r, u.id], u);
    const images = org.avatars.get(u.id);
    if (images && u.avatarKey) putAvatarImages(shard, batch, r, u.avatarKey, images);
  }
  for (const s of org.streams) batch.put(store.streams, [r, s.id], s);
  for (const sub of org.subs.active) batch.put(store.subs, [r, sub.userId, sub.streamId], sub);
  for (const sub of org.subs.former) batch.put(store.formerSubs, [r, sub.userId, sub.streamId], sub);
  for (const [userId, mark] of org.readMarks) batch.put(store.readMarks, [r, userId], mark);
  for (const [userId, byStream] of org.intervals) for (const [streamId, list] of byStream) batch.put(store.subHistory, [r, userId, streamId], list);
  const p = org.people;
  for (const t of p.userTopics) batch.put(store.userTopics, [r, t.userId, t.streamId, topicKey(t.topic)], t);
  for (const [userId, mutedId, ts] of p.mutes) batch.put(store.mutedUsers, [r, userId, mutedId], ts);
  for (const [userId, status] of p.statuses) batch.put(store.userStatus, [r, userId], status);
  for (const [userId, words] of p.alertWords) batch.put(store.alertWords, [r, userId], words);
  for (const f of p.profileFields) batch.put(store.profileFields, [r, f.id], f);
  for (const e of p.emoji) {
    batch.put(store.emoji, [r, e.id], e);
    const image = org.emojiImages.get(e.id);
    if (image) {
      batch.put(store.emojiImages, [r, e.fileName], Buffer.from(image.bytes));
      if (image.still && e.stillFileName) batch.put(store.emojiImages, [r, `still/${e.stillFileName}`], Buffer.from(image.still));
    }
  }
  for (const f of p.folders) batch.put(store.channelFolders, [r, f.id], f);
  for (const [userId, s] of p.snippets) batch.put(store.snippets, [r, userId, s.id], s);
  for (const [userId, v] of p.navigationViews) batch.put(store.navigationViews, [r, userId, v.fragment], v);
  for (const [userId, d] of p.drafts) batch.put(store.drafts, [r, userId, d.id], d);
  for (const s of p.scheduled) {
    batch.put(store.scheduled, [r, s.senderId, s.id], s);
    // A message still to be sent gets its delivery job, as scheduling it here would.
    if (s.deliveredMessageId === null && !s.failed) putJob(batch, store, { kind: JOB_KIND, key: jobKey(r, s.id), realmId: r, due: s.deliverAt * 1000, attempts: 0, data: { senderId: s.senderId, id: s.id } });
  }
  for (const [userId, key, value] of p.botStorage) batch.put(store.botStorage, [r, userId, storageKeyId(key)], [key, value]);
  for (const a of org.attachments) insertAttachment(shard, batch, a);
  for (const [image, bytes] of org.realmImages) batch.put(store.avatars, [r, `realm/${image}.png`], Buffer.from(bytes));
}

/** The in-memory model a shard would load for the new realm (RealmState), for adding it without a restart. */
export function realmStateOf(state: RealmState, org: Organization): RealmState {
  for (const g of org.groups) state.setGroup(g);
  for (const u of org.users) state.setUser(u);
  for (const s of org.streams) state.setStream(s);
  for (const sub of org.subs.active) state.setSubscription(sub);
  for (const sub of org.subs.former) state.setFormerSubscription(sub, sub.userId, sub.streamId);
  for (const [userId, mark] of org.readMarks) state.readMarks.set(userId, mark);
  for (const [userId, byStream] of org.intervals) for (const [streamId, list] of byStream) state.setIntervals(userId, streamId, list);
  const p = org.people;
  for (const t of p.userTopics) state.userTopics.set(t);
  for (const f of p.folders) state.channelFolders.set(f.id, f);
  for (const e of p.emoji) state.realmEmoji.set(e.id, e);
  for (const f of p.profileFields) state.people.profileFields.set(f.id, f);
  for (const [userId, status] of p.statuses) state.people.statuses.set(userId, status);
  for (const [userId, mutedId, ts] of p.mutes) state.people.setMute(userId, mutedId, ts);
  for (const [userId, words] of p.alertWords) state.people.setAlertWords(userId, words);
  return state;
}
