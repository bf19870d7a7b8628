/**
 * Stored records of what each user keeps for themself: drafts, saved snippets, and messages
 * scheduled for later (scheduled messages and reminders). Views in src/api/drafts,
 * src/api/saved-snippets and src/api/scheduled-messages give their reference shapes.
 */

/** drafts [realmId, userId, id]. */
export interface DraftRecord {
  id: number;
  /** '' for an unaddressed draft. */
  type: '' | 'stream' | 'private';
  /** One channel id, or the other participants' ids (the user's own for a draft to self), or []. */
  to: number[];
  /** '' unless type is 'stream'. */
  topic: string;
  content: string;
  /** Seconds: when it was last edited, as the client says. */
  timestamp: number;
}

/** snippets [realmId, userId, id]. */
/** A navigation view (api/navigation-views/): built-in ones have no name. */
export interface NavigationViewRecord {
  /** Creation order, for listing. */
  id: number;
  fragment: string;
  isPinned: boolean;
  name: string | null;
}

export interface SavedSnippetRecord {
  id: number;
  title: string;
  content: string;
  /** Seconds. */
  dateCreated: number;
}

/**
 * scheduled [realmId, senderId, id]: a scheduled message or a reminder (the reference keeps both
 * in one table, told apart by delivery_type). Its delivery is a durable job, `sm:<realm>:<id>`.
 */
export interface ScheduledMessageRecord {
  id: number;
  realmId: number;
  senderId: number;
  kind: 'send_later' | 'remind';
  type: 'stream' | 'private';
  /** Channel messages only. */
  streamId: number | null;
  /** '' for direct messages. */
  topic: string;
  /** Direct messages: the other participants, ascending, or only the sender for a message to self. */
  to: number[];
  content: string;
  rendered: string;
  /** The client that scheduled or last edited it, which the message is sent as. */
  client: string;
  /** Seconds. */
  deliverAt: number;
  readBySender: boolean;
  failed: boolean;
  failureMessage: string | null;
  /** Set once sent: the sent message's id. Delivered records are kept, as the reference keeps them. */
  deliveredMessageId: number | null;
  /** Reminders: the message reminded of, and the note. */
  reminderTargetMessageId?: number;
  reminderNote?: string | null;
}

/**
 * `to` of a direct draft or scheduled message, as the reference derives it from the recipient:
 * the other participants, ascending; only the sender when the message is to themself.
 */
export function directTo(senderId: number, userIds: number[]): number[] {
  const others = [...new Set(userIds)].filter((id) => id !== senderId).sort((a, b) => a - b);
  return others.length > 0 ? others : [senderId];
}
