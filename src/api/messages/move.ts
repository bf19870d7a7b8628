import { FLAG, type EditRecord, type MessageRecord, type PropagateMode } from '../../model/message.js';
import { received, setFlag, storedBits, userFlags, writeBits } from '../../model/read-state.js';
import type { RealmState } from '../../model/realm-state.js';
import { ROLE, type StreamRecord, type UserRecord } from '../../model/types.js';
import { flush, outbox, queueEvent, type Outbox } from '../../shard/outbox.js';
import type { Shard } from '../../shard/shard.js';
import type { HolderCache } from '../../store/flips.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { indexMessage, putMessage } from '../../store/messages.js';
import { activeSubscriberIds } from '../streams/access.js';
import { attachmentView, linkAttachments, notifyAttachments, type AttachmentLinks } from './attachments.js';
import { canAccessMessage } from './access.js';
import { channelHistory, receivedUserIds, rowUserIds, userMessageHolders } from './edit-audience.js';
import { nowSeconds, topicMessageIds } from './edit-rules.js';
import { sendMoveNotices } from './notices.js';
import { topicLinks, type Rendered } from './render.js';
import { topicParticipants } from './send.js';
import { groupMentionedUserIds } from '../user_groups/mentions.js';
import { carryVisibilityOnMove } from '../user-topics/moves.js';


/** A checked PATCH /messages/{id} (api/messages/edit.ts): what changes, and how. */
export interface EditPlan {
  msg: MessageRecord;
  propagateMode: PropagateMode;
  content?: { content: string; rendered: Rendered };
  /** The new topic, when it changes. */
  topic?: string;
  /** The new channel, when it changes. */
  stream?: StreamRecord;
  origStream: StreamRecord | null;
  resolved: boolean;
  unresolved: boolean;
  notifyOld: boolean;
  notifyNew: boolean;
}

/**
 * Called for every PATCH /messages/{id} before anything changes (so it can see the state before:
 * who was mentioned, who followed the topic); what it returns is called with the edit's batch
 * once the messages have changed, before the commit. The notifications of those who are away
 * (api/notify/) hook in here: a mention added by an edit, a move into a followed topic.
 */
export type UpdateHook = (shard: Shard, realm: RealmState, actor: UserRecord, plan: EditPlan) => ((batch: WriteBatch, target: MessageRecord, changedIds: number[]) => void) | void;
export const updateHooks: UpdateHook[] = [];

export interface UpdateResult {
  changedIds: number[];
  detachedUploads: Record<string, unknown>[];
}

const MENTION_BITS = FLAG.mentioned | FLAG.stream_wildcard_mentioned | FLAG.topic_wildcard_mentioned | FLAG.group_mentioned;

/** A user's mention bits for a message's content, as a send computes them (`groupMembers`: whom its group mentions reach). */
function mentionBits(userId: number, msg: MessageRecord, topicWildcardUsers: Set<number>, groupMembers: Set<number>): number {
  let bits = 0;
  if (msg.mentions.users.includes(userId) || groupMembers.has(userId)) bits |= FLAG.mentioned;
  if (msg.mentions.stream) bits |= FLAG.stream_wildcard_mentioned;
  if (topicWildcardUsers.has(userId) || (msg.mentions.topic && msg.kind === 'direct')) bits |= FLAG.topic_wildcard_mentioned;
  if (userId === msg.senderId) bits &= ~(FLAG.stream_wildcard_mentioned | FLAG.topic_wildcard_mentioned);
  return bits;
}

/**
 * New content on the target: rendered fields, the edit entry, and the receivers' mention bits.
 * Only users whose bits can change are visited: everyone who received it when a wildcard or
 * group mention is involved, else the users mentioned before or after.
 */
function applyContent(shard: Shard, realm: RealmState, out: Outbox, before: MessageRecord, after: MessageRecord, entry: EditRecord, content: NonNullable<EditPlan['content']>, now: number): void {
  const r = content.rendered;
  entry.prevContent = before.content;
  entry.prevRendered = before.rendered;
  Object.assign(after, {
    content: content.content,
    rendered: r.html,
    isMe: r.isMeMessage,
    hasLink: r.hasLink,
    hasImage: r.hasImage,
    hasAttachment: r.hasAttachment,
    mentions: { users: r.mentionedUserIds, groups: r.mentionedGroupIds, stream: r.wildcards.stream, topic: r.wildcards.topic },
    lastEditTs: now,
  });
  const receivers = receivedUserIds(realm, after);
  const broad = [before, after].some((m) => m.mentions.stream || m.mentions.topic || m.mentions.groups.length > 0);
  const candidates = broad ? receivers : new Set([...before.mentions.users, ...after.mentions.users].filter((id) => receivers.has(id)));
  // Alert words are matched anew, as the reference's update_user_message_flags does: the users
  // matched now, and those whose row has the flag from before.
  const alerted = new Set(r.alertedUserIds.filter((id) => receivers.has(id)));
  for (const id of alerted) candidates.add(id);
  for (const id of rowUserIds(shard, realm, after.id)) if (storedBits(shard, realm, id, after.id) & FLAG.has_alert_word) candidates.add(id);
  const topicUsers = after.kind === 'stream' && after.mentions.topic ? topicParticipants(shard, realm, after.streamId!, after.topic) : new Set<number>();
  const groupMembers = groupMentionedUserIds(realm, after.mentions.groups);
  for (const userId of candidates) {
    const stored = storedBits(shard, realm, userId, after.id);
    const alert = alerted.has(userId) ? FLAG.has_alert_word : 0;
    writeBits(shard, out.batch, realm, userId, after.id, stored, (stored & ~(MENTION_BITS | FLAG.has_alert_word)) | mentionBits(userId, after, topicUsers, groupMembers) | alert);
  }
}

/**
 * Who holds a moved message after a move between channels (MessageRecord.receivers), after the
 * reference: users who had it keep it, unread state and all, if they are subscribed to the new
 * channel (or were never in the old one, like a sender who was not subscribed); the others lose
 * it, flags and all. A channel with protected history gives it, as read, to all its subscribers,
 * since subscribers there see only what they hold. `losingAccess` are the users to whom the move
 * looks like a deletion.
 *
 * One addition: users whose subscription history in the new channel covers the message's id
 * hold it too, as read. The reference leaves them without it (they see it as read history); but
 * the unread and narrow code here derives "received" from those intervals, and a message it
 * listed as unread that the user did not hold could never be marked read.
 */
function receiverShift(realm: RealmState, from: StreamRecord, to: StreamRecord) {
  const history = channelHistory(realm, from.id);
  const newHistory = channelHistory(realm, to.id);
  const everInOld = new Set([...history.map(([id]) => id), ...realm.subscriberIds(from.id)]);
  const inNew = realm.subscriberIds(to.id);
  const losing = new Set([...everInOld].filter((id) => !inNew.has(id)));
  const gaining = to.inviteOnly && !to.historyPublicToSubscribers ? [...inNew] : [];
  const losingAccess = to.inviteOnly ? losing : new Set([...losing].filter((id) => realm.users.get(id)?.role === ROLE.guest));
  // Who holds a flip, read once per block of ids for the whole move (shiftReceivers).
  const flipCache: HolderCache = new Map();
  return { history, newHistory, losing, gaining, losingAccess, flipCache };
}

/** The messages a change_later or change_all move takes along with the target. */
function propagated(shard: Shard, realm: RealmState, actor: UserRecord, plan: EditPlan): MessageRecord[] {
  if (plan.propagateMode === 'change_one') return [];
  const target = plan.msg;
  const out: MessageRecord[] = [];
  for (const id of topicMessageIds(shard, realm, plan.origStream!.id, target.topic)) {
    if (id === target.id || (plan.propagateMode === 'change_later' && id < target.id)) continue;
    const msg = shard.read<MessageRecord>(shard.store.messages, id);
    // Moving to another channel takes only what the actor can see: a move must not expose a
    // protected history.
    if (msg && (plan.stream === undefined || canAccessMessage(realm, actor, msg))) out.push(msg);
  }
  return out;
}

/**
 * Applies a checked edit: content (target only), topic and channel (the target and, by
 * propagate_mode, the rest of its topic), with an edit_history entry on every changed message,
 * in one transaction. Then update_message (with each user's flags) to those who had the
 * messages and to the channel's subscribers when its history is shared, delete_message to those
 * a channel move locks out, and the notices.
 */
export async function doUpdateMessage(shard: Shard, realm: RealmState, actor: UserRecord, plan: EditPlan): Promise<UpdateResult> {
  const now = nowSeconds();
  const out = outbox(shard);
  const before = plan.msg;
  const topicEdited = plan.topic !== undefined;
  const streamEdited = plan.stream !== undefined;
  const moved = topicEdited || streamEdited;
  const toggled = plan.resolved || plan.unresolved;
  const newTopic = plan.topic ?? before.topic;
  const holders = userMessageHolders(shard, realm, before);
  const afterHooks = updateHooks.map((hook) => hook(shard, realm, actor, plan));

  const originals = [before, ...(moved ? propagated(shard, realm, actor, plan) : [])];
  const shift = streamEdited ? receiverShift(realm, plan.origStream!, plan.stream!) : null;
  let links: AttachmentLinks = { changed: [], detached: [] };
  const updatedById = new Map<number, MessageRecord>();
  for (const orig of originals) {
    const entry: EditRecord = { userId: actor.id, timestamp: now };
    const next: MessageRecord = { ...orig, edits: orig.edits };
    if (orig === before && plan.content) {
      applyContent(shard, realm, out, before, next, entry, plan.content, now);
      links = linkAttachments(shard, out.batch, realm, next);
    }
    if (streamEdited) {
      entry.prevStream = orig.streamId!;
      entry.stream = plan.stream!.id;
      next.streamId = plan.stream!.id;
    }
    if (topicEdited) {
      entry.prevTopic = orig.topic;
      entry.topic = newTopic;
      next.topic = newTopic;
    }
    // A pure resolve or unresolve is not a move (last_moved_timestamp stays).
    if (streamEdited || (topicEdited && !toggled)) next.lastMovedTs = now;
    next.edits = [...orig.edits, entry];
    if (shift) shiftReceivers(shard, realm, out, orig, next, shift);
    indexMessage(shard, out.batch, orig, false);
    indexMessage(shard, out.batch, next, true);
    putMessage(shard, out.batch, next);
    updatedById.set(next.id, next);
  }
  const target = updatedById.get(before.id)!;
  const changedIds = [...updatedById.keys()].sort((a, b) => a - b);

  if (shift && shift.losingAccess.size > 0) {
    queueEvent(out, { type: 'delete_message', message_ids: changedIds, message_type: 'stream', stream_id: plan.origStream!.id, topic: before.topic }, activeOnly(realm, shift.losingAccess));
  }
  if (moved) {
    carryVisibilityOnMove(shard, realm, { batch: out.batch, emit: (event, ids) => queueEvent(out, event, ids) }, {
      actor,
      target: before,
      origStream: plan.origStream!,
      origTopic: before.topic,
      newStream: plan.stream ?? plan.origStream!,
      newTopic,
      propagateMode: plan.propagateMode,
      changedIds: new Set(changedIds),
      streamEdited,
      losingAccess: shift?.losingAccess ?? new Set(),
    });
  }
  queueUpdateEvents(shard, realm, out, actor, plan, before, target, changedIds, holders, shift?.losing ?? new Set(), shift?.losingAccess ?? new Set(), now);
  notifyAttachments(shard, out.batch, realm, links);
  for (const after of afterHooks) after?.(out.batch, target, changedIds);
  await flush(shard, realm, out);

  if (moved) {
    await sendMoveNotices(shard, realm, actor, {
      target,
      origStream: plan.origStream!,
      origTopic: before.topic,
      newStream: plan.stream ?? plan.origStream!,
      newTopic,
      changedIds,
      propagateMode: plan.propagateMode,
      topicEdited,
      streamEdited,
      contentEdited: plan.content !== undefined,
      resolved: plan.resolved,
      unresolved: plan.unresolved,
      notifyOld: plan.notifyOld,
      notifyNew: plan.notifyNew,
    });
  }
  return { changedIds, detachedUploads: links.detached.filter((a) => a.ownerId === actor.id).map(attachmentView) };
}

/** Fixes who holds a message moved between channels (receiverShift), and their rows. */
function shiftReceivers(shard: Shard, realm: RealmState, out: Outbox, orig: MessageRecord, next: MessageRecord, shift: ReturnType<typeof receiverShift>): void {
  const had = receivedUserIds(realm, orig, shift.history);
  const covered = shift.newHistory.filter(([, intervals]) => intervals.some(([first, last]) => orig.id >= first && (last === null || orig.id <= last))).map(([id]) => id);
  const gaining = [...shift.gaining, ...covered].filter((id) => !had.has(id));
  const holders = new Set([...had].filter((id) => !shift.losing.has(id)));
  for (const id of [...covered, ...gaining]) holders.add(id);
  next.receivers = [...holders].sort((a, b) => a - b);
  for (const userId of rowUserIds(shard, realm, orig.id, shift.flipCache)) {
    if (!holders.has(userId) && shift.losing.has(userId)) writeBits(shard, out.batch, realm, userId, orig.id, storedBits(shard, realm, userId, orig.id), 0);
  }
  for (const userId of new Set(gaining)) setFlag(shard, out.batch, realm, userId, next, 'read', true);
}

function activeOnly(realm: RealmState, ids: Iterable<number>): number[] {
  return [...ids].filter((id) => realm.users.get(id)?.isActive);
}

/**
 * update_message, in the reference's shape, to the users who held the target (minus those a
 * channel move took it from) with their own flags, and, when the channel's history is shared, to
 * its subscribers with ["read"]. Users are grouped by flags: one event per distinct list.
 */
function queueUpdateEvents(
  shard: Shard,
  realm: RealmState,
  out: Outbox,
  actor: UserRecord,
  plan: EditPlan,
  before: MessageRecord,
  target: MessageRecord,
  changedIds: number[],
  holders: Set<number>,
  losing: Set<number>,
  losingAccess: Set<number>,
  now: number,
): void {
  const event: Record<string, unknown> = { type: 'update_message', user_id: actor.id, edit_timestamp: now, message_id: target.id, message_ids: changedIds, rendering_only: false };
  if (plan.content) {
    Object.assign(event, { orig_content: before.content, orig_rendered_content: before.rendered, content: target.content, rendered_content: target.rendered, is_me_message: target.isMe });
  }
  const orig = plan.origStream;
  if (orig) {
    event.stream_name = orig.name;
    event.stream_id = orig.id;
  }
  if (plan.topic !== undefined || plan.stream !== undefined) {
    event.propagate_mode = plan.propagateMode;
    event.orig_subject = before.topic;
  }
  if (plan.stream) event.new_stream_id = plan.stream.id;
  if (plan.topic !== undefined) {
    event.subject = plan.topic;
    event.topic_links = topicLinks(realm, plan.topic);
  }

  const flagsByUser = new Map<number, string[]>();
  for (const id of holders) if (!losing.has(id)) flagsByUser.set(id, userFlags(shard, realm, id, target));
  if (orig?.historyPublicToSubscribers) {
    const newSubs = activeSubscriberIds(realm, target.streamId!);
    const extra = new Set(newSubs);
    if (plan.stream) {
      const oldSubs = new Set(activeSubscriberIds(realm, orig.id));
      // Guests who can see only the new channel would get an edit for a message they never had.
      for (const id of newSubs) if (!oldSubs.has(id) && realm.users.get(id)?.role === ROLE.guest) extra.delete(id);
      for (const id of oldSubs) extra.add(id);
      for (const id of losingAccess) extra.delete(id);
    }
    for (const id of extra) if (!flagsByUser.has(id)) flagsByUser.set(id, received(realm, id, target) ? userFlags(shard, realm, id, target) : ['read']);
  }
  const groups = new Map<string, number[]>();
  for (const id of activeOnly(realm, flagsByUser.keys())) {
    const key = JSON.stringify(flagsByUser.get(id));
    groups.set(key, [...(groups.get(key) ?? []), id]);
  }
  for (const [key, userIds] of groups) queueEvent(out, { ...event, type: 'update_message', flags: JSON.parse(key) }, userIds);
}
