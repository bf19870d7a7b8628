import type { Shard } from '../../shard/shard.js';
import { doSendMessage, MAX_MESSAGE_LENGTH, normalizeTopic } from '../messages/send.js';
import { doUpload } from '../uploads/index.js';
import { uploadUrl } from '../uploads/files.js';
import type { RealmState } from '../../model/realm-state.js';
import { channelEmailByToken, decodeEmailAddress, gatewayDomain, type AddressOptions, type ChannelEmail } from './address.js';
import { deliverReply, replyAddress, replyToken } from './missed.js';

/**
 * Mail to a channel address, posted as the reference's email gateway posts it
 * (zerver/lib/email_mirror.py process_stream_message): the subject, without Re:/Fwd:
 * prefixes, is the topic; the body, without quoted replies and a `--` signature unless the
 * address asks to keep them, is the Markdown; attachments become uploads linked at the end;
 * with `show-sender` the sender's address comes first. The front end (front/smtp.ts) parses the
 * MIME message; the attachments arrive as files in the uploads' temporary directory.
 */
export interface InboundMail {
  to: string;
  from: string;
  subject: string;
  text: string | null;
  html: string | null;
  attachments: { filename: string; contentType: string; tmpPath: string; size: number }[];
  /** The Auto-Submitted header: auto-replies to missed-message emails are dropped. */
  autoSubmitted?: string;
}

/** strip_from_subject */
export function stripFromSubject(subject: string): string {
  return subject.replace(/([[(] *)?\b(RE|AW|SV|FWD?) *([-:;)\]][ :;\])-]*|$)|\]+ *$/gim, '').trim();
}

/** filter_footer: everything after a lone `--` line, when there is exactly one. */
export function filterFooter(text: string): string {
  const footers = text.split('\n').filter((line) => line.trim() === '--');
  if (footers.length !== 1) return text;
  return text.split(/^\s*--\s*$/m, 1)[0].trim();
}

/** A reply's quoted tail: `On <date>, <someone> wrote:` and the `>` lines after it. */
function dropQuotes(text: string): string {
  const lines = text.split('\n');
  let end = lines.length;
  while (end > 0 && (lines[end - 1].startsWith('>') || lines[end - 1].trim() === '')) end--;
  if (end === lines.length) return text;
  if (end > 0 && /^On .*wrote:\s*$/.test(lines[end - 1])) end--;
  return lines.slice(0, end).join('\n').trimEnd();
}

function htmlToText(html: string): string {
  return html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|h\d|li|tr)>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * construct_zulip_body: the text the mail becomes (without its attachments), with the options an
 * address may carry: quotes and a `--` footer dropped unless asked, the sender's address first
 * with show-sender.
 */
export function mailBody(mail: InboundMail, options: AddressOptions, room: number): string {
  const preferText = options.prefer_text ?? true;
  let body = (preferText ? mail.text : null) ?? (mail.html ? htmlToText(mail.html) : (mail.text ?? ''));
  body = body.replace(/\0/g, '').replace(/\r\n/g, '\n');
  if (!options.include_quotes) body = dropQuotes(body);
  if (!options.include_footer) body = filterFooter(body);
  if (!body.endsWith('\n')) body += '\n';
  if (body.trim() === '') body = '(No email body)';
  const preamble = options.show_sender ? `From: ${mail.from}\n` : '';
  room -= preamble.length;
  if ([...body].length > room) body = [...body].slice(0, room - '\n[message truncated]'.length).join('') + '\n[message truncated]';
  return preamble + body;
}

/**
 * Posts the mail if one of this shard's addresses is its recipient: a channel address, or the
 * reply address of a missed-message email (missed.ts).
 */
export async function deliverMail(shard: Shard, mail: InboundMail): Promise<'delivered' | 'unknown' | 'refused' | 'paused'> {
  const reply = replyToken(shard, mail.to);
  if (reply) {
    const realmId = replyAddress(shard, reply)?.realmId;
    // A realm a cluster is moving takes no mail for a few seconds: the sender's server tries again.
    if (realmId !== undefined && shard.realmGate.isPaused(realmId)) return 'paused';
    const post = () => deliverReply(shard, reply, mail, mail.autoSubmitted ?? '', mailBody(mail, {}, MAX_MESSAGE_LENGTH).trimEnd());
    return realmId === undefined ? post() : shard.realmGate.around(realmId, post);
  }
  const decoded = decodeEmailAddress(mail.to, gatewayDomain(shard));
  const record = decoded && channelEmailByToken(shard, decoded.token);
  const realm = record && shard.realm(record.realmId);
  if (!decoded || !record || !realm) return 'unknown';
  if (shard.realmGate.isPaused(realm.id)) return 'paused';
  return shard.realmGate.around(realm.id, () => deliverTo(shard, realm, record, decoded, mail));
}

async function deliverTo(shard: Shard, realm: RealmState, record: ChannelEmail, decoded: NonNullable<ReturnType<typeof decodeEmailAddress>>, mail: InboundMail): Promise<'delivered' | 'refused'> {
  const stream = realm.streams.get(record.streamId);
  const sender = realm.users.get(record.senderId);
  const creator = realm.users.get(record.creatorId);
  // An address dies with its channel, its sender or the user who asked for it.
  if (!stream || stream.isArchived || !sender?.isActive || !creator?.isActive || realm.realm.deactivated) return 'refused';
  const links: string[] = [];
  for (const file of mail.attachments) {
    const rec = await doUpload(shard, realm, sender, { field: 'file', filename: file.filename, tmpPath: file.tmpPath, size: file.size, contentType: file.contentType });
    links.push(`[${rec.name}](${uploadUrl(rec.pathId)})`);
  }
  const postamble = links.length > 0 ? `\n${links.join('\n')}` : '';
  const body = mailBody(mail, decoded.options, MAX_MESSAGE_LENGTH - postamble.length);
  const topic = normalizeTopic(realm, stripFromSubject(mail.subject) || '(no topic)');
  await doSendMessage(shard, realm, { sender, stream, topic, content: (body + postamble).trimEnd(), client: 'ZulipEmailMirror', readBySender: false });
  return 'delivered';
}

/** Whether a recipient names one of this shard's channel addresses (RCPT TO, before the data). */
export function knowsAddress(shard: Shard, to: string): boolean {
  // A realm this shard holds a copy of but no longer serves (a cluster moved it) knows nothing.
  const reply = replyToken(shard, to);
  if (reply) {
    const address = replyAddress(shard, reply);
    return address !== undefined && shard.realm(address.realmId) !== undefined;
  }
  const decoded = decodeEmailAddress(to, gatewayDomain(shard));
  const record = decoded && channelEmailByToken(shard, decoded.token);
  return !!record && shard.realm(record.realmId) !== undefined;
}
