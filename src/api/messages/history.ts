import { badRequest } from '../../lib/errors.js';
import type { MessageRecord } from '../../model/message.js';
import { realmSetting } from '../../model/realm-settings.js';
import { me, operation } from '../../api-kit/operation.js';
import { accessibleMessage } from './access.js';
import { htmlDiff } from './edit-diff.js';
import { shownTopic } from './views.js';

/**
 * The snapshots of GET /messages/{message_id}/history, oldest first: the original message
 * (topic, content, rendered_content, user_id = sender, timestamp), then one per edit with the
 * values after it and, for what the edit changed, the values before it. Stored edit records hold
 * only what changed, so the walk goes from the current state back in time. Under the
 * `moves` visibility policy content edits are left out, and the content part of an edit that
 * also renamed the topic is dropped.
 */
export function messageHistory(msg: MessageRecord, policy: unknown, allowEmptyTopicName: boolean): Record<string, unknown>[] {
  const show = (topic: string) => (msg.kind === 'stream' ? shownTopic(topic, allowEmptyTopicName) : '');
  let content = msg.content;
  let rendered = msg.rendered;
  let topic = msg.topic;
  const newestFirst: Record<string, unknown>[] = [];
  for (const edit of [...msg.edits].reverse()) {
    const entry: Record<string, unknown> = { content, rendered_content: rendered, timestamp: edit.timestamp, topic: show(topic), user_id: edit.userId };
    if (edit.prevTopic !== undefined) {
      topic = edit.prevTopic;
      entry.prev_topic = show(topic);
    }
    if (edit.prevContent !== undefined) {
      entry.prev_content = edit.prevContent;
      entry.prev_rendered_content = edit.prevRendered ?? '';
      entry.content_html_diff = htmlDiff(edit.prevRendered ?? '', rendered);
      content = edit.prevContent;
      rendered = edit.prevRendered ?? '';
    }
    if (edit.prevStream !== undefined) {
      entry.prev_stream = edit.prevStream;
      entry.stream = edit.stream;
    }
    newestFirst.push(entry);
  }
  newestFirst.push({ content, rendered_content: rendered, timestamp: msg.timestamp, topic: show(topic), user_id: msg.senderId });
  const visible = policy === 'moves' ? newestFirst.filter(onlyMoves) : newestFirst;
  return visible.reverse();
}

function onlyMoves(entry: Record<string, unknown>): boolean {
  if (!('prev_content' in entry)) return true;
  if (!('prev_topic' in entry)) return false;
  delete entry.prev_content;
  delete entry.prev_rendered_content;
  delete entry.content_html_diff;
  return true;
}

/** GET /messages/{message_id}/history */
const history = operation<{ message_id: number; allow_empty_topic_name: boolean }>({
  auth: 'user',
  params: {
    properties: {
      message_id: { type: 'integer', minimum: 0 },
      allow_empty_topic_name: { type: 'boolean', default: false },
    },
    required: ['message_id'],
  },
  handler: (ctx) => {
    const policy = realmSetting(ctx.realm, 'message_edit_history_visibility_policy');
    if (policy === 'none') throw badRequest('Message edit history is disabled in this organization');
    const msg = accessibleMessage(ctx.shard, ctx.realm, me(ctx), ctx.params.message_id);
    return { message_history: messageHistory(msg, policy, ctx.params.allow_empty_topic_name) };
  },
});

export const operations = {
  'messages.history': history,
};
