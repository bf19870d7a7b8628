import { badRequest } from '../../lib/errors.js';
import type { MessageRecord } from '../../model/message.js';
import type { RealmState } from '../../model/realm-state.js';
import type { StreamRecord, UserRecord } from '../../model/types.js';
import { userSetting } from '../../model/user-settings.js';
import { accessibleMessage } from '../messages/access.js';
import { checkCanPost } from '../messages/send.js';
import { me, operation } from '../../api-kit/operation.js';
import { activeSubscriberIds, hasContentAccess } from '../streams/access.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../model/message.js';

/**
 * Typing notifications. The server keeps no state: each start or stop becomes one event to the
 * users who would receive the message being typed (the typist included, as the reference does:
 * clients skip their own), minus those who turned typing notifications off. Channel typing goes
 * only to queues with the stream_typing_notifications capability (events/shape.ts), and not at
 * all in channels of more than MAX_CHANNEL_SIZE subscribers, where it would cost more than it
 * tells.
 */
const MAX_CHANNEL_SIZE = 100;

type Op = 'start' | 'stop';

const person = (u: UserRecord) => ({ user_id: u.id, email: u.email });
const receivesTyping = (u: UserRecord | undefined): u is UserRecord => !!u && u.isActive && userSetting(u, 'receives_typing_notifications') !== false;

/** Subscribers to notify of typing in a channel, or none when the channel is too big. */
function channelAudience(realm: RealmState, stream: StreamRecord): number[] {
  const subscribers = activeSubscriberIds(realm, stream.id);
  if (subscribers.length > MAX_CHANNEL_SIZE) return [];
  return subscribers.filter((id) => receivesTyping(realm.users.get(id)));
}

/** `(no topic)` and the empty-topic display name both mean the empty topic. */
function typingTopic(raw: string): string {
  return raw === '(no topic)' || raw === EMPTY_TOPIC_DISPLAY_NAME ? '' : raw;
}

function checkSendsTyping(user: UserRecord, channel: boolean): void {
  const setting = channel ? 'send_stream_typing_notifications' : 'send_private_typing_notifications';
  if (userSetting(user, setting) === false) {
    throw badRequest(`User has disabled typing notifications for ${channel ? 'channel' : 'direct'} messages`);
  }
}

/** The channel as the reference's access_stream_by_id_for_message finds it, then the posting check. */
function channelForTyping(realm: RealmState, user: UserRecord, streamId: number): StreamRecord {
  const stream = realm.streams.get(streamId);
  if (!stream || !hasContentAccess(realm, user, stream)) throw badRequest('Invalid channel ID');
  checkCanPost(realm, user, stream);
  return stream;
}

interface TypingParams {
  type: 'direct' | 'private' | 'stream' | 'channel';
  op: Op;
  to?: number[];
  stream_id?: number;
  topic?: string;
}

/** POST /typing */
const typing = operation<TypingParams>({
  auth: 'user',
  params: {
    properties: {
      // `private` is the name before feature level 174, still accepted.
      type: { enum: ['direct', 'private', 'stream', 'channel'], default: 'direct' },
      op: { enum: ['start', 'stop'] },
      to: { type: 'array', items: { type: 'integer' } },
      stream_id: { type: 'integer' },
      topic: { type: 'string' },
    },
    required: ['op'],
  },
  handler: (ctx) => {
    const sender = me(ctx);
    const { realm, params: p } = ctx;
    if (p.type === 'stream' || p.type === 'channel') {
      if (p.stream_id === undefined) throw badRequest("Missing 'stream_id' argument");
      if (p.topic === undefined) throw badRequest('Missing topic');
      checkSendsTyping(sender, true);
      const stream = channelForTyping(realm, sender, p.stream_id);
      const event = { type: 'typing', message_type: 'stream', op: p.op, sender: person(sender), stream_id: stream.id, topic: typingTopic(p.topic) };
      ctx.shard.events.emit(realm.id, event, channelAudience(realm, stream));
      return {};
    }
    if (p.to === undefined) throw badRequest("Missing 'to' argument");
    if (p.to.length === 0) throw badRequest("Empty 'to' list");
    checkSendsTyping(sender, false);
    const ids = p.to.includes(sender.id) ? [...p.to] : [...p.to, sender.id];
    const recipients = ids.map((id) => {
      const user = realm.users.get(id);
      if (!user) throw badRequest(`Invalid user ID ${id}`);
      return user;
    });
    const event = { type: 'typing', message_type: 'direct', op: p.op, sender: person(sender), recipients: recipients.map(person) };
    ctx.shard.events.emit(realm.id, event, recipients.filter(receivesTyping).map((u) => u.id));
    return {};
  },
});

/** The `recipient` of a typing_edit_message event, and who gets it. */
function editAudience(realm: RealmState, msg: MessageRecord): { recipient: Record<string, unknown>; userIds: number[] } {
  if (msg.kind === 'stream') {
    const stream = realm.streams.get(msg.streamId!)!;
    return { recipient: { type: 'channel', channel_id: stream.id, topic: msg.topic }, userIds: channelAudience(realm, stream) };
  }
  const userIds = msg.dm!.filter((id) => receivesTyping(realm.users.get(id)));
  return { recipient: { type: 'direct', user_ids: userIds }, userIds };
}

/** POST /messages/{message_id}/typing: someone is editing a message they may modify. */
const editTyping = operation<{ message_id: number; op: Op }>({
  auth: 'user',
  params: {
    properties: { message_id: { type: 'integer' }, op: { enum: ['start', 'stop'] } },
    required: ['message_id', 'op'],
  },
  handler: (ctx) => {
    const user = me(ctx);
    const msg = accessibleMessage(ctx.shard, ctx.realm, user, ctx.params.message_id);
    checkSendsTyping(user, msg.kind === 'stream');
    const { recipient, userIds } = editAudience(ctx.realm, msg);
    ctx.shard.events.emit(ctx.realm.id, { type: 'typing_edit_message', op: ctx.params.op, sender_id: user.id, message_id: msg.id, recipient }, userIds);
    return {};
  },
});

export const operations = {
  'typing.set': typing,
  'typing.editMessage': editTyping,
};
