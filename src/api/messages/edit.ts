import { createHash } from 'node:crypto';
import { ApiError, badRequest } from '../../lib/errors.js';
import { EMPTY_TOPIC_DISPLAY_NAME, type MessageRecord, type PropagateMode } from '../../model/message.js';
import type { RealmState } from '../../model/realm-state.js';
import { userHasRealmPermission } from '../../model/realm-settings.js';
import { userHasPermission } from '../../model/groups.js';
import type { StreamRecord, UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { me, operation } from '../../api-kit/operation.js';
import { activeSubscriberIds, hasContentAccess } from '../streams/access.js';
import {
  checkCanEditContent,
  checkChangeAllTimeLimit,
  isModerator,
  limitSeconds,
  modifiableMessage,
  normalizeEditTopic,
  nowSeconds,
  pastLimit,
  requestedTopic,
  resolveToggle,
  RESOLVED_TOPIC_PREFIX,
} from './edit-rules.js';
import { doUpdateMessage, type EditPlan } from './move.js';
import { renderMessage } from './render.js';
import { checkWildcardMentions, normalizeContent, topicParticipants } from './send.js';
import { checkGroupMentions } from '../user_groups/mentions.js';

interface UpdateParams {
  message_id: number;
  topic?: string;
  subject?: string;
  stream_id?: number;
  content?: string;
  propagate_mode: PropagateMode;
  send_notification_to_old_thread: boolean;
  send_notification_to_new_thread: boolean;
  prev_content_sha256?: string;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Everything PATCH /messages/{message_id} checks, in the reference's order, without changing
 * anything: access, content permission, the shape of the request, the new content, topic and
 * channel, then the move permissions and time limits.
 */
export function checkUpdateMessage(shard: Shard, realm: RealmState, user: UserRecord, p: UpdateParams): EditPlan {
  const now = nowSeconds();
  const msg = modifiableMessage(shard, realm, user, p.message_id);
  if (p.content !== undefined) checkCanEditContent(realm, user, msg, now);

  const rawTopic = p.topic ?? p.subject;
  let asked = rawTopic === undefined ? undefined : requestedTopic(rawTopic);
  if (asked === msg.topic) asked = undefined;
  const streamId = p.stream_id !== undefined && p.stream_id !== msg.streamId ? p.stream_id : undefined;

  if (asked === undefined && p.content === undefined && streamId === undefined) throw badRequest('Nothing to change');
  if (msg.kind === 'direct') {
    if (streamId !== undefined) throw badRequest('Direct messages cannot be moved to channels.');
    if (asked !== undefined) throw badRequest('Direct messages cannot have topics.');
  }
  if (p.propagate_mode !== 'change_one' && asked === undefined && streamId === undefined) throw badRequest('Invalid propagate_mode without topic edit');
  if (asked === RESOLVED_TOPIC_PREFIX.trim() || asked === `${RESOLVED_TOPIC_PREFIX}${EMPTY_TOPIC_DISPLAY_NAME}`) {
    throw badRequest('General chat cannot be marked as resolved');
  }
  if (asked !== undefined && asked.includes('\0')) throw badRequest('Topic must not contain null bytes');
  if (streamId !== undefined && p.content !== undefined) throw badRequest('Cannot change message content while changing channel');
  if (p.prev_content_sha256 !== undefined && p.prev_content_sha256 !== sha256(msg.content)) {
    throw new ApiError("'prev_content_sha256' value does not match the expected value.", { code: 'EXPECTATION_MISMATCH' });
  }

  const content = p.content === undefined ? undefined : normalizeContent(p.content.trimEnd() === '' ? '(deleted)' : p.content);
  let topic = asked === undefined ? undefined : normalizeEditTopic(realm, asked);
  if (topic === msg.topic) topic = undefined;
  if (topic === undefined && content === undefined && streamId === undefined) throw badRequest('Nothing to change');
  const toggle = topic === undefined ? { resolved: false, unresolved: false } : resolveToggle(msg.topic, topic, asked!);
  const origStream = msg.kind === 'stream' ? realm.streams.get(msg.streamId!)! : null;
  const stream = streamId === undefined ? undefined : accessTargetStream(realm, user, streamId);

  if (topic !== undefined) checkTopicPermission(realm, user, msg, toggle.resolved || toggle.unresolved, now);

  const plan: EditPlan = {
    msg,
    propagateMode: p.propagate_mode,
    topic,
    stream,
    origStream,
    resolved: toggle.resolved,
    unresolved: toggle.unresolved,
    notifyOld: p.send_notification_to_old_thread,
    notifyNew: p.send_notification_to_new_thread,
  };
  if (content !== undefined) plan.content = checkNewContent(shard, realm, msg, origStream, content);

  if (stream !== undefined) {
    if (!userHasRealmPermission(realm, user, 'can_move_messages_between_channels_group')) throw badRequest("You don't have permission to move this message");
    const sendGroup = stream.groups.can_send_message_group;
    if (sendGroup !== undefined && !userHasPermission(realm, user, sendGroup)) throw badRequest('You do not have permission to post in this channel.');
    if (!isModerator(user) && pastLimit(msg, limitSeconds(realm, 'move_messages_between_streams_limit_seconds'), now)) {
      throw badRequest("The time limit for editing this message's channel has passed");
    }
  }
  const moved = topic !== undefined || stream !== undefined;
  if (p.propagate_mode === 'change_all' && moved && !isModerator(user) && !toggle.resolved && !toggle.unresolved) {
    checkChangeAllTimeLimit(shard, realm, user, msg, origStream!, topic !== undefined, stream !== undefined, now);
  }
  return plan;
}

/** The channel to move to: one the user can read and that is not archived. */
function accessTargetStream(realm: RealmState, user: UserRecord, id: number): StreamRecord {
  const stream = realm.streams.get(id);
  if (!stream || stream.isArchived || !hasContentAccess(realm, user, stream)) throw badRequest('Invalid channel ID');
  return stream;
}

/**
 * Renaming a topic: resolving and unresolving need can_resolve_topics_group; any other rename
 * can_move_messages_between_topics_group, within the time limit unless a moderator.
 */
function checkTopicPermission(realm: RealmState, user: UserRecord, msg: MessageRecord, resolving: boolean, now: number): void {
  if (resolving) {
    if (!userHasRealmPermission(realm, user, 'can_resolve_topics_group')) throw badRequest("You don't have permission to resolve topics in this channel.");
    return;
  }
  if (!userHasRealmPermission(realm, user, 'can_move_messages_between_topics_group')) throw badRequest("You don't have permission to edit this message");
  if (!isModerator(user) && pastLimit(msg, limitSeconds(realm, 'move_messages_within_stream_limit_seconds'), now)) {
    throw badRequest("The time limit for editing this message's topic has passed.");
  }
}

/** Renders new content and applies the mention rules of sending (wildcards, groups) to it. */
function checkNewContent(shard: Shard, realm: RealmState, msg: MessageRecord, stream: StreamRecord | null, content: string): NonNullable<EditPlan['content']> {
  const sender = realm.users.get(msg.senderId)!;
  const rendered = renderMessage(content, { realm, sender, alertWords: true });
  if (stream) {
    const audience = new Set([...activeSubscriberIds(realm, stream.id), sender.id]).size - 1;
    const participants = rendered.wildcards.topic ? topicParticipants(shard, realm, stream.id, msg.topic) : new Set<number>();
    checkWildcardMentions(realm, sender, rendered, audience, participants.size);
  }
  checkGroupMentions(realm, sender, rendered.mentionedGroupIds);
  return { content, rendered };
}

/** PATCH /messages/{message_id} */
const update = operation<UpdateParams>({
  auth: 'user',
  params: {
    properties: {
      message_id: { type: 'integer', minimum: 0 },
      topic: { type: 'string' },
      subject: { type: 'string' },
      stream_id: { type: 'integer', minimum: 0 },
      content: { type: 'string' },
      propagate_mode: { enum: ['change_one', 'change_later', 'change_all'], default: 'change_one' },
      send_notification_to_old_thread: { type: 'boolean', default: false },
      send_notification_to_new_thread: { type: 'boolean', default: true },
      prev_content_sha256: { type: 'string' },
    },
    required: ['message_id'],
  },
  handler: async (ctx) => {
    const user = me(ctx);
    const plan = checkUpdateMessage(ctx.shard, ctx.realm, user, ctx.params);
    const result = await doUpdateMessage(ctx.shard, ctx.realm, user, plan);
    return { detached_uploads: result.detachedUploads };
  },
});

export const operations = {
  'messages.update': update,
};
