import { badRequest } from '../../lib/errors.js';
import { me, operation } from '../../api-kit/operation.js';
import { accessibleMessage } from './access.js';
import { operations as deleteOps } from './delete.js';
import { operations as edit } from './edit.js';
import { operations as flags } from './flags.js';
import { operations as history } from './history.js';
import { operations as list } from './list.js';
import { operations as reactions } from './reactions.js';
import { operations as reportOps } from './report.js';
import { operations as renderEndpoint } from './render-endpoint.js';
import { checkCanPost, checkCanReachRecipients, checkSendParams, clientName, defaultReadBySender, doSendMessage, normalizeContent, normalizeTopic, resolveRecipients, resolveStream, sendMessage } from './send.js';
import { messageWithFlags } from './views.js';
import { parseWidgetContent } from '../submessages/widgets.js';
import { topicOperations } from './topics.js';
import { operations as readReceipts } from './read-receipts.js';
import { operations as matchesNarrow } from './matches-narrow.js';

interface SendParams {
  type: 'direct' | 'private' | 'stream' | 'channel';
  to: unknown;
  content: string;
  topic?: string;
  subject?: string;
  queue_id?: string;
  local_id?: string;
  read_by_sender?: boolean;
  widget_content?: string;
}

/** POST /messages */
const send = operation<SendParams>({
  auth: 'user',
  allowIncomingWebhooks: true,
  params: {
    properties: {
      type: { enum: ['direct', 'private', 'stream', 'channel'] },
      // anyOf, integer first: with coercion a number also passes as a string (see lib/params.ts).
      to: { anyOf: [{ type: 'integer' }, { type: 'string' }, { type: 'array', items: { anyOf: [{ type: 'integer' }, { type: 'string' }] } }] },
      content: { type: 'string' },
      topic: { type: 'string' },
      subject: { type: 'string' },
      queue_id: { type: 'string' },
      local_id: { type: 'string' },
      read_by_sender: { type: 'boolean' },
      widget_content: { type: 'string' },
    },
    required: ['type', 'to', 'content'],
  },
  handler: async (ctx) => {
    const sender = me(ctx);
    const { realm, params: p } = ctx;
    checkSendParams(p);
    const content = normalizeContent(p.content);
    const client = clientName(ctx.userAgent);
    const widget = p.widget_content === undefined ? undefined : parseWidgetContent(p.widget_content);
    const common = { sender, content, client, readBySender: p.read_by_sender ?? defaultReadBySender(client), localId: p.local_id, queueId: p.queue_id, widget };
    if (p.type === 'stream' || p.type === 'channel') {
      const rawTopic = p.topic ?? p.subject;
      if (rawTopic === undefined) throw badRequest('Missing topic');
      const stream = resolveStream(realm, p.to);
      checkCanPost(realm, sender, stream);
      const sent = await sendMessage(ctx.shard, realm, { ...common, stream, topic: normalizeTopic(realm, rawTopic) });
      // Present only when the send changed the sender's visibility policy for the topic.
      return sent.automaticNewVisibilityPolicy === null ? { id: sent.msg.id } : { id: sent.msg.id, automatic_new_visibility_policy: sent.automaticNewVisibilityPolicy };
    }
    const recipients = resolveRecipients(realm, p.to);
    checkCanReachRecipients(ctx.shard, realm, sender, recipients);
    const msg = await doSendMessage(ctx.shard, realm, { ...common, recipients });
    return { id: msg.id };
  },
});

/** GET /messages/{message_id} */
const getOne = operation<{ message_id: number; apply_markdown: boolean; allow_empty_topic_name: boolean }>({
  auth: 'user',
  params: {
    properties: {
      message_id: { type: 'integer' },
      apply_markdown: { type: 'boolean', default: true },
      allow_empty_topic_name: { type: 'boolean', default: false },
    },
    required: ['message_id'],
  },
  handler: (ctx) => {
    const user = me(ctx);
    const msg = accessibleMessage(ctx.shard, ctx.realm, user, ctx.params.message_id);
    const opts = { applyMarkdown: ctx.params.apply_markdown, clientGravatar: false, allowEmptyTopicName: ctx.params.allow_empty_topic_name };
    return { raw_content: msg.content, message: messageWithFlags(ctx.shard, ctx.realm, user, msg, opts) };
  },
});

export const operations = {
  'messages.send': send,
  'messages.get': getOne,
  ...list,
  ...flags,
  ...reactions,
  ...reportOps,
  ...renderEndpoint,
  ...edit,
  ...deleteOps,
  ...history,
  ...topicOperations,
  ...readReceipts,
  ...matchesNarrow,
};
