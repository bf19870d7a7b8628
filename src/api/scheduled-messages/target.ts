import { badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { StreamRecord, UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { renderMessage } from '../messages/render.js';
import { checkCanPost, checkCanReachRecipients, checkWildcardMentions, normalizeContent, normalizeTopic, resolveRecipients, resolveStream, topicParticipants } from '../messages/send.js';
import { activeSubscriberIds } from '../streams/access.js';

/**
 * What the reference's check_message decides for a scheduled message, when it is scheduled or
 * edited and again when it is sent: where it goes (the same rules as POST /messages, through its
 * helpers), and its content, rendered and checked for wildcard mentions.
 */
export interface Target {
  type: 'stream' | 'private';
  stream?: StreamRecord;
  topic: string;
  recipients?: UserRecord[];
}

/** `to` of a channel message: one channel id (the reference's extract_stream_id). */
export function parseStreamTo(to: unknown): number {
  const value = Array.isArray(to) && to.length === 1 ? to[0] : to;
  const id = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof id !== 'number' || !Number.isInteger(id)) throw badRequest('Invalid data type for channel ID');
  return id;
}

/** `to` of a direct message: a list of user ids (the reference's extract_direct_message_recipient_ids). */
export function parseDirectTo(to: unknown): number[] {
  if (!Array.isArray(to)) throw badRequest('Invalid data type for recipients');
  if (!to.every((id) => Number.isInteger(id))) throw badRequest('Recipient list may only contain user IDs');
  return [...new Set(to as number[])];
}

/** Where the message goes; `topic` undefined for a channel message is the reference's "Missing topic". */
export function checkTarget(shard: Shard, realm: RealmState, sender: UserRecord, type: 'stream' | 'private', to: number | number[], topic: string | undefined): Target {
  if (type === 'stream') {
    if (topic === undefined) throw badRequest('Missing topic');
    const stream = resolveStream(realm, to);
    checkCanPost(realm, sender, stream);
    return { type, stream, topic: normalizeTopic(realm, topic) };
  }
  const recipients = resolveRecipients(realm, to);
  checkCanReachRecipients(shard, realm, sender, recipients);
  return { type, topic: '', recipients };
}

/** The content as it would be sent, rendered, with the wildcard-mention rule applied. */
export function checkContent(shard: Shard, realm: RealmState, sender: UserRecord, target: Target, raw: string): { content: string; rendered: string } {
  const content = normalizeContent(raw);
  const rendered = renderMessage(content, { realm, sender });
  if (target.stream) {
    const audience = new Set([...activeSubscriberIds(realm, target.stream.id), sender.id]).size - 1;
    const topicAudience = rendered.wildcards.topic ? topicParticipants(shard, realm, target.stream.id, target.topic).size : 0;
    checkWildcardMentions(realm, sender, rendered, audience, topicAudience);
  } else checkWildcardMentions(realm, sender, rendered, null, 0);
  return { content, rendered: rendered.html };
}
