import type { MessageRecord } from '../../model/message.js';
import type { RealmState } from '../../model/realm-state.js';
import { ROLE } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { flipHolders, type HolderCache } from '../../store/flips.js';
import { idsUnder } from '../../store/messages.js';
import { activeSubscriberIds } from '../streams/access.js';

/**
 * Who an edit, move or deletion concerns. The reference answers these questions with its
 * per-recipient UserMessage rows; here a row exists only where some flag differs from the default
 * (model/read-state.ts), so "has a UserMessage row" becomes "received the message, or holds a
 * uflags row for it" (a historical row: starred without having received it).
 */

/**
 * Users with stored state for the message: a uflags row (the uflagUsers reverse index) or a read
 * flip (the flip blocks' reverse index, store/flips.ts). No scan.
 */
export function rowUserIds(shard: Shard, realm: RealmState, msgId: number, flipCache?: HolderCache): number[] {
  const out = new Set(idsUnder(shard.store.uflagUsers, [realm.id, msgId]));
  for (const userId of flipHolders(shard, realm.id, msgId, flipCache)) out.add(userId);
  return [...out];
}

/**
 * For each user with any subscription history in a channel, their intervals: computed once and
 * reused for every message of a bulk move.
 */
export function channelHistory(realm: RealmState, streamId: number): [number, [number, number | null][]][] {
  const out: [number, [number, number | null][]][] = [];
  for (const [userId, byStream] of realm.subHistory) {
    const intervals = byStream.get(streamId);
    if (intervals && intervals.length > 0) out.push([userId, intervals]);
  }
  return out;
}

/** Who received a message: the reference's non-historical UserMessage rows. */
export function receivedUserIds(realm: RealmState, msg: MessageRecord, history?: ReturnType<typeof channelHistory>): Set<number> {
  if (msg.receivers) return new Set(msg.receivers);
  if (msg.kind === 'direct') return new Set(msg.dm!);
  const out = new Set([msg.senderId]);
  for (const [userId, intervals] of history ?? channelHistory(realm, msg.streamId!)) {
    if (intervals.some(([first, last]) => msg.id >= first && (last === null || msg.id <= last))) out.add(userId);
  }
  return out;
}

/** Holders of the reference's UserMessage rows for a message: its receivers and historical rows. */
export function userMessageHolders(shard: Shard, realm: RealmState, msg: MessageRecord): Set<number> {
  const out = receivedUserIds(realm, msg);
  for (const id of rowUserIds(shard, realm, msg.id)) out.add(id);
  return out;
}

/**
 * The reference's event_recipient_ids_for_action_on_messages, for messages of one conversation:
 * direct messages go to their participants; a channel's to its subscribers, except that protected
 * history limits them to subscribers who received the messages, and that a public channel's also
 * reach non-guests holding a row for them (who read them once, and may have them cached).
 */
export function actionAudience(shard: Shard, realm: RealmState, msgs: MessageRecord[]): Set<number> {
  const holders = new Set<number>();
  for (const msg of msgs) for (const id of userMessageHolders(shard, realm, msg)) holders.add(id);
  const sample = msgs[0];
  if (sample.kind === 'direct') return holders;
  const stream = realm.streams.get(sample.streamId!);
  const subscribers = new Set(activeSubscriberIds(realm, sample.streamId!));
  if (!stream) return subscribers;
  if (!stream.historyPublicToSubscribers) return new Set([...holders].filter((id) => subscribers.has(id)));
  if (stream.inviteOnly) return subscribers;
  for (const id of holders) {
    const user = realm.users.get(id);
    if (user?.isActive && user.role !== ROLE.guest) subscribers.add(id);
  }
  return subscribers;
}
