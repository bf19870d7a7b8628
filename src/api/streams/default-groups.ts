import { badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import { ROLE, type RealmRecord, type StreamRecord, type UserRecord } from '../../model/types.js';
import { queueEvent, type Outbox } from '../../shard/outbox.js';
import type { Shard } from '../../shard/shard.js';

/**
 * Default channel groups, after the reference's DefaultStreamGroup (zerver/actions/
 * default_streams.py): named sets of channels an administrator offers together. Stored on the
 * realm record, like playgrounds, so a change writes it whole; every change sends the whole list
 * (default_stream_groups) to the organization's members, as the reference does, and guests, who
 * are not sent it, get none in /register either.
 */
export type DefaultChannelGroup = NonNullable<RealmRecord['defaultChannelGroups']>[number];

/** DefaultStreamGroup.MAX_NAME_LENGTH. */
export const MAX_GROUP_NAME_LENGTH = 60;

export const groupsOf = (realm: RealmState): DefaultChannelGroup[] => realm.realm.defaultChannelGroups ?? [];

const byName = (realm: RealmState) => (a: number, b: number) => (realm.streams.get(a)?.name ?? '').localeCompare(realm.streams.get(b)?.name ?? '');

/** The reference's default_stream_groups_to_dicts_sorted: by group name, channels by name. */
export function groupsView(realm: RealmState, user: UserRecord): unknown[] {
  if (user.role === ROLE.guest) return [];
  return [...groupsOf(realm)]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((g) => ({ name: g.name, id: g.id, description: g.description, streams: [...g.streamIds].sort(byName(realm)) }));
}

export function checkGroupName(name: string): void {
  if (name.trim() === '') throw badRequest(`Invalid default channel group name '${name}'`);
  if ([...name].length > MAX_GROUP_NAME_LENGTH) throw badRequest(`Default channel group name too long (limit: ${MAX_GROUP_NAME_LENGTH} characters)`);
  if (name.includes('\0')) throw badRequest(`Default channel group name '${name}' contains NULL (0x00) characters.`);
}

export function groupById(realm: RealmState, id: number): DefaultChannelGroup {
  const group = groupsOf(realm).find((g) => g.id === id);
  if (!group) throw badRequest(`Default channel group with id '${id}' not found`);
  return group;
}

/** Replaces the realm's groups and queues the event on `out`. */
export function saveGroups(shard: Shard, realm: RealmState, out: Outbox, groups: DefaultChannelGroup[]): void {
  realm.realm = { ...realm.realm, defaultChannelGroups: groups };
  out.batch.put(shard.store.realms, realm.id, realm.realm);
  const members = [...realm.activeUsers()].filter((u) => u.role !== ROLE.guest);
  if (members.length > 0) queueEvent(out, { type: 'default_stream_groups', default_stream_groups: groupsView(realm, members[0]) }, members.map((u) => u.id));
}

/** An archived channel leaves every group, as the reference's do_deactivate_stream takes it out. */
export function dropFromGroups(shard: Shard, realm: RealmState, out: Outbox, stream: StreamRecord): void {
  const groups = groupsOf(realm);
  if (!groups.some((g) => g.streamIds.includes(stream.id))) return;
  saveGroups(shard, realm, out, groups.map((g) => ({ ...g, streamIds: g.streamIds.filter((id) => id !== stream.id) })));
}
