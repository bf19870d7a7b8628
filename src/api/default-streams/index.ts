import { badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { StreamRecord, UserRecord } from '../../model/types.js';
import { flush, outbox, type Outbox } from '../../shard/outbox.js';
import type { Shard } from '../../shard/shard.js';
import { me, operation } from '../../api-kit/operation.js';
import { hasContentAccess, hasMetadataAccess } from '../streams/access.js';
import { setDefaultStream } from '../streams/changes.js';
import { checkGroupName, groupById, groupsOf, saveGroups, type DefaultChannelGroup } from '../streams/default-groups.js';

/**
 * POST and DELETE /default_streams: administrators choose the channels new users join. Adding
 * needs access to the channel's content and refuses private channels; removing only needs to
 * see that it exists. The default_streams event (the list of ids) goes to every non-guest when
 * the list changes; /register's realm_default_streams is api/events/register-channels.ts.
 */
const params = { properties: { stream_id: { type: 'integer' } }, required: ['stream_id'] };

/** An operation that makes a channel default or not, once `access` has found it acceptable. */
function setter(isDefault: boolean, access: (realm: RealmState, user: UserRecord, stream: StreamRecord) => void) {
  return operation<{ stream_id: number }>({
    auth: 'user',
    role: 'administrator',
    params,
    handler: async (ctx) => {
      const { shard, realm } = ctx;
      const stream = realm.streams.get(ctx.params.stream_id);
      if (!stream || stream.isArchived) throw badRequest('Invalid channel ID');
      access(realm, me(ctx), stream);
      const out = outbox(shard);
      setDefaultStream(shard, realm, out, stream, isDefault);
      await flush(shard, realm, out);
      return {};
    },
  });
}

const add = setter(true, (realm, user, stream) => {
  if (!hasContentAccess(realm, user, stream)) throw badRequest('Invalid channel ID');
  if (stream.inviteOnly) throw badRequest('Private channels cannot be made default.');
});

const remove = setter(false, (realm, user, stream) => {
  if (!hasMetadataAccess(realm, user, stream)) throw badRequest('Invalid channel ID');
});

/** The reference's access_stream_by_name, for each name of `stream_names`. */
function channelsNamed(realm: RealmState, user: UserRecord, names: string[]): StreamRecord[] {
  return names.map((name) => {
    const stream = realm.streamByName(name);
    if (!stream || stream.isArchived || !hasContentAccess(realm, user, stream)) throw badRequest(`Invalid channel name '${name}'`);
    return stream;
  });
}

/** A default channel may not be in a group: new users join it anyway. */
function checkNotDefault(streams: StreamRecord[], groupName: string): void {
  const taken = streams.find((s) => s.isDefault);
  if (taken) throw badRequest(`'${taken.name}' is a default channel and cannot be added to '${groupName}'`);
}

async function commitGroups(ctx: { shard: Shard; realm: RealmState }, groups: DefaultChannelGroup[], out: Outbox = outbox(ctx.shard)): Promise<Record<string, never>> {
  saveGroups(ctx.shard, ctx.realm, out, groups);
  await flush(ctx.shard, ctx.realm, out);
  return {};
}

/**
 * Default channel groups (groups.ts): POST /default_stream_groups/create, PATCH and DELETE
 * /default_stream_groups/{group_id}, PATCH /default_stream_groups/{group_id}/streams. In the
 * reference's URL table, not in its OpenAPI description; administrators only.
 */
const createGroup = operation<{ group_name: string; description: string; stream_names: string[] }>({
  auth: 'user',
  role: 'administrator',
  params: {
    properties: { group_name: { type: 'string' }, description: { type: 'string' }, stream_names: { type: 'array', items: { type: 'string' } } },
    required: ['group_name', 'description', 'stream_names'],
  },
  handler: async (ctx) => {
    const { group_name: name, description, stream_names: names } = ctx.params;
    const streams = channelsNamed(ctx.realm, me(ctx), names);
    checkNotDefault(streams, name);
    checkGroupName(name);
    if (groupsOf(ctx.realm).some((g) => g.name === name)) throw badRequest(`Default channel group '${name}' already exists`);
    const out = outbox(ctx.shard);
    const group = { id: ctx.shard.allocate(out.batch, 'defaultChannelGroup'), name, description, streamIds: [...new Set(streams.map((s) => s.id))] };
    return commitGroups(ctx, [...groupsOf(ctx.realm), group], out);
  },
});

const updateGroup = operation<{ group_id: number; new_group_name?: string; new_description?: string }>({
  auth: 'user',
  role: 'administrator',
  params: { properties: { group_id: { type: 'integer' }, new_group_name: { type: 'string' }, new_description: { type: 'string' } }, required: ['group_id'] },
  handler: async (ctx) => {
    const { group_id: id, new_group_name: name, new_description: description } = ctx.params;
    if (!name && !description) throw badRequest('You must pass "new_description" or "new_group_name".');
    const group = groupById(ctx.realm, id);
    const next = { ...group };
    if (name !== undefined) {
      if (group.name === name) throw badRequest(`This default channel group is already named '${name}'`);
      if (groupsOf(ctx.realm).some((g) => g.name === name)) throw badRequest(`Default channel group '${name}' already exists`);
      checkGroupName(name);
      next.name = name;
    }
    if (description !== undefined) next.description = description;
    return commitGroups(ctx, groupsOf(ctx.realm).map((g) => (g.id === id ? next : g)));
  },
});

const updateGroupStreams = operation<{ group_id: number; op: string; stream_names: string[] }>({
  auth: 'user',
  role: 'administrator',
  params: { properties: { group_id: { type: 'integer' }, op: { type: 'string' }, stream_names: { type: 'array', items: { type: 'string' } } }, required: ['group_id', 'op', 'stream_names'] },
  handler: async (ctx) => {
    const { group_id: id, op, stream_names: names } = ctx.params;
    const group = groupById(ctx.realm, id);
    const streams = channelsNamed(ctx.realm, me(ctx), names);
    let streamIds: number[];
    if (op === 'add') {
      checkNotDefault(streams, group.name);
      const present = streams.find((s) => group.streamIds.includes(s.id));
      if (present) throw badRequest(`Channel '${present.name}' is already present in default channel group '${group.name}'`);
      streamIds = [...new Set([...group.streamIds, ...streams.map((s) => s.id)])];
    } else if (op === 'remove') {
      const absent = streams.find((s) => !group.streamIds.includes(s.id));
      if (absent) throw badRequest(`Channel '${absent.name}' is not present in default channel group '${group.name}'`);
      const removed = new Set(streams.map((s) => s.id));
      streamIds = group.streamIds.filter((sid) => !removed.has(sid));
    } else {
      throw badRequest('Invalid value for "op". Specify one of "add" or "remove".');
    }
    return commitGroups(ctx, groupsOf(ctx.realm).map((g) => (g.id === id ? { ...g, streamIds } : g)));
  },
});

const removeGroup = operation<{ group_id: number }>({
  auth: 'user',
  role: 'administrator',
  params: { properties: { group_id: { type: 'integer' } }, required: ['group_id'] },
  handler: async (ctx) => {
    groupById(ctx.realm, ctx.params.group_id);
    return commitGroups(ctx, groupsOf(ctx.realm).filter((g) => g.id !== ctx.params.group_id));
  },
});

export const operations = {
  'defaultStreams.add': add,
  'defaultStreams.remove': remove,
  'defaultStreams.createGroup': createGroup,
  'defaultStreams.updateGroup': updateGroup,
  'defaultStreams.updateGroupStreams': updateGroupStreams,
  'defaultStreams.removeGroup': removeGroup,
};
