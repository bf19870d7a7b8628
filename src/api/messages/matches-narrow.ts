import { getMessage } from '../../store/messages.js';
import { me, operation } from '../../api-kit/operation.js';
import { applyWith, narrowParam, parseNarrow } from './narrow.js';
import { planNarrow } from './narrow-plan.js';
import { plainFields, searchFields } from './narrow-search.js';
import { shownTopic } from './views.js';

/**
 * GET /messages/matches_narrow: which of the given messages match a narrow, for clients that
 * cannot test a narrow themselves (full-text search). As in the reference, only messages the
 * user holds (received, or flagged without having received) are considered, and each match
 * comes with the fields GET /messages would give it: the content and topic, highlighted when
 * the narrow searches.
 */
const matchesNarrow = operation<{ msg_ids: number[]; narrow: unknown }>({
  auth: 'user',
  params: {
    properties: { msg_ids: { type: 'array', items: { type: 'integer' } }, narrow: narrowParam },
    required: ['msg_ids', 'narrow'],
  },
  handler: (ctx) => {
    const user = me(ctx);
    const { shard, realm, params: p } = ctx;
    const terms = applyWith(shard, realm, user, parseNarrow(p.narrow));
    const plan = planNarrow(shard, realm, user, terms, { ownOnly: true });
    const messages: Record<string, { match_content: string; match_subject: string }> = {};
    for (const id of [...new Set(p.msg_ids)].sort((a, b) => a - b)) {
      const msg = getMessage(shard, realm, id);
      if (!msg || !plan.matches(msg)) continue;
      const topic = msg.kind === 'stream' ? shownTopic(msg.topic, false) : '';
      messages[String(id)] = plan.search ? searchFields(msg.rendered, topic, plan.search) : plainFields(msg.rendered, topic);
    }
    return { messages };
  },
});

export const operations = {
  'messages.matchesNarrow': matchesNarrow,
};
