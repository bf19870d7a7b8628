import { ApiError, badRequest } from '../../lib/errors.js';
import type { MessageRecord } from '../../model/message.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { me, operation } from '../../api-kit/operation.js';
import { applyWith, narrowParam, parseNarrow } from './narrow.js';
import { checkIncludeAnchor, fetchIds, fetchRange, parseAnchor } from './narrow-fetch.js';
import { planNarrow } from './narrow-plan.js';
import { searchFields, type SearchQuery } from './narrow-search.js';
import { RawJson } from '../../lib/raw-json.js';
import { storedBitsOf } from '../../model/read-state.js';
import { messageWithFlags, pageJson, shownTopic, type MessageViewOptions } from './views.js';

/** The most messages one GET /messages answers, as the reference limits it. */
export const MAX_MESSAGES_PER_FETCH = 5000;

interface ListParams {
  anchor?: string;
  include_anchor: boolean;
  num_before: number;
  num_after: number;
  narrow?: unknown;
  client_gravatar: boolean;
  apply_markdown: boolean;
  use_first_unread_anchor: boolean;
  message_ids?: number[];
  allow_empty_topic_name: boolean;
}

/** Messages as GET /messages shows them: the viewer's flags, and search highlights if any. */
export function messageList(shard: Shard, realm: RealmState, viewer: UserRecord, msgs: MessageRecord[], opts: MessageViewOptions, search: SearchQuery | null): Record<string, unknown>[] | RawJson {
  if (!search) {
    return RawJson.pieces(pageJson(shard, realm, viewer, msgs, opts, storedBitsOf(shard, realm, viewer.id, msgs)));
  }
  return msgs.map((msg) => {
    const view = messageWithFlags(shard, realm, viewer, msg, opts);
    const topic = msg.kind === 'stream' ? shownTopic(msg.topic, opts.allowEmptyTopicName) : '';
    return { ...view, ...searchFields(msg.rendered, topic, search) };
  });
}

const RANGE_PARAMETERS = ['num_before', 'num_after', 'anchor', 'message_ids', 'include_anchor', 'use_first_unread_anchor'];

/**
 * GET /messages: a range of a narrow around an anchor (or, since feature level 300, the listed
 * message_ids), each message with the user's flags.
 */
const list = operation<ListParams>({
  auth: 'user',
  params: {
    properties: {
      anchor: { type: 'string' },
      include_anchor: { type: 'boolean', default: true },
      num_before: { type: 'integer', minimum: 0, default: 0 },
      num_after: { type: 'integer', minimum: 0, default: 0 },
      narrow: narrowParam,
      client_gravatar: { type: 'boolean', default: true },
      apply_markdown: { type: 'boolean', default: true },
      use_first_unread_anchor: { type: 'boolean', default: false },
      message_ids: { type: 'array', items: { type: 'integer', minimum: 0 } },
      allow_empty_topic_name: { type: 'boolean', default: false },
    },
  },
  handler: async (ctx) => {
    const user = me(ctx);
    const { shard, realm, params: p } = ctx;
    const byIds = p.message_ids !== undefined;
    if (byIds && (p.num_before || p.num_after || p.anchor !== undefined || p.use_first_unread_anchor)) {
      throw new ApiError(`Unsupported parameter combination: ${RANGE_PARAMETERS.join(', ')}`, { data: { parameters: RANGE_PARAMETERS.join(', ') } });
    }
    const includeAnchor = byIds ? false : p.include_anchor;
    const anchor = byIds ? null : parseAnchor(p.anchor, p.use_first_unread_anchor);
    const terms = applyWith(shard, realm, user, parseNarrow(p.narrow));
    const requested = byIds ? p.message_ids!.length : p.num_before + p.num_after;
    if (requested > MAX_MESSAGES_PER_FETCH) throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
    checkIncludeAnchor({ includeAnchor, numBefore: p.num_before, numAfter: p.num_after });

    const plan = planNarrow(shard, realm, user, terms);
    const opts = { applyMarkdown: p.apply_markdown, clientGravatar: p.client_gravatar, allowEmptyTopicName: p.allow_empty_topic_name };
    if (byIds) {
      const messages = messageList(shard, realm, user, fetchIds(shard, realm, plan, p.message_ids!), opts, plan.search);
      return { messages, history_limited: false, found_anchor: false, found_oldest: false, found_newest: false };
    }
    const got = await fetchRange(shard, realm, user, terms, plan, { anchor, includeAnchor, numBefore: p.num_before, numAfter: p.num_after });
    return {
      messages: messageList(shard, realm, user, got.messages, opts, plan.search),
      found_anchor: got.foundAnchor,
      found_oldest: got.foundOldest,
      found_newest: got.foundNewest,
      history_limited: false,
      anchor: got.anchor,
    };
  },
});

export const operations = {
  'messages.list': list,
};
