import { badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import { VISIBILITY, VISIBILITY_POLICIES, type VisibilityPolicy } from '../../model/user-topics.js';
import type { StreamRecord, UserRecord } from '../../model/types.js';
import { flush, outbox, queueEvent } from '../../shard/outbox.js';
import { MAX_TOPIC_LENGTH } from '../messages/send.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../model/message.js';
import { me, operation, type OpContext } from '../../api-kit/operation.js';
import { hasContentAccess } from '../streams/access.js';
import { setTopicVisibility } from './actions.js';

/**
 * POST /user_topics and its deprecated predecessor PATCH /users/me/subscriptions/muted_topics.
 * The topic need not have messages. The empty-topic display name reads as the empty topic.
 */

/** A topic as these endpoints take it: at most max_topic_length characters (checked by the schema). */
const topicParam = { type: 'string', maxLength: MAX_TOPIC_LENGTH };

const asTopic = (raw: string) => (raw === EMPTY_TOPIC_DISPLAY_NAME ? '' : raw);

/** The reference's access_stream_by_id: a live channel whose content the user may read. */
function accessStream(realm: RealmState, user: UserRecord, streamId: number): StreamRecord {
  const stream = realm.streams.get(streamId);
  if (!stream || stream.isArchived || !hasContentAccess(realm, user, stream)) throw badRequest('Invalid channel ID');
  return stream;
}

function accessStreamByName(realm: RealmState, user: UserRecord, name: string): StreamRecord {
  const stream = realm.streamByName(name);
  if (!stream || stream.isArchived || !hasContentAccess(realm, user, stream)) throw badRequest(`Invalid channel name '${name}'`);
  return stream;
}

/**
 * Removing a policy needs no access to the channel, only that it exists in the realm: a user who
 * lost access can still clear what they had set (the reference's
 * access_stream_to_remove_visibility_policy_by_id).
 */
function streamToClear(stream: StreamRecord | undefined, error: string): StreamRecord {
  if (!stream) throw badRequest(error);
  return stream;
}

async function apply<P>(ctx: OpContext<P>, stream: StreamRecord, topic: string, policy: VisibilityPolicy): Promise<Record<string, unknown>> {
  const out = outbox(ctx.shard);
  setTopicVisibility(ctx.shard, ctx.realm, { batch: out.batch, emit: (event, ids) => queueEvent(out, event, ids) }, [me(ctx).id], stream, topic, policy);
  await flush(ctx.shard, ctx.realm, out);
  return {};
}

const update = operation<{ stream_id: number; topic: string; visibility_policy: VisibilityPolicy }>({
  auth: 'user',
  params: {
    properties: {
      stream_id: { type: 'integer' },
      topic: topicParam,
      visibility_policy: { type: 'integer', enum: VISIBILITY_POLICIES },
    },
    required: ['stream_id', 'topic', 'visibility_policy'],
  },
  handler: (ctx) => {
    const user = me(ctx);
    const { realm, params: p } = ctx;
    const stream =
      p.visibility_policy === VISIBILITY.inherit
        ? streamToClear(realm.streams.get(p.stream_id), 'Invalid channel ID')
        : accessStream(realm, user, p.stream_id);
    return apply(ctx, stream, asTopic(p.topic), p.visibility_policy);
  },
});

/**
 * The deprecated endpoint: `add` mutes, `remove` clears whatever policy the topic has (as the
 * reference's unmute_topic does). Both succeed when nothing changes (feature level 169).
 */
const muteLegacy = operation<{ stream_id?: number; stream?: string; topic: string; op: 'add' | 'remove' }>({
  auth: 'user',
  params: {
    properties: {
      stream_id: { type: 'integer' },
      stream: { type: 'string' },
      topic: topicParam,
      op: { type: 'string', enum: ['add', 'remove'] },
    },
    required: ['topic', 'op'],
  },
  handler: (ctx) => {
    const user = me(ctx);
    const { realm, params: p } = ctx;
    if ((p.stream_id === undefined) === (p.stream === undefined)) throw badRequest("Please choose one: 'stream' or 'stream_id'.");
    const topic = asTopic(p.topic);
    if (p.op === 'add') {
      const stream = p.stream !== undefined ? accessStreamByName(realm, user, p.stream) : accessStream(realm, user, p.stream_id!);
      return apply(ctx, stream, topic, VISIBILITY.muted);
    }
    const found = p.stream !== undefined ? realm.streamByName(p.stream) : realm.streams.get(p.stream_id!);
    return apply(ctx, streamToClear(found, 'Topic is not muted'), topic, VISIBILITY.inherit);
  },
});

export const operations = {
  'userTopics.update': update,
  'userTopics.muteLegacy': muteLegacy,
};
