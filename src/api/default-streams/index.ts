import { badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { StreamRecord, UserRecord } from '../../model/types.js';
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

export const operations = {
  'defaultStreams.add': add,
  'defaultStreams.remove': remove,
};
