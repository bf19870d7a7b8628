import { EMPTY_TOPIC_DISPLAY_NAME, type MessageRecord, topicKey } from '../../model/message.js';
import type { RealmState } from '../../model/realm-state.js';
import type { ShardEvent } from '../../shard/events.js';
import type { Shard } from '../../shard/shard.js';
import { messageView } from '../messages/views.js';
import { avatarUrl } from '../users/views.js';
import { shapeGroupEvent } from '../user_groups/events.js';
import { INHERITED_NOTIFICATIONS } from './register-channels.js';
import { userSetting } from '../../model/user-settings.js';
import type { EventQueue, QueuedEvent } from './queue.js';

type Shaped = Omit<QueuedEvent, 'id'>;

const NO_FLAGS: readonly string[] = Object.freeze([]);

/**
 * Whether a message matches a queue's narrow. Queues are narrowed by the simple operators
 * clients register with (channel, topic, dm, sender, is:dm); a term we cannot evaluate here
 * lets the message through, which over-delivers rather than loses.
 */
function matchesNarrow(realm: RealmState, queue: EventQueue, msg: MessageRecord): boolean {
  for (const { operator, operand, negated } of queue.opts.narrow) {
    let match = true;
    switch (operator) {
      case 'channel':
      case 'stream': {
        const stream = typeof operand === 'number' ? realm.streams.get(operand) : realm.streamByName(String(operand));
        match = msg.kind === 'stream' && msg.streamId === stream?.id;
        break;
      }
      case 'topic':
        match = msg.kind === 'stream' && topicKey(msg.topic) === topicKey(String(operand));
        break;
      case 'sender': {
        const sender = typeof operand === 'number' ? realm.users.get(operand) : realm.userByEmail(String(operand));
        match = msg.senderId === sender?.id;
        break;
      }
      case 'is':
        if (operand === 'dm' || operand === 'private') match = msg.kind === 'direct';
        break;
      case 'dm':
      case 'pm-with': {
        const ids = (Array.isArray(operand) ? operand : String(operand).split(',')).map((x) =>
          typeof x === 'number' ? x : realm.userByEmail(String(x).trim())?.id,
        );
        const wanted = new Set([...ids, queue.opts.userId]);
        match = msg.kind === 'direct' && msg.dm!.length === wanted.size && msg.dm!.every((id) => wanted.has(id));
        break;
      }
    }
    if (match === negated) return false;
  }
  return true;
}

function shapeMessage(shard: Shard, realm: RealmState, queue: EventQueue, event: ShardEvent, memo?: Map<string | number, unknown>): Shaped[] {
  const msg = event.message as MessageRecord;
  if (!matchesNarrow(realm, queue, msg)) return [];
  const viewer = realm.users.get(queue.opts.userId);
  if (!viewer) return [];
  const { applyMarkdown, clientGravatar } = queue.opts;
  const allowEmptyTopicName = queue.opts.capabilities.empty_topic_name === true;
  // A channel message looks the same to every viewer with the same options (only a direct
  // message's recipient_id depends on who looks): one view per option set, not per queue, so a
  // send to a 50-subscriber channel builds one or two views instead of fifty. Shared, so never
  // mutated downstream. A channel message's keys are small numbers (the options' bits), made
  // without a string (or an options object) per queue.
  const bits = (applyMarkdown ? 1 : 0) | (clientGravatar ? 2 : 0) | (allowEmptyTopicName ? 4 : 0);
  const key: number | string = msg.kind === 'stream' ? bits : `${bits}|${viewer.id}`;
  let view = memo?.get(key) as Record<string, unknown> | undefined;
  if (!view) {
    view = messageView(shard, realm, viewer, msg, { applyMarkdown, clientGravatar, allowEmptyTopicName });
    memo?.set(key, view);
  }
  // Only recipients with a flag have an entry (send.ts): the others share NO_FLAGS.
  const flags = (event.flags as Record<number, string[]>)[viewer.id] ?? NO_FLAGS;
  if (event.sender_queue_id === queue.id && event.local_id !== null) return [{ type: 'message', message: view, flags, local_message_id: event.local_id }];
  // The shaped event too is shared by the queues with the same view and flags: a queue holds a
  // reference to it, not a copy (queue.ts).
  const shapedKey: number | string = flags === NO_FLAGS && typeof key === 'number' ? key + 8 : `${key}#${flags.join(',')}`;
  let shaped = memo?.get(shapedKey) as Shaped | undefined;
  if (!shaped) {
    shaped = { type: 'message', message: view, flags };
    memo?.set(shapedKey, shaped);
  }
  return [shaped];
}

/** Without the empty_topic_name capability, an empty topic reads as the display name. */
function topicsShown(event: ShardEvent, keys: string[], emptyTopicSupported: boolean): ShardEvent {
  if (emptyTopicSupported || !keys.some((k) => event[k] === '')) return event;
  const copy: ShardEvent = { ...event };
  for (const k of keys) if (copy[k] === '') copy[k] = EMPTY_TOPIC_DISPLAY_NAME;
  return copy;
}

/**
 * A new person's avatar as the queue asked for it: with client_gravatar, a Gravatar avatar is
 * null (the client computes it), as in the queue's /register snapshot.
 */
function shapePerson(realm: RealmState, queue: EventQueue, event: ShardEvent): ShardEvent {
  const person = event.person as { user_id: number; avatar_url?: unknown } | undefined;
  if (event.op !== 'add' || !person || !('avatar_url' in person) || !queue.opts.clientGravatar) return event;
  const user = realm.users.get(person.user_id);
  return user ? { ...event, person: { ...person, avatar_url: avatarUrl(user, true) } } : event;
}

/**
 * Without notification_settings_null, a subscription's inherited notification settings read as
 * the user's own settings, as in the queue's /register snapshot.
 */
function shapeSubscriptions(realm: RealmState, queue: EventQueue, event: ShardEvent): ShardEvent {
  if (event.op !== 'add' || queue.opts.capabilities.notification_settings_null) return event;
  const user = realm.users.get(queue.opts.userId);
  if (!user) return event;
  const subs = (event.subscriptions as Record<string, unknown>[]).map((sub) => {
    const copy = { ...sub };
    for (const name of INHERITED_NOTIFICATIONS) if (copy[name] === null) copy[name] = userSetting(user, `enable_stream_${name}`);
    return copy;
  });
  return { ...event, subscriptions: subs };
}

/**
 * Archived channels reach only clients that declared archived_channels; the others were told the
 * channel is gone (stream delete) and hear no more of it. An archiving's stream delete, marked
 * `for_archiving`, goes to exactly those others.
 */
function shapeStream(realm: RealmState, archivedSupported: boolean, event: ShardEvent): ShardEvent[] {
  if (event.op === 'delete' && 'for_archiving' in event) {
    if (archivedSupported) return [];
    const { for_archiving: _marker, ...rest } = event;
    return [rest as ShardEvent];
  }
  if (event.op === 'update' && !archivedSupported && realm.streams.get(event.stream_id as number)?.isArchived) return [];
  return [event];
}

/**
 * The copies of an event one queue receives: none (filtered out), one, or, for clients without
 * the bulk_message_deletion capability, one delete_message per message. `memo`, shared by the
 * queues one event goes to, lets them share the parts that do not depend on the queue.
 */
export function shapeEvent(shard: Shard, realm: RealmState, queue: EventQueue, event: ShardEvent, memo?: Map<string | number, unknown>): Shaped[] {
  const caps = queue.opts.capabilities;
  switch (event.type) {
    case 'message':
      return shapeMessage(shard, realm, queue, event, memo);
    case 'delete_message': {
      const shown = topicsShown(event, ['topic'], caps.empty_topic_name);
      const ids = shown.message_ids as number[] | undefined;
      if (caps.bulk_message_deletion || !ids) return [shown];
      const { message_ids: _ignored, ...rest } = shown;
      return ids.map((id) => ({ ...rest, message_id: id }) as Shaped);
    }
    case 'update_message':
      return [topicsShown(event, ['orig_subject', 'subject', 'topic'], caps.empty_topic_name)];
    case 'realm_user':
      // A newcomer a guest cannot access: the "Unknown user" placeholder, which clients that
      // declared user_list_incomplete do without (the reference's inaccessible_user marker).
      if (event.inaccessible_user === true) {
        if (caps.user_list_incomplete) return [];
        const { inaccessible_user: _marker, ...rest } = event;
        return [rest as Shaped];
      }
      return [shapePerson(realm, queue, event)];
    case 'subscription':
      if (event.op === 'update' && !caps.archived_channels && realm.streams.get(event.stream_id as number)?.isArchived) return [];
      return [shapeSubscriptions(realm, queue, event)];
    case 'stream':
      return shapeStream(realm, caps.archived_channels === true, event);
    case 'update_display_settings':
    case 'update_global_notifications':
      // The legacy forms of user_settings, for clients that do not read the new one.
      return caps.user_settings_object ? [] : [event];
    case 'user_group':
      return shapeGroupEvent(event, caps.include_deactivated_groups === true);
    case 'realm_linkifiers':
      // Clients without linkifier_url_template get no linkifier events at all (level 176).
      return caps.linkifier_url_template ? [event] : [];
    case 'user_topic':
      return [topicsShown(event, ['topic_name'], caps.empty_topic_name)];
    case 'muted_topics':
      // The legacy event is not sent to clients that asked for its replacement (level 134).
      if (queue.opts.eventTypes?.has('user_topic')) return [];
      return caps.empty_topic_name ? [event] : [{ ...event, muted_topics: (event.muted_topics as [string, string, number][]).map(([s, t, ts]) => [s, t === '' ? EMPTY_TOPIC_DISPLAY_NAME : t, ts]) }];
    case 'typing':
      // Channel typing notifications only reach clients that declared they understand them.
      if (event.message_type === 'stream' && !caps.stream_typing_notifications) return [];
      return event.topic === '' && !caps.empty_topic_name ? [{ ...event, topic: EMPTY_TOPIC_DISPLAY_NAME }] : [event];
    default:
      return [event];
  }
}
