import { badRequest } from '../../lib/errors.js';
import type { MessageRecord } from '../../model/message.js';
import type { RealmState } from '../../model/realm-state.js';
import { realmSetting } from '../../model/realm-settings.js';
import type { UserRecord } from '../../model/types.js';
import { me, operation } from '../../api-kit/operation.js';
import { accessibleMessage } from './access.js';
import { postNotice, silentMention, topicLinkSyntax, unusedFence } from './notices.js';
import { MAX_MESSAGE_LENGTH, normalizeTopic, truncateContent } from './send.js';

/**
 * POST /messages/{message_id}/report (feature level 382): a member asks the moderators to look
 * at a message they can see. The report is a Notification Bot message in the realm's moderation
 * request channel, in the reference's format (zerver/lib/message_report.py), in a topic per
 * reported user. No other state is kept: the channel is the moderators' queue.
 */

export const REPORT_TYPES = ['spam', 'harassment', 'inappropriate', 'norms', 'other'] as const;
/** The reference's Realm.MAX_REPORT_MESSAGE_EXPLANATION_LENGTH. */
export const MAX_REPORT_DESCRIPTION_LENGTH = 1000;
/** Room for the description and the report's own text within one message. */
const MAX_REPORT_SNIPPET_LENGTH = MAX_MESSAGE_LENGTH - MAX_REPORT_DESCRIPTION_LENGTH - 500;

/** "a, b, and c", as the reference lists a group DM's participants. */
function listMentions(users: UserRecord[]): string {
  const mentions = users.map(silentMention);
  const last = mentions.pop()!;
  return `${mentions.join(', ')}, and ${last}`;
}

/** The report's first line: who reported what, and where it was sent. */
function reportHeader(realm: RealmState, reporter: UserRecord, sender: UserRecord, msg: MessageRecord): string {
  const who = silentMention(reporter);
  const whom = silentMention(sender);
  if (msg.kind === 'stream') return `${who} reported ${topicLinkSyntax(realm.streams.get(msg.streamId!)!, msg.topic, msg.id)} sent by ${whom}.`;
  if (msg.dm!.length <= 2) return `${who} reported a DM sent by ${whom}.`;
  const participants = msg.dm!.map((id) => realm.users.get(id)!);
  return `${who} reported a DM sent by ${whom} to ${listMentions(participants)}.`;
}

export function reportContent(realm: RealmState, reporter: UserRecord, sender: UserRecord, msg: MessageRecord, reportType: string, description: string): string {
  const snippet = truncateContent(msg.content, MAX_REPORT_SNIPPET_LENGTH);
  const fence = unusedFence(snippet);
  return [
    reportHeader(realm, reporter, sender, msg),
    `- Reason: **${reportType}**`,
    '- Notes:',
    '```quote',
    description,
    '```',
    `${fence} spoiler **Message sent by ${silentMention(sender)}**`,
    snippet,
    fence,
  ].join('\n');
}

const report = operation<{ message_id: number; report_type: string; description: string }>({
  auth: 'user',
  params: {
    properties: {
      message_id: { type: 'integer' },
      report_type: { enum: [...REPORT_TYPES] },
      description: { type: 'string', maxLength: MAX_REPORT_DESCRIPTION_LENGTH, default: '' },
    },
    required: ['message_id', 'report_type'],
  },
  handler: async (ctx) => {
    const user = me(ctx);
    const { shard, realm, params: p } = ctx;
    if (p.report_type === 'other' && p.description === '') throw badRequest('An explanation is required.');
    const channel = realm.streams.get(realmSetting(realm, 'moderation_request_channel_id') as number);
    if (!channel || channel.isArchived) throw badRequest('Message reporting is not enabled in this organization.');
    const msg = accessibleMessage(shard, realm, user, p.message_id);
    const sender = realm.users.get(msg.senderId)!;
    const content = reportContent(realm, user, sender, msg, p.report_type, p.description);
    await postNotice(shard, realm, channel, normalizeTopic(realm, `${sender.fullName}'s moderation requests`), content, []);
    return {};
  },
});

export const operations = {
  'messages.report': report,
};
