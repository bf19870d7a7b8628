import { badRequest } from '../../lib/errors.js';
import { flush, outbox } from '../../shard/outbox.js';
import { me, operation } from '../operation.js';
import { hasContentAccess, hasMetadataAccess } from '../streams/access.js';
import { setDefaultStream } from '../streams/changes.js';

/**
 * POST and DELETE /default_streams: administrators choose the channels new users join. Adding
 * needs access to the channel's content and refuses private channels; removing only needs to
 * see that it exists. The default_streams event (the list of ids) goes to every non-guest when
 * the list changes; /register's realm_default_streams is api/events/register-channels.ts.
 */
const params = { properties: { stream_id: { type: 'integer' } }, required: ['stream_id'] };

const add = operation<{ stream_id: number }>({
  auth: 'user',
  role: 'administrator',
  params,
  handler: async (ctx) => {
    const { shard, realm } = ctx;
    const stream = realm.streams.get(ctx.params.stream_id);
    if (!stream || stream.isArchived || !hasContentAccess(realm, me(ctx), stream)) throw badRequest('Invalid channel ID');
    if (stream.inviteOnly) throw badRequest('Private channels cannot be made default.');
    const out = outbox(shard);
    setDefaultStream(shard, realm, out, stream, true);
    await flush(shard, realm, out);
    return {};
  },
});

const remove = operation<{ stream_id: number }>({
  auth: 'user',
  role: 'administrator',
  params,
  handler: async (ctx) => {
    const { shard, realm } = ctx;
    const stream = realm.streams.get(ctx.params.stream_id);
    if (!stream || stream.isArchived || !hasMetadataAccess(realm, me(ctx), stream)) throw badRequest('Invalid channel ID');
    const out = outbox(shard);
    setDefaultStream(shard, realm, out, stream, false);
    await flush(shard, realm, out);
    return {};
  },
});

export const operations = {
  'defaultStreams.add': add,
  'defaultStreams.remove': remove,
};
