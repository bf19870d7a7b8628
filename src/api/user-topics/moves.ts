import { topicKey, type MessageRecord } from '../../model/message.js';
import type { RealmState } from '../../model/realm-state.js';
import { VISIBILITY, type VisibilityPolicy } from '../../model/user-topics.js';
import type { StreamRecord, UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { getMessage, idsUnder } from '../../store/messages.js';
import { canAccessMessage } from '../messages/access.js';
import { setTopicVisibility, type VisibilitySink } from './actions.js';
import { applyInitiationPolicy } from './automatic.js';

/**
 * Topic visibility follows a moved topic, after the reference's do_update_message. When the move
 * takes the whole topic as the actor sees it (change_all, or nothing visible left behind), each
 * user's policy moves to the new topic; when that topic already had messages, the two policies
 * merge into the more visible one (followed > unmuted > none > muted). Users to whom the move
 * is a deletion (they cannot see the new channel) just lose their policy. A partial move that
 * makes its message the first of the new topic counts as its sender starting that topic.
 */
export interface MoveVisibility {
  actor: UserRecord;
  /** The moved message the request named, as it was. */
  target: MessageRecord;
  origStream: StreamRecord;
  origTopic: string;
  newStream: StreamRecord;
  newTopic: string;
  propagateMode: 'change_one' | 'change_later' | 'change_all';
  /** Every moved message. */
  changedIds: Set<number>;
  streamEdited: boolean;
  /** Users who lose access to the moved messages (a move to a channel they cannot read). */
  losingAccess: Set<number>;
}

/** The reference's get_visibility_policy_after_merge: whichever shows more wins. */
function merged(a: VisibilityPolicy, b: VisibilityPolicy): VisibilityPolicy {
  const both = new Set([a, b]);
  if (both.has(VISIBILITY.followed)) return VISIBILITY.followed;
  if (both.has(VISIBILITY.unmuted)) return VISIBILITY.unmuted;
  if (both.has(VISIBILITY.inherit)) return VISIBILITY.inherit;
  return VISIBILITY.muted;
}

/** The committed messages of a topic other than the moved ones, oldest first. */
function* othersInTopic(shard: Shard, realm: RealmState, stream: StreamRecord, topic: string, moved: Set<number>): Generator<MessageRecord> {
  for (const id of [...idsUnder(shard.store.byTopic, [realm.id, stream.id, topicKey(topic)])]) {
    if (moved.has(id)) continue;
    const msg = getMessage(shard, realm, id);
    if (msg) yield msg;
  }
}

/** Records the visibility changes of a move; call it while the move's writes are pending. */
export function carryVisibilityOnMove(shard: Shard, realm: RealmState, sink: VisibilitySink, move: MoveVisibility): void {
  const { origStream, origTopic, newStream, newTopic } = move;
  // A rename that only changes case keeps the same (case-insensitive) records.
  if (origStream.id === newStream.id && topicKey(origTopic) === topicKey(newTopic)) return;
  let movedAll = move.propagateMode === 'change_all';
  if (!movedAll) {
    movedAll = true;
    for (const msg of othersInTopic(shard, realm, origStream, origTopic, move.changedIds)) {
      if (canAccessMessage(realm, move.actor, msg)) {
        movedAll = false;
        break;
      }
    }
  }
  if (!movedAll) {
    const sender = realm.users.get(move.target.senderId);
    if (!sender || sender.isBot || move.losingAccess.has(sender.id)) return;
    // Judged by what the sender can see, so as not to reveal an older, protected history.
    let first: MessageRecord | undefined;
    for (const msg of othersInTopic(shard, realm, newStream, newTopic, move.changedIds)) {
      if (canAccessMessage(realm, sender, msg)) {
        first = msg;
        break;
      }
    }
    if (!first || move.target.id < first.id) applyInitiationPolicy(shard, realm, sink, sender, newStream, newTopic);
    return;
  }

  const targetHadMessages = !othersInTopic(shard, realm, newStream, newTopic, move.changedIds).next().done;
  const before = new Map<number, VisibilityPolicy>();
  const lockedOut: number[] = [];
  for (const r of realm.userTopics.ofTopic(origStream.id, origTopic)) {
    if (move.streamEdited && move.losingAccess.has(r.userId)) lockedOut.push(r.userId);
    else before.set(r.userId, r.policy);
  }
  const atTarget = new Map<number, VisibilityPolicy>();
  for (const r of realm.userTopics.ofTopic(newStream.id, newTopic)) atTarget.set(r.userId, r.policy);

  setTopicVisibility(shard, realm, sink, lockedOut, origStream, origTopic, VISIBILITY.inherit);
  const pairs = new Map<string, number[]>();
  for (const userId of new Set([...before.keys(), ...atTarget.keys()])) {
    const key = `${before.get(userId) ?? VISIBILITY.inherit},${atTarget.get(userId) ?? VISIBILITY.inherit}`;
    pairs.set(key, [...(pairs.get(key) ?? []), userId]);
  }
  for (const [key, userIds] of pairs) {
    const [orig, target] = key.split(',').map(Number) as [VisibilityPolicy, VisibilityPolicy];
    const next = targetHadMessages ? merged(orig, target) : orig;
    // The new topic's event, when one follows, carries the final muted_topics list. (The
    // reference skips the legacy event even when none follows, leaving it stale.)
    const skipMutedTopicsEvent = next !== target;
    if (orig !== VISIBILITY.inherit) setTopicVisibility(shard, realm, sink, userIds, origStream, origTopic, VISIBILITY.inherit, { skipMutedTopicsEvent });
    if (next !== target) setTopicVisibility(shard, realm, sink, userIds, newStream, newTopic, next);
  }
}
