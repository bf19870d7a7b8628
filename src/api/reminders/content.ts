import { badRequest } from '../../lib/errors.js';
import type { MessageRecord } from '../../model/message.js';
import type { RealmState } from '../../model/realm-state.js';
import type { Shard } from '../../shard/shard.js';
import { messageUrl, silentMention, topicLinkSyntax, unusedFence } from '../messages/notices.js';
import { MAX_MESSAGE_LENGTH } from '../messages/send.js';

/**
 * The text of a reminder, as the reference's get_reminder_formatted_content writes it: a link to
 * the message, the note, and the message quoted (cut to fit the message length limit).
 */

/** The reference's MAX_REMINDER_NOTE_LENGTH (max_reminder_note_length, feature level 415). */
export const MAX_REMINDER_NOTE_LENGTH = 1000;

/** The reference's normalize_note_text. */
export function normalizeNote(note: string): string {
  const body = note.trimEnd().replace(/^\n+/, '');
  if ([...body].length > MAX_REMINDER_NOTE_LENGTH) throw badRequest(`Maximum reminder note length: ${MAX_REMINDER_NOTE_LENGTH} characters`);
  return body;
}

/** The reference's encode_user_ids: the narrow slug of a direct-message conversation. */
const dmSlug = (ids: number[]) => [...ids].sort((a, b) => a - b).join(',') + (ids.length >= 3 ? '-group' : '');

export function reminderContent(shard: Shard, realm: RealmState, msg: MessageRecord, note: string | null): string {
  const cleanNote = note ? normalizeNote(note) : '';
  const stream = msg.streamId !== null ? realm.streams.get(msg.streamId) : undefined;
  let content: string;
  let url: string;
  if (stream) {
    const link = topicLinkSyntax(stream, msg.topic, msg.id);
    content = cleanNote ? `You requested a reminder for ${link}. Note:\n > ${cleanNote}` : `You requested a reminder for ${link}.`;
    url = messageUrl(shard, realm, stream, msg.topic, msg.id);
  } else {
    content = cleanNote ? `You requested a reminder for the following direct message. Note:\n > ${cleanNote}` : 'You requested a reminder for the following direct message.';
    url = `${shard.realmUrl(realm.realm)}/#narrow/dm/${dmSlug(msg.dm ?? [msg.senderId])}/near/${msg.id}`;
  }
  const sender = realm.users.get(msg.senderId);
  const mention = sender ? silentMention(sender) : '';
  content += '\n\n';
  if (msg.content.startsWith('/poll')) return `${content}${mention} [sent](${url}) a poll.`;
  if (msg.content.startsWith('/todo')) return `${content}${mention} [sent](${url}) a todo list.`;
  content += `${mention} [said](${url}):\n`;
  // The reference looks for fences in the text written so far, not in the quoted message.
  const fence = unusedFence(content);
  const room = MAX_MESSAGE_LENGTH - [...content].length - `${fence}quote\n\n${fence}`.length;
  const chars = [...msg.content];
  const quoted = chars.length > room ? chars.slice(0, room - '\n[message truncated]'.length).join('') + '\n[message truncated]' : msg.content;
  return `${content}${fence}quote\n${quoted}\n${fence}`;
}
