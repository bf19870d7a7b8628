import { dropFromGroups } from './default-groups.js';
import { liveDefaultStreamIds } from '../../model/default-streams.js';
import type { RealmState } from '../../model/realm-state.js';
import type { GroupSetting, StreamRecord } from '../../model/types.js';
import type { ShardEvent } from '../../shard/events.js';
import { queueEvent, type Outbox } from '../../shard/outbox.js';
import type { Shard } from '../../shard/shard.js';
import { activeSubscriberIds, isGuest, metadataUserIds } from './access.js';
import { groupSettingView, streamPostPolicy, streamView } from './views.js';

/**
 * Channel changes (PATCH /streams/{id}, DELETE /streams/{id}) as do-actions: each replaces the
 * channel's record, writes it, and queues its events on the outbox.
 */

const updateEvent = (stream: StreamRecord, property: string, value: unknown, extra: Record<string, unknown> = {}): ShardEvent => ({
  type: 'stream',
  op: 'update',
  stream_id: stream.id,
  name: stream.name,
  property,
  value,
  ...extra,
});

/**
 * Replaces the channel's record with `next` and tells everyone who can see it: `events(next)` to
 * those who could see it before and still can. A change of who can see the channel (privacy,
 * web-public, the settings that grant metadata access) also reaches those it concerns, as the
 * reference does for permission group settings: users who gain access get stream create and
 * the subscriber list (peer_add), users who lose it get stream delete.
 */
function replaceStream(shard: Shard, realm: RealmState, out: Outbox, stream: StreamRecord, next: StreamRecord, events: (s: StreamRecord) => ShardEvent[]): StreamRecord {
  const before = new Set(metadataUserIds(realm, stream));
  realm.setStream(next, next.name !== stream.name ? stream.name : undefined);
  out.batch.put(shard.store.streams, [realm.id, next.id], next);
  const after = metadataUserIds(realm, next);
  const afterSet = new Set(after);
  const stayed = after.filter((id) => before.has(id));
  const gained = after.filter((id) => !before.has(id));
  const lost = [...before].filter((id) => !afterSet.has(id));
  for (const event of events(next)) queueEvent(out, event, stayed);
  queueSightChange(realm, out, next, gained, lost);
  return next;
}

/**
 * Tells users who gained sight of a channel (stream create, and its subscribers as peer_add)
 * and those who lost it (stream delete). A channel change or a user's role change causes it.
 */
export function queueSightChange(realm: RealmState, out: Outbox, stream: StreamRecord, gained: number[], lost: number[]): void {
  if (gained.length > 0) {
    queueEvent(out, { type: 'stream', op: 'create', streams: [streamView(realm, stream)] }, gained);
    const subscribers = activeSubscriberIds(realm, stream.id);
    if (subscribers.length > 0) queueEvent(out, { type: 'subscription', op: 'peer_add', stream_ids: [stream.id], user_ids: subscribers }, gained);
  }
  if (lost.length > 0) queueEvent(out, { type: 'stream', op: 'delete', streams: [{ stream_id: stream.id }], stream_ids: [stream.id] }, lost);
}

export interface PermissionChange {
  inviteOnly: boolean;
  historyPublicToSubscribers: boolean;
  isWebPublic: boolean;
}

/** Privacy: one invite_only event carrying the history and web-public flags, as the reference sends it. */
export function changeStreamPermission(shard: Shard, realm: RealmState, out: Outbox, stream: StreamRecord, change: PermissionChange): StreamRecord {
  const next = { ...stream, ...change };
  return replaceStream(shard, realm, out, stream, next, (s) => [
    updateEvent(s, 'invite_only', s.inviteOnly, { history_public_to_subscribers: s.historyPublicToSubscribers, is_web_public: s.isWebPublic }),
  ]);
}

export function renameStream(shard: Shard, realm: RealmState, out: Outbox, stream: StreamRecord, name: string): StreamRecord {
  // Keyed by id; `name` is the old name, as the reference sends it.
  return replaceStream(shard, realm, out, stream, { ...stream, name }, (s) => [{ ...updateEvent(s, 'name', name), name: stream.name }]);
}

export function changeStreamDescription(shard: Shard, realm: RealmState, out: Outbox, stream: StreamRecord, description: string, renderedDescription: string): StreamRecord {
  const next = { ...stream, description, renderedDescription };
  return replaceStream(shard, realm, out, stream, next, (s) => [updateEvent(s, 'description', description, { rendered_description: renderedDescription })]);
}

/** The channel's folder (feature level 389); null takes it out of its folder. */
export function changeStreamFolder(shard: Shard, realm: RealmState, out: Outbox, stream: StreamRecord, folderId: number | null): StreamRecord {
  if ((stream.folderId ?? null) === folderId) return stream;
  return replaceStream(shard, realm, out, stream, { ...stream, folderId }, (s) => [updateEvent(s, 'folder_id', folderId)]);
}

export function changeStreamRetention(shard: Shard, realm: RealmState, out: Outbox, stream: StreamRecord, days: number | null): StreamRecord {
  return replaceStream(shard, realm, out, stream, { ...stream, messageRetentionDays: days }, (s) => [updateEvent(s, 'message_retention_days', days)]);
}

/**
 * A channel permission group setting. can_send_message_group also changes the legacy
 * stream_post_policy, which gets its own event when it changes.
 */
export function changeStreamGroupSetting(shard: Shard, realm: RealmState, out: Outbox, stream: StreamRecord, setting: string, value: GroupSetting): StreamRecord {
  const next = { ...stream, groups: { ...stream.groups, [setting]: value } };
  const oldPolicy = streamPostPolicy(realm, stream);
  return replaceStream(shard, realm, out, stream, next, (s) => {
    const events = [updateEvent(s, setting, groupSettingView(realm, value))];
    const policy = streamPostPolicy(realm, s);
    if (setting === 'can_send_message_group' && policy !== oldPolicy) events.push(updateEvent(s, 'stream_post_policy', policy));
    return events;
  });
}

/** The realm's default channels changed: every non-guest hears the new list (guests see none). */
function queueDefaultStreams(realm: RealmState, out: Outbox): void {
  const ids = liveDefaultStreamIds(realm);
  const audience = [...realm.activeUsers()].filter((u) => !isGuest(u)).map((u) => u.id);
  queueEvent(out, { type: 'default_streams', default_streams: ids }, audience);
}

export function setDefaultStream(shard: Shard, realm: RealmState, out: Outbox, stream: StreamRecord, isDefault: boolean): StreamRecord {
  if (stream.isDefault === isDefault) return stream;
  const next = { ...stream, isDefault };
  realm.setStream(next);
  out.batch.put(shard.store.streams, [realm.id, next.id], next);
  queueDefaultStreams(realm, out);
  return next;
}

/**
 * Archives a channel, as the reference 10.x does: subscribers keep their subscriptions, the
 * channel stops being a default channel, and everyone who could see it is told. Clients that
 * declared archived_channels get stream update is_archived; the others get stream delete
 * (`for_archiving` tells the queues apart, see events/shape.ts, and is not sent).
 */
export function archiveStream(shard: Shard, realm: RealmState, out: Outbox, stream: StreamRecord): StreamRecord {
  const audience = metadataUserIds(realm, stream);
  const wasDefault = stream.isDefault;
  const next = { ...stream, isArchived: true, isDefault: false };
  realm.setStream(next);
  out.batch.put(shard.store.streams, [realm.id, next.id], next);
  if (wasDefault) queueDefaultStreams(realm, out);
  dropFromGroups(shard, realm, out, next);
  queueEvent(out, updateEvent(next, 'is_archived', true), audience);
  queueEvent(out, { type: 'stream', op: 'delete', streams: [{ stream_id: next.id }], stream_ids: [next.id], for_archiving: true }, audience);
  return next;
}
