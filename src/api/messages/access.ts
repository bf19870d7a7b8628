import type { MessageRecord } from '../../model/message.js';
import { received } from '../../model/read-state.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import { badRequest } from '../../lib/errors.js';
import type { Shard } from '../../shard/shard.js';
import { getMessage } from '../../store/messages.js';
import { hasContentAccess } from '../streams/access.js';

/**
 * Whether a user may read a message, after the reference's has_message_access: direct messages
 * by their participants; channel messages by whoever has content access to the channel, except
 * that a private channel with protected history shows a subscriber only what they received.
 */
export function canAccessMessage(realm: RealmState, user: UserRecord, msg: MessageRecord): boolean {
  if (msg.kind === 'direct') return msg.dm!.includes(user.id);
  const stream = realm.streams.get(msg.streamId!);
  if (!stream || !hasContentAccess(realm, user, stream)) return false;
  if (stream.inviteOnly && !stream.historyPublicToSubscribers) return received(realm, user.id, msg);
  return true;
}

export const invalidMessage = () => badRequest('Invalid message(s)');

/** The message, if it exists in the realm and the user may read it; else "Invalid message(s)". */
export function accessibleMessage(shard: Shard, realm: RealmState, user: UserRecord, id: number): MessageRecord {
  const msg = getMessage(shard, realm, id);
  if (!msg || !canAccessMessage(realm, user, msg)) throw invalidMessage();
  return msg;
}
