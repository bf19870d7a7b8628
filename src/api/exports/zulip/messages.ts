import { READ_FLIP, type MessageRecord } from '../../../model/message.js';
import { flagBits, storedBitsBetween } from '../../../model/read-state.js';
import type { RealmState } from '../../../model/realm-state.js';
import type { StoreView } from '../../../store/shard-store.js';
import { submessagesOf } from '../../../store/submessages.js';
import type { Recipients, Row } from './tables.js';

/**
 * Messages in the reference's export format: zerver_message rows, and the zerver_usermessage
 * rows the reference keeps per recipient, made here from Stoa's sparse state (model/read-state
 * .ts): everyone who received a message gets a row with their flags (read from the watermark
 * and flips), and people with flags on messages they did not receive get a `historical` row.
 */
const IS_PRIVATE = 2048;

export interface ExportedMessages {
  messages: Row[];
  usermessages: Row[];
  reactions: Row[];
  submessages: Row[];
}

/** The reference's edit_history: newest first, JSON text. */
function editHistory(m: MessageRecord): string | null {
  if (m.edits.length === 0) return null;
  const entries = [...m.edits].reverse().map((e) => {
    const entry: Row = { user_id: e.userId, timestamp: e.timestamp };
    if (e.prevContent !== undefined) Object.assign(entry, { prev_content: e.prevContent, prev_rendered_content: e.prevRendered ?? '', prev_rendered_content_version: 1 });
    if (e.prevStream !== undefined) Object.assign(entry, { prev_stream: e.prevStream, stream: e.stream });
    if (e.prevTopic !== undefined) Object.assign(entry, { prev_topic: e.prevTopic, topic: e.topic });
    return entry;
  });
  return JSON.stringify(entries);
}

/**
 * One file's worth of messages. `users` are the people whose flags go in (all, or only those
 * who consented); `received(msg)` lists who received a message.
 */
export function exportMessages(shard: StoreView, realm: RealmState, msgs: MessageRecord[], recipients: Recipients, clients: Map<string, number>, users: number[], received: (m: MessageRecord) => number[]): ExportedMessages {
  const out: ExportedMessages = { messages: [], usermessages: [], reactions: [], submessages: [] };
  if (msgs.length === 0) return out;
  const min = msgs[0].id;
  const max = msgs[msgs.length - 1].id;
  const wanted = new Set(users);
  // Each user's stored bits over the file's range: one range read per user with any.
  const stored = new Map<number, Map<number, number>>();
  for (const userId of users) {
    const rows = storedBitsBetween(shard, realm, userId, min, max);
    if (rows.size > 0) stored.set(userId, rows);
  }
  for (const m of msgs) {
    if (!clients.has(m.client)) clients.set(m.client, clients.size + 1);
    out.messages.push({
      id: m.id,
      sender: m.senderId,
      recipient: m.kind === 'stream' ? recipients.ofChannel(m.streamId!) : recipients.ofDm(m.senderId, m.dm!),
      realm: realm.id,
      subject: m.topic,
      content: m.content,
      rendered_content: m.rendered,
      rendered_content_version: 1,
      date_sent: m.timestamp,
      sending_client: clients.get(m.client),
      last_edit_time: m.lastEditTs,
      edit_history: editHistory(m),
      has_attachment: m.hasAttachment,
      has_image: m.hasImage,
      has_link: m.hasLink,
      is_channel_message: m.kind === 'stream',
      type: 1,
    });
    const rows = new Map<number, number>();
    for (const userId of received(m)) {
      if (!wanted.has(userId)) continue;
      rows.set(userId, flagBits(shard, realm, userId, m, stored.get(userId)?.get(m.id) ?? 0));
    }
    for (const [userId, bits] of stored) {
      const own = bits.get(m.id);
      if (own === undefined || rows.has(userId)) continue;
      rows.set(userId, flagBits(shard, realm, userId, m, own));
    }
    for (const [userId, bits] of rows) out.usermessages.push({ id: out.usermessages.length + 1, user_profile: userId, message: m.id, flags_mask: (bits & ~READ_FLIP) | (m.kind === 'direct' ? IS_PRIVATE : 0) });
    m.reactions.forEach((r) => out.reactions.push({ message: m.id, user_profile: r.userId, emoji_name: r.emojiName, emoji_code: r.emojiCode, reaction_type: r.reactionType }));
    for (const s of submessagesOf(shard, m)) out.submessages.push({ id: s.id, message: m.id, sender: s.senderId, msg_type: s.msgType, content: s.content });
  }
  return out;
}
