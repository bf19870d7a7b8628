import { dmKey, EMPTY_TOPIC_DISPLAY_NAME, type MessageRecord } from '../../model/message.js';
import { flagNames, pageFlagBits, userFlags } from '../../model/read-state.js';
import type { RealmState } from '../../model/realm-state.js';
import { realmSetting } from '../../model/realm-settings.js';
import type { RealmRecord, UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { avatarUrl } from '../users/views.js';
import { topicLinks } from './render.js';
import { submessagesOf } from '../../store/submessages.js';

export interface MessageViewOptions {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  /** Without it, the empty topic reads as realm_empty_topic_display_name. */
  allowEmptyTopicName: boolean;
}


/** The topic as a client sees it. */
export function shownTopic(topic: string, allowEmpty: boolean): string {
  return topic === '' && !allowEmpty ? EMPTY_TOPIC_DISPLAY_NAME : topic;
}

/**
 * Recipient ids, stable and distinct within a realm: 3k for channel k, 3k+1 for user k's personal
 * recipient, 3k+2 for direct-message group k (allocated per participant set on first send).
 * Since feature level 327 a 1:1 conversation has one recipient id in both directions: the other
 * participant's personal recipient, as seen by the viewer.
 */
export function recipientId(shard: Shard, realm: RealmState, msg: MessageRecord, viewerId: number): number {
  if (msg.kind === 'stream') return 3 * msg.streamId!;
  const others = msg.dm!.filter((id) => id !== viewerId);
  if (msg.dm!.length <= 2) return 3 * (others[0] ?? viewerId) + 1;
  return 3 * (shard.read<number>(shard.store.meta, dmGroupKey(realm.id, msg.dm!)) ?? 0) + 2;
}

export function dmGroupKey(realmId: number, participants: number[]): string {
  return `dmgroup:${realmId}:${dmKey(participants)}`;
}

function displayRecipient(realm: RealmState, msg: MessageRecord): unknown {
  if (msg.kind === 'stream') return realm.streams.get(msg.streamId!)?.name ?? '';
  return msg.dm!.map((id) => {
    const u = realm.users.get(id);
    return { id, email: u?.email ?? '', full_name: u?.fullName ?? '', is_mirror_dummy: false };
  });
}

/**
 * The reference's edit_history entries, newest first. Under message_edit_history_visibility_policy
 * `moves`, content edits are left out (and the content part of an edit that also moved).
 */
export function editHistoryView(msg: MessageRecord, policy: unknown = 'all', allowEmptyTopicName = true): Record<string, unknown>[] {
  const movesOnly = policy === 'moves';
  const edits = movesOnly ? msg.edits.filter((e) => e.prevTopic !== undefined || e.prevStream !== undefined) : msg.edits;
  return [...edits].reverse().map((e) => {
    const entry: Record<string, unknown> = { user_id: e.userId, timestamp: e.timestamp };
    if (e.prevContent !== undefined && !movesOnly) {
      entry.prev_content = e.prevContent;
      entry.prev_rendered_content = e.prevRendered;
    }
    if (e.prevStream !== undefined) {
      entry.prev_stream = e.prevStream;
      entry.stream = e.stream;
    }
    if (e.prevTopic !== undefined) {
      entry.prev_topic = shownTopic(e.prevTopic, allowEmptyTopicName);
      entry.topic = shownTopic(e.topic ?? '', allowEmptyTopicName);
    }
    return entry;
  });
}

/** A message as `viewer` sees it (the reference's Message object), without flags. */
export function messageView(shard: Shard, realm: RealmState, viewer: UserRecord, msg: MessageRecord, opts: MessageViewOptions): Record<string, unknown> {
  const sender = realm.users.get(msg.senderId);
  const topic = shownTopic(msg.topic, opts.allowEmptyTopicName);
  const view: Record<string, unknown> = {
    id: msg.id,
    sender_id: msg.senderId,
    content: opts.applyMarkdown ? msg.rendered : msg.content,
    recipient_id: recipientId(shard, realm, msg, viewer.id),
    timestamp: msg.timestamp,
    client: msg.client,
    subject: msg.kind === 'stream' ? topic : '',
    topic_links: msg.kind === 'stream' ? topicLinks(realm, msg.topic) : [],
    is_me_message: msg.isMe,
    reactions: msg.reactions.map((r) => ({ emoji_name: r.emojiName, emoji_code: r.emojiCode, reaction_type: r.reactionType, user_id: r.userId })),
    submessages: submessagesOf(shard, msg).map((s) => ({ msg_type: s.msgType, content: s.content, message_id: msg.id, sender_id: s.senderId, id: s.id })),
    sender_full_name: sender?.fullName ?? '',
    sender_email: sender?.email ?? '',
    sender_realm_str: realm.realm.subdomain,
    display_recipient: displayRecipient(realm, msg),
    type: msg.kind === 'stream' ? 'stream' : 'private',
    avatar_url: sender ? avatarUrl(sender, opts.clientGravatar) : null,
    content_type: opts.applyMarkdown ? 'text/html' : 'text/x-markdown',
  };
  if (msg.kind === 'stream') view.stream_id = msg.streamId;
  const historyPolicy = realmSetting(realm, 'message_edit_history_visibility_policy');
  if (msg.edits.length > 0 && historyPolicy !== 'none') view.edit_history = editHistoryView(msg, historyPolicy, opts.allowEmptyTopicName);
  if (msg.lastEditTs !== null) view.last_edit_timestamp = msg.lastEditTs;
  if (msg.lastMovedTs !== null) view.last_moved_timestamp = msg.lastMovedTs;
  return view;
}

interface CachedView {
  /** The realm record it was made under: linkifiers and settings replace the record. */
  realm: RealmRecord;
  /** Sender and channel fields shown in the view, which change in place: compared one by one. */
  fullName: string | undefined;
  email: string | undefined;
  avatar: string | undefined;
  avatarVersion: number | undefined;
  channel: string | undefined;
  /** The view's JSON without its closing brace, followed by `,"flags":`, flattened. */
  head: string;
}

/**
 * Channel messages' views as JSON, per option set, for as long as their record lives (the shard
 * keeps recent records decoded, store/shard-store.ts; an edit makes a new record). A channel
 * message looks the same to every viewer but for its flags, so a history read of cached messages
 * splices each one's flags into its JSON instead of building and serialising it again.
 */
const viewCache = new WeakMap<MessageRecord, (CachedView | undefined)[]>();

/**
 * The JSON of each flag set with the message's closing brace, by its bits: a page has a handful
 * of distinct sets (read, read and starred...), and naming and serialising them per message
 * showed in P5's profile. Cleared when it grows past what any realm's mix of flags makes.
 */
const flagsTail = new Map<number, string>();

function flagsTailOf(bits: number): string {
  let json = flagsTail.get(bits);
  if (json === undefined) {
    if (flagsTail.size >= 1024) flagsTail.clear();
    flagsTail.set(bits, (json = `${JSON.stringify(flagNames(bits))}}`));
  }
  return json;
}

/** flagsTail's strings followed by the comma between two messages: one piece less per message. */
const flagsTailComma = new Map<number, string>();

function flagsTailCommaOf(bits: number): string {
  let json = flagsTailComma.get(bits);
  if (json === undefined) {
    if (flagsTailComma.size >= 1024) flagsTailComma.clear();
    flagsTailComma.set(bits, (json = `${flagsTailOf(bits)},`));
  }
  return json;
}

/**
 * A page of messages as the JSON array GET /messages answers, in pieces for RawJson.pieces (each
 * a flat string: the cached heads, the flags' tails, no string made per message); `stored` holds
 * the viewer's stored bits of the page (storedBitsOf). The array of pieces is made at its size:
 * pushing 200 pieces grew it step by step, a copy each time. What is looked up once per message
 * in general (the read mark, the channel's subscription intervals and name) is looked up once
 * per channel of the page.
 */
export function pageJson(shard: Shard, realm: RealmState, viewer: UserRecord, msgs: MessageRecord[], opts: MessageViewOptions, stored: Map<number, number>): string[] {
  const bitsOf = pageFlagBits(realm, viewer.id);
  const out = new Array<string>(2 * msgs.length + 2);
  out[0] = '[';
  let n = 1;
  const slot = (opts.applyMarkdown ? 1 : 0) | (opts.clientGravatar ? 2 : 0) | (opts.allowEmptyTopicName ? 4 : 0);
  let streamId = -1;
  let channel: string | undefined;
  for (let i = 0; i < msgs.length; i++) {
    const msg = msgs[i];
    const last = i === msgs.length - 1;
    if (msg.kind !== 'stream') {
      out[n++] = JSON.stringify(messageWithFlags(shard, realm, viewer, msg, opts));
      if (!last) out[n++] = ',';
      continue;
    }
    if (msg.streamId !== streamId) {
      streamId = msg.streamId!;
      channel = realm.streams.get(streamId)?.name;
    }
    const bits = bitsOf(msg, stored.get(msg.id) ?? 0);
    out[n++] = cachedHead(shard, realm, viewer, msg, opts, slot, channel);
    out[n++] = last ? flagsTailOf(bits) : flagsTailCommaOf(bits);
  }
  out[n++] = ']';
  out.length = n;
  return out;
}

/** A channel message's view as JSON up to its flags (CachedView.head), made when it is not cached or is out of date. */
function cachedHead(shard: Shard, realm: RealmState, viewer: UserRecord, msg: MessageRecord, opts: MessageViewOptions, slot: number, channel: string | undefined): string {
  const sender = realm.users.get(msg.senderId);
  let slots = viewCache.get(msg);
  if (!slots) viewCache.set(msg, (slots = []));
  let cached = slots[slot];
  // Field by field rather than a stamp string made per message: no allocation on a hit.
  if (
    !cached ||
    cached.realm !== realm.realm ||
    cached.fullName !== sender?.fullName ||
    cached.email !== sender?.email ||
    cached.avatar !== sender?.avatarSource ||
    cached.avatarVersion !== sender?.avatarVersion ||
    cached.channel !== channel
  ) {
    // Serialised with a stand-in for the flags, then cut before it: a slice of one flat string,
    // which the page's join copies directly (a concatenation would be flattened on every page).
    const json = JSON.stringify({ ...messageView(shard, realm, viewer, msg, opts), flags: 0 });
    cached = slots[slot] = {
      realm: realm.realm,
      fullName: sender?.fullName,
      email: sender?.email,
      avatar: sender?.avatarSource,
      avatarVersion: sender?.avatarVersion,
      channel,
      head: json.slice(0, -2),
    };
  }
  return cached.head;
}

/** The view with the viewer's flags, as GET /messages and GET /messages/{id} return it. */
export function messageWithFlags(shard: Shard, realm: RealmState, viewer: UserRecord, msg: MessageRecord, opts: MessageViewOptions): Record<string, unknown> {
  return { ...messageView(shard, realm, viewer, msg, opts), flags: userFlags(shard, realm, viewer.id, msg) };
}
