import { badRequest } from '../../lib/errors.js';
import { RawFields, RawJson } from '../../lib/raw-json.js';
import { me, operation, type OpContext } from '../../api-kit/operation.js';
import { queuesOf } from './manager.js';
import { registerSchema, type RegisterParams } from './register-params.js';
import { initialState } from './register-state.js';
import type { QueueOptions } from './queue.js';

/** The longest a client may ask its queue to live: 7 days, as the reference allows. */
const MAX_LIFESPAN_SECS = 7 * 86400;

const CAPABILITIES = [
  'notification_settings_null', 'bulk_message_deletion', 'user_avatar_url_field_optional', 'stream_typing_notifications',
  'user_settings_object', 'empty_topic_name', 'archived_channels', 'include_deactivated_groups', 'linkifier_url_template',
  'user_list_incomplete',
];

/** Narrow terms as [operator, operand] pairs or {operator, operand, negated} objects. */
function parseNarrow(raw: unknown[]): QueueOptions['narrow'] {
  return raw.map((term) => {
    if (Array.isArray(term) && term.length === 2 && typeof term[0] === 'string') return { operator: term[0], operand: term[1], negated: false };
    if (term && typeof term === 'object' && typeof (term as { operator?: unknown }).operator === 'string') {
      const t = term as { operator: string; operand: unknown; negated?: boolean };
      return { operator: t.operator, operand: t.operand, negated: t.negated === true };
    }
    throw badRequest('Invalid narrow');
  });
}

function queueOptions(ctx: OpContext<RegisterParams>): QueueOptions {
  const p = ctx.params;
  const capabilities: Record<string, boolean> = {};
  for (const name of CAPABILITIES) capabilities[name] = p.client_capabilities[name] === true;
  const lifespan = p.queue_lifespan_secs ? Math.min(Math.max(p.queue_lifespan_secs, ctx.shard.config.queueLifespanSeconds), MAX_LIFESPAN_SECS) : ctx.shard.config.queueLifespanSeconds;
  return {
    realmId: ctx.realm.id,
    userId: me(ctx).id,
    eventTypes: p.event_types ? new Set(p.event_types) : null,
    narrow: parseNarrow(p.narrow),
    allPublicStreams: p.all_public_streams,
    applyMarkdown: p.apply_markdown,
    clientGravatar: p.client_gravatar,
    capabilities,
    lifespanSecs: lifespan,
  };
}

/**
 * POST /register. An action changes memory at once, but parts of the snapshot (unread messages,
 * max_message_id) are read from LMDB, which holds its change only once it has committed; so first
 * wait until no transaction is in flight (holding new requests back meanwhile), then create the
 * queue and take the snapshot in one synchronous step. An event is then in exactly one of the two: an action that ran before is in
 * the snapshot, one that runs after is in the queue. The queue's row is durable before the
 * answer, so the queue_id outlives a crash.
 */
const register = operation<RegisterParams>({
  auth: 'user',
  params: registerSchema,
  passesGate: true,
  handler: async (ctx) => {
    const opts = queueOptions(ctx);
    const { queue, saved, state } = await ctx.shard.quiesced(() => {
      const created = queuesOf(ctx.shard).register(opts);
      return { ...created, state: initialState(ctx, created.queue) };
    });
    // Serialised while the queue's row commits, rather than after: only the body's one join is
    // left for then.
    const fields = RawFields.fields(state);
    await saved;
    return { queue_id: queue.id, last_event_id: -1, state: fields };
  },
});

/** GET /events */
const getEvents = operation<{ queue_id: string; last_event_id?: number; dont_block: boolean }>({
  auth: 'user',
  params: {
    properties: {
      queue_id: { type: 'string' },
      last_event_id: { type: 'integer' },
      dont_block: { type: 'boolean', default: false },
    },
    required: ['queue_id'],
  },
  handler: async (ctx) => {
    const manager = queuesOf(ctx.shard);
    const queue = manager.get(ctx.params.queue_id, ctx.realm, me(ctx));
    const { json, grant } = await manager.poll(queue, ctx.params.last_event_id, ctx.params.dont_block, ctx.requestId, ctx.longPoll);
    return { events: RawJson.of(json), queue_id: queue.id, ...(grant ? { __desk: grant } : {}) };
  },
});

/** DELETE /events */
const deleteQueue = operation<{ queue_id: string }>({
  auth: 'user',
  params: { properties: { queue_id: { type: 'string' } }, required: ['queue_id'] },
  handler: async (ctx) => {
    const manager = queuesOf(ctx.shard);
    await manager.delete(manager.get(ctx.params.queue_id, ctx.realm, me(ctx)));
    return {};
  },
});

export const operations = {
  'events.register': register,
  'events.get': getEvents,
  'events.delete': deleteQueue,
};
