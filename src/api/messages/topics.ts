import { badRequest } from '../../lib/errors.js';
import type { MessageRecord } from '../../model/message.js';
import { me, operation } from '../../api-kit/operation.js';
import { hasContentAccess } from '../streams/access.js';
import { canAccessMessage } from './access.js';
import { shownTopic } from './views.js';

/**
 * GET /users/me/{stream_id}/topics: each topic's name and newest message id, newest first.
 *
 * byTopic keys are [realm, channel, topicKey, msgId], so the walk jumps from topic to topic: one
 * reverse read for a topic's newest message, then one read for the next topic key. Its cost
 * follows the number of topics, not of messages. With protected history the newest message is
 * the newest one the user received, which the reverse read walks back to.
 */
const topics = operation<{ stream_id: number; allow_empty_topic_name: boolean }>({
  auth: 'user',
  params: {
    properties: { stream_id: { type: 'integer' }, allow_empty_topic_name: { type: 'boolean', default: false } },
    required: ['stream_id'],
  },
  handler: (ctx) => {
    const user = me(ctx);
    const { shard, realm, params } = ctx;
    const stream = realm.streams.get(params.stream_id);
    if (!stream || !hasContentAccess(realm, user, stream)) throw badRequest('Invalid channel ID');
    const { byTopic, messages } = shard.store;
    const out: { name: string; max_id: number }[] = [];
    let from: (string | number)[] = [realm.id, stream.id, ''];
    for (;;) {
      let next: (string | number)[] | undefined;
      for (const k of byTopic.getKeys({ start: from, end: [realm.id, stream.id + 1], limit: 1 })) next = k as (string | number)[];
      if (!next) break;
      const key = next[2] as string;
      for (const k of byTopic.getKeys({ start: [realm.id, stream.id, key, Number.MAX_SAFE_INTEGER], end: [realm.id, stream.id, key, -1], reverse: true })) {
        const msg = shard.read<MessageRecord>(messages, (k as number[])[3]);
        if (msg && canAccessMessage(realm, user, msg)) {
          out.push({ name: shownTopic(msg.topic, params.allow_empty_topic_name), max_id: msg.id });
          break;
        }
      }
      // The smallest key after every key of this topic.
      from = [realm.id, stream.id, `${key}\u0000`];
    }
    return { topics: out.sort((a, b) => b.max_id - a.max_id) };
  },
});

export const topicOperations = { 'messages.topics': topics };
