import { badRequest } from '../../lib/errors.js';
import { me, operation } from '../../api-kit/operation.js';
import { clientName } from '../messages/send.js';
import { checkFuture, doDeleteScheduled, doEditScheduled, doScheduleMessage, pendingScheduled, scheduledView, type ScheduledEdit } from './actions.js';
// Registers the delivery job's kind (shard/jobs.ts) in every shard thread that loads the api.
import './delivery.js';

/** GET, POST /scheduled_messages; PATCH, DELETE /scheduled_messages/{scheduled_message_id}. */

type Kind = 'direct' | 'private' | 'stream' | 'channel';
const TYPES: Kind[] = ['direct', 'private', 'stream', 'channel'];
const storedType = (type: Kind) => (type === 'stream' || type === 'channel' ? 'stream' : 'private');

// anyOf, integer first (lib/params.ts); the values are read by target.ts, with the reference's errors.
const TO = { anyOf: [{ type: 'integer' }, { type: 'array' }, { type: 'string' }] };

const list = operation({
  auth: 'user',
  handler: (ctx) => ({ scheduled_messages: pendingScheduled(ctx.shard, ctx.realm, me(ctx).id, 'send_later').map(scheduledView) }),
});

interface CreateParams {
  type: Kind;
  to: unknown;
  content: string;
  topic?: string;
  scheduled_delivery_timestamp: number;
  read_by_sender?: boolean;
}

const create = operation<CreateParams>({
  auth: 'user',
  params: {
    properties: {
      type: { enum: TYPES },
      to: TO,
      content: { type: 'string' },
      topic: { type: 'string' },
      scheduled_delivery_timestamp: { type: 'integer' },
      read_by_sender: { type: 'boolean' },
    },
    required: ['type', 'to', 'content', 'scheduled_delivery_timestamp'],
  },
  handler: async (ctx) => {
    const p = ctx.params;
    const id = await doScheduleMessage(ctx.shard, ctx.realm, me(ctx), {
      type: storedType(p.type),
      to: p.to,
      topic: p.topic,
      content: p.content,
      deliverAt: p.scheduled_delivery_timestamp,
      readBySender: p.read_by_sender,
      client: clientName(ctx.userAgent),
    });
    return { scheduled_message_id: id };
  },
});

interface EditParams {
  scheduled_message_id: number;
  type?: Kind;
  to?: unknown;
  content?: string;
  topic?: string;
  scheduled_delivery_timestamp?: number;
}

const edit = operation<EditParams>({
  auth: 'user',
  params: {
    properties: {
      scheduled_message_id: { type: 'integer' },
      type: { enum: TYPES },
      to: TO,
      content: { type: 'string' },
      topic: { type: 'string' },
      scheduled_delivery_timestamp: { type: 'integer' },
    },
    required: ['scheduled_message_id'],
  },
  handler: async (ctx) => {
    const p = ctx.params;
    // The reference's view checks these before it looks the message up.
    if (p.type === undefined && p.to === undefined && p.topic === undefined && p.content === undefined && p.scheduled_delivery_timestamp === undefined) {
      throw badRequest('Nothing to change');
    }
    if (p.type !== undefined && p.to === undefined) throw badRequest('Recipient required when updating type of scheduled message.');
    const type = p.type === undefined ? undefined : storedType(p.type);
    if (type === 'stream' && p.topic === undefined) throw badRequest('Topic required when updating scheduled message type to channel.');
    if (p.scheduled_delivery_timestamp !== undefined) checkFuture(p.scheduled_delivery_timestamp);
    const change: ScheduledEdit = { type, to: p.to, topic: p.topic, content: p.content, deliverAt: p.scheduled_delivery_timestamp, client: clientName(ctx.userAgent) };
    await doEditScheduled(ctx.shard, ctx.realm, me(ctx), p.scheduled_message_id, change);
    return {};
  },
});

const remove = operation<{ scheduled_message_id: number }>({
  auth: 'user',
  params: { properties: { scheduled_message_id: { type: 'integer' } }, required: ['scheduled_message_id'] },
  handler: async (ctx) => {
    await doDeleteScheduled(ctx.shard, ctx.realm, me(ctx), ctx.params.scheduled_message_id, 'send_later');
    return {};
  },
});

export const operations = {
  'scheduledMessages.list': list,
  'scheduledMessages.create': create,
  'scheduledMessages.edit': edit,
  'scheduledMessages.remove': remove,
};
