import { badRequest } from '../../lib/errors.js';
import { topicKey, type MessageRecord } from '../../model/message.js';
import { received } from '../../model/read-state.js';
import { VISIBILITY } from '../../model/user-topics.js';
import { flush, outbox, queueEvent } from '../../shard/outbox.js';
import { getMessage, idsUnder } from '../../store/messages.js';
import { canAccessMessage } from '../messages/access.js';
import { doDeleteMessages } from '../messages/delete.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../model/message.js';
import { me, operation } from '../../api-kit/operation.js';
import { setTopicVisibility } from '../user-topics/actions.js';
import { hasContentAccess } from './access.js';

/** The reference's STREAM_MESSAGE_BATCH_SIZE: messages deleted per transaction. */
const BATCH_SIZE = 100;
/** The reference answers after 50 s; the client repeats the request to go on. */
const DEFAULT_BUDGET_MS = 50_000;

/**
 * POST /streams/{stream_id}/delete_topic (administrators): deletes the topic's messages the
 * administrator can see, newest first, in transactions of BATCH_SIZE (each with its
 * delete_message events), so that a huge topic makes progress even if the request runs out of
 * time: past the budget it answers `complete: false`, and a repeat goes on. Once the topic is
 * empty, users' visibility policies for it go too, except, with protected history, for users
 * who still have some of its messages.
 */
const deleteTopic = operation<{ stream_id: number; topic_name: string }>({
  auth: 'user',
  role: 'administrator',
  params: { properties: { stream_id: { type: 'integer', minimum: 0 }, topic_name: { type: 'string' } }, required: ['stream_id', 'topic_name'] },
  handler: async (ctx) => {
    const user = me(ctx);
    const { shard, realm } = ctx;
    const stream = realm.streams.get(ctx.params.stream_id);
    if (!stream || stream.isArchived || !hasContentAccess(realm, user, stream)) throw badRequest('Invalid channel ID');
    const topic = ctx.params.topic_name === EMPTY_TOPIC_DISPLAY_NAME ? '' : ctx.params.topic_name;
    const prefix = [realm.id, stream.id, topicKey(topic)];
    const budget = shard.config.deleteTopicBudgetMs ?? DEFAULT_BUDGET_MS;
    const started = Date.now();

    // Messages the administrator cannot see stay; everything above `upper` has been looked at.
    let upper = Number.MAX_SAFE_INTEGER;
    for (let batches = 0; ; batches++) {
      if (batches > 0 && Date.now() - started >= budget) return { complete: false };
      const doomed: MessageRecord[] = [];
      scan: while (doomed.length < BATCH_SIZE) {
        const ids = [...idsUnder(shard.store.byTopic, prefix, { max: upper, reverse: true, limit: BATCH_SIZE })];
        if (ids.length === 0) break;
        for (const id of ids) {
          upper = id - 1;
          const msg = getMessage(shard, realm, id);
          if (msg && canAccessMessage(realm, user, msg)) doomed.push(msg);
          if (doomed.length === BATCH_SIZE) break scan;
        }
      }
      if (doomed.length === 0) break;
      await doDeleteMessages(shard, realm, doomed, user);
    }

    let stale = realm.userTopics.ofTopic(stream.id, topic).map((r) => r.userId);
    if (!stream.historyPublicToSubscribers) {
      const left = [...idsUnder(shard.store.byTopic, prefix)].map((id) => getMessage(shard, realm, id)).filter((m): m is MessageRecord => !!m);
      stale = stale.filter((userId) => !left.some((msg) => received(realm, userId, msg)));
    }
    if (stale.length > 0) {
      const out = outbox(shard);
      setTopicVisibility(shard, realm, { batch: out.batch, emit: (event, ids) => queueEvent(out, event, ids) }, stale, stream, topic, VISIBILITY.inherit);
      await flush(shard, realm, out);
    }
    return { complete: true };
  },
});

export const operations = {
  'streams.deleteTopic': deleteTopic,
};
