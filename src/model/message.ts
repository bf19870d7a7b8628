
/** realm_empty_topic_display_name: what clients without empty-topic support see instead of ''. */
export const EMPTY_TOPIC_DISPLAY_NAME = 'general chat';

/** Which messages of a topic an edit moves: the one, it and those after it, or all. */
export type PropagateMode = 'change_one' | 'change_later' | 'change_all';

/** A stored message. Views in src/api/messages/views.ts give the reference's Message shape. */
export interface MessageRecord {
  id: number;
  realmId: number;
  senderId: number;
  kind: 'stream' | 'direct';
  /** Channel messages only. */
  streamId: number | null;
  /** '' for direct messages; may be '' for channel messages too (the empty topic). */
  topic: string;
  /** Direct messages: every participant, sender included, ascending. */
  dm: number[] | null;
  content: string;
  rendered: string;
  client: string;
  /** Seconds. */
  timestamp: number;
  isMe: boolean;
  hasLink: boolean;
  hasImage: boolean;
  hasAttachment: boolean;
  /** What the renderer found; the flags of each recipient derive from it. */
  mentions: { users: number[]; groups: number[]; stream: boolean; topic: boolean };
  reactions: ReactionRecord[];
  /** Oldest first; served newest first. */
  edits: EditRecord[];
  lastEditTs: number | null;
  lastMovedTs: number | null;
  /**
   * Set when the message was moved to another channel: exactly who has received it from then on
   * (ascending ids), replacing the derivation from subscription history, which no longer fits
   * once the channel changed (model/read-state.ts received(), api/messages/move.ts).
   */
  receivers?: number[];
  /**
   * How many submessages (widget state: poll votes, to-do items) the message has; they live in
   * their own table (store/submessages.ts), and this count changes the record with each one, so
   * that views cached by record (api/messages/views.ts) are rebuilt. Absent: none.
   */
  submessageCount?: number;
}

/** One submessage: the reference's SubMessage row (its message is the key's first part). */
export interface SubmessageRecord {
  id: number;
  senderId: number;
  msgType: string;
  content: string;
}

export interface ReactionRecord {
  emojiName: string;
  emojiCode: string;
  reactionType: 'unicode_emoji' | 'realm_emoji' | 'zulip_extra_emoji';
  userId: number;
}

export interface EditRecord {
  userId: number | null;
  timestamp: number;
  prevContent?: string;
  prevRendered?: string;
  prevStream?: number;
  stream?: number;
  prevTopic?: string;
  topic?: string;
}

/** The reference's UserMessage flag bits, the ones the API shows. */
export const FLAG = {
  read: 1,
  starred: 2,
  collapsed: 4,
  mentioned: 8,
  stream_wildcard_mentioned: 16,
  topic_wildcard_mentioned: 32,
  group_mentioned: 64,
  has_alert_word: 512,
  historical: 1024,
} as const;
export type FlagName = keyof typeof FLAG;

/**
 * Our own bit, never shown: the user's read state of this message is the opposite of what their
 * read watermark says (model/read-state.ts). Stored as a set of ids (store/flips.ts), not in the
 * uflags row; the stored bits that read-state.ts hands out carry it.
 */
export const READ_FLIP = 1 << 20;

/**
 * Our own bits for the notifications of people who are away (api/notify/), never shown: an
 * email notice was recorded for this user and message (so a later trigger, such as the garbage
 * collection of their last event queue, does not notify again), and a mobile notification of it
 * is on their devices (so reading or deleting it sends a removal: the reference's
 * active_mobile_push_notification).
 */
export const EMAIL_NOTIFIED = 1 << 21;
export const ACTIVE_PUSH = 1 << 22;

/** Flags whose messages are found through the uflagIdx index (narrows is:starred, is:mentioned...). */
export const INDEXED_FLAGS: Record<string, number> = {
  starred: FLAG.starred,
  mentioned: FLAG.mentioned | FLAG.stream_wildcard_mentioned | FLAG.topic_wildcard_mentioned | FLAG.group_mentioned,
  alerted: FLAG.has_alert_word,
  push: ACTIVE_PUSH,
};

/** `1,5,9`: the key of a direct-message conversation, also its recipient identity. */
export function dmKey(participants: number[]): string {
  return [...new Set(participants)].sort((a, b) => a - b).join(',');
}

export function topicKey(topic: string): string {
  return topic.toLowerCase();
}
