import { badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { StreamRecord, UserRecord } from '../../model/types.js';
import { me, operation } from '../../api-kit/operation.js';
import { hasContentAccess } from '../streams/access.js';
import { checkFlagUpdate, doMarkAllAsRead, doMarkChannelAsRead, doUpdateChannelFlags, doUpdateFlags, hasOwnMessageInTopic, type FlagUpdate } from './flags-actions.js';
import { applyWith, narrowParam, parseNarrow } from './narrow.js';
import { checkIncludeAnchor, fetchRange, fetchRangeIds, parseAnchor } from './narrow-fetch.js';
import { planNarrow } from './narrow-plan.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../model/message.js';

/** The reference bounds one flag update to this many messages (num_before + num_after). */
export const MAX_MESSAGES_PER_UPDATE = 5000;

/** POST /messages/flags */
const updateFlags = operation<{ messages: number[]; op: string; flag: string }>({
  auth: 'user',
  params: {
    properties: {
      messages: { type: 'array', items: { type: 'integer' } },
      op: { type: 'string' },
      flag: { type: 'string' },
    },
    required: ['messages', 'op', 'flag'],
  },
  handler: async (ctx) => {
    const { flag, adding } = checkFlagUpdate(ctx.params.flag, ctx.params.op);
    const result = await doUpdateFlags(ctx.shard, ctx.realm, me(ctx), ctx.params.messages, flag, adding);
    // The reference answers with the ids it was given, kept for compatibility.
    const body: Record<string, unknown> = { messages: ctx.params.messages };
    if (flag === 'read' && !adding) body.ignored_because_not_subscribed_channels = result.ignoredChannels;
    return body;
  },
});

interface NarrowFlagParams {
  anchor: string;
  include_anchor: boolean;
  num_before: number;
  num_after: number;
  narrow: unknown;
  op: string;
  flag: string;
}

/** POST /messages/flags/narrow: a flag update over a range of a narrow, as GET /messages selects it. */
const updateFlagsForNarrow = operation<NarrowFlagParams>({
  auth: 'user',
  params: {
    properties: {
      anchor: { type: 'string' },
      include_anchor: { type: 'boolean', default: true },
      num_before: { type: 'integer', minimum: 0 },
      num_after: { type: 'integer', minimum: 0 },
      narrow: narrowParam,
      op: { type: 'string' },
      flag: { type: 'string' },
    },
    required: ['anchor', 'num_before', 'num_after', 'narrow', 'op', 'flag'],
  },
  handler: async (ctx) => {
    const user = me(ctx);
    const { shard, realm, params: p } = ctx;
    const anchor = parseAnchor(p.anchor, false);
    checkIncludeAnchor({ includeAnchor: p.include_anchor, numBefore: p.num_before, numAfter: p.num_after });
    // Clamped so that num_before + num_after <= MAX_MESSAGES_PER_UPDATE, as the reference does.
    const numBefore = Math.min(p.num_before, Math.max(MAX_MESSAGES_PER_UPDATE - p.num_after, MAX_MESSAGES_PER_UPDATE / 2));
    const numAfter = Math.min(p.num_after, MAX_MESSAGES_PER_UPDATE - numBefore);
    const terms = applyWith(shard, realm, user, parseNarrow(p.narrow));
    const plan = planNarrow(shard, realm, user, terms);
    const range = { anchor, includeAnchor: p.include_anchor, numBefore, numAfter };
    const { flag, adding } = checkFlagUpdate(p.flag, p.op);
    // A channel (or topic) the user may read: its index's ids, no message read to check them.
    let got: { ids: number[]; foundOldest: boolean; foundNewest: boolean };
    let result: FlagUpdate;
    if (plan.exact) {
      got = await fetchRangeIds(shard, realm, user, terms, plan, range);
      result = await doUpdateChannelFlags(shard, realm, user, plan.exact, got.ids, flag, adding);
    } else {
      const fetched = await fetchRange(shard, realm, user, terms, plan, range);
      got = { ...fetched, ids: fetched.messages.map((m) => m.id) };
      result = await doUpdateFlags(shard, realm, user, fetched.messages, flag, adding);
    }
    const { ids } = got;
    const body: Record<string, unknown> = {
      processed_count: ids.length,
      updated_count: result.changed.length,
      first_processed_id: ids.length > 0 ? ids[0] : null,
      last_processed_id: ids.length > 0 ? ids[ids.length - 1] : null,
      found_oldest: got.foundOldest,
      found_newest: got.foundNewest,
    };
    if (flag === 'read' && !adding) body.ignored_because_not_subscribed_channels = result.ignoredChannels;
    return body;
  },
});

/** POST /mark_all_as_read (deprecated, still used). */
const markAllAsRead = operation({
  auth: 'user',
  handler: async (ctx) => {
    await doMarkAllAsRead(ctx.shard, ctx.realm, me(ctx));
    return { complete: true };
  },
});

/** A channel whose messages the user may read, else the reference's "Invalid channel ID". */
function accessibleChannel(realm: RealmState, user: UserRecord, streamId: number): StreamRecord {
  const stream = realm.streams.get(streamId);
  if (!stream || !hasContentAccess(realm, user, stream)) throw badRequest('Invalid channel ID');
  return stream;
}

/** POST /mark_stream_as_read (deprecated). */
const markStreamAsRead = operation<{ stream_id: number }>({
  auth: 'user',
  params: { properties: { stream_id: { type: 'integer' } }, required: ['stream_id'] },
  handler: async (ctx) => {
    const user = me(ctx);
    const stream = accessibleChannel(ctx.realm, user, ctx.params.stream_id);
    await doMarkChannelAsRead(ctx.shard, ctx.realm, user, stream, null);
    return {};
  },
});

/** POST /mark_topic_as_read (deprecated). */
const markTopicAsRead = operation<{ stream_id: number; topic_name: string }>({
  auth: 'user',
  params: { properties: { stream_id: { type: 'integer' }, topic_name: { type: 'string' } }, required: ['stream_id', 'topic_name'] },
  handler: async (ctx) => {
    const user = me(ctx);
    const { shard, realm } = ctx;
    const stream = accessibleChannel(realm, user, ctx.params.stream_id);
    const given = ctx.params.topic_name;
    const topic = given === EMPTY_TOPIC_DISPLAY_NAME ? '' : given;
    if (given !== '' && !(await hasOwnMessageInTopic(shard, realm, user, stream, topic))) throw badRequest(`No such topic '${topic}'`);
    await doMarkChannelAsRead(shard, realm, user, stream, topic);
    return {};
  },
});

export const operations = {
  'messages.updateFlags': updateFlags,
  'messages.updateFlagsForNarrow': updateFlagsForNarrow,
  'messages.markAllAsRead': markAllAsRead,
  'messages.markStreamAsRead': markStreamAsRead,
  'messages.markTopicAsRead': markTopicAsRead,
};
