import { DisallowedAddressError, guardedPost } from '../../lib/guarded-http.js';
import { ApiError } from '../../lib/errors.js';
import type { MessageRecord } from '../../model/message.js';
import type { RealmState } from '../../model/realm-state.js';
import { BOT_INTERFACE, BOT_TYPE, type UserRecord } from '../../model/types.js';
import { defineJobKind, jobsOf, type JobRun } from '../../shard/jobs.js';
import type { Shard } from '../../shard/shard.js';
import { getMessage } from '../../store/messages.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { encodeHashComponent, messageUrl } from '../messages/notices.js';
import { doSendMessage, normalizeContent, sendHooks } from '../messages/send.js';
import { messageView } from '../messages/views.js';
import { ZULIP_VERSION } from '../../lib/version.js';
import { EMBEDDED_BOTS } from './embedded.js';

/**
 * Outgoing webhooks and embedded bots (the reference's zerver/lib/outgoing_webhook.py and its
 * outgoing_webhooks / embedded_bots queue workers).
 *
 * A message that mentions such a bot in a channel, or is a direct message to it, writes one
 * durable job per bot in the message's own transaction (shard/jobs.ts), so a crash after the
 * send loses no delivery. The job POSTs the reference's payload to the bot's URL (10 s timeout,
 * SSRF-guarded: lib/guarded-http.ts) and, in one transaction, removes itself and sends the
 * bot's reply into the conversation. A crash between the POST and that commit repeats the POST,
 * never the reply. Connection errors, timeouts and 5xx answers are retried three times with
 * backoff (1, 2, 4 s); a 4xx is not. When a delivery fails for good, the bot says so in the
 * conversation ("Failure! ...") and tells its owner in a direct message, as the reference does.
 */

export const OUTGOING_WEBHOOK_TIMEOUT_MS = 10_000;
const MAX_RETRIES = 3;
const KIND = 'botTrigger';

interface Trigger {
  messageId: number;
  botId: number;
  trigger: 'mention' | 'direct_message';
}

/** Bots the message triggers: mentioned in a channel, or a recipient of a direct message. */
sendHooks.push((shard, batch, realm, msg, rendered) => {
  const sender = realm.users.get(msg.senderId);
  // Messages from bots trigger nothing: two bots would otherwise answer each other forever.
  if (!sender || sender.isBot) return;
  const candidates = msg.kind === 'stream' ? rendered.mentionedUserIds : (msg.dm ?? []);
  const trigger = msg.kind === 'stream' ? 'mention' : 'direct_message';
  for (const id of new Set(candidates)) {
    const bot = realm.users.get(id);
    if (!bot || id === sender.id || !bot.isActive || (bot.botType !== BOT_TYPE.outgoingWebhook && bot.botType !== BOT_TYPE.embedded)) continue;
    jobsOf(shard).schedule<Trigger>(batch, { key: `${KIND}:${realm.id}:${msg.id}:${bot.id}`, kind: KIND, realmId: realm.id, due: Date.now(), data: { messageId: msg.id, botId: bot.id, trigger } });
  }
});

/** send_response_message: the bot's message in the conversation of `msg` (same topic, same DM). */
function respond(shard: Shard, realm: RealmState, batch: WriteBatch, bot: UserRecord, msg: MessageRecord, content: string): Promise<MessageRecord> | undefined {
  if (content.trim() === '') return undefined;
  const spec = { sender: bot, content: normalizeContent(content), client: 'OutgoingWebhookResponse', readBySender: true, batch };
  if (msg.kind === 'stream') {
    const stream = realm.streams.get(msg.streamId!);
    if (!stream || stream.isArchived) return undefined;
    return doSendMessage(shard, realm, { ...spec, stream, topic: msg.topic });
  }
  const recipients = (msg.dm ?? []).filter((id) => id !== bot.id).map((id) => realm.users.get(id)!).filter(Boolean);
  return doSendMessage(shard, realm, { ...spec, recipients: recipients.length > 0 ? recipients : [bot] });
}

function nearUrl(shard: Shard, realm: RealmState, msg: MessageRecord, bot: UserRecord): string {
  if (msg.kind === 'stream') return messageUrl(shard, realm, realm.streams.get(msg.streamId!)!, msg.topic, msg.id);
  const others = (msg.dm ?? []).filter((id) => id !== bot.id);
  const slug = others.length === 1 ? `${others[0]}-${encodeHashComponent((realm.users.get(others[0])?.fullName ?? '').replace(/ /g, '-'))}` : `${others.join(',')}-group`;
  return `${shard.realmUrl(realm.realm)}/#narrow/dm/${slug}/near/${msg.id}`;
}

/** notify_bot_owner: a direct message from the bot to its owner. */
async function notifyOwner(shard: Shard, realm: RealmState, batch: WriteBatch, bot: UserRecord, msg: MessageRecord, detail: { status?: number; content?: string; failure?: string }): Promise<void> {
  const owner = bot.botOwnerId === null ? undefined : realm.users.get(bot.botOwnerId);
  if (!owner?.isActive) return;
  let text = `[A message](${nearUrl(shard, realm, msg, bot)}) to your bot @_**${bot.fullName}** triggered an outgoing webhook.`;
  if (detail.failure) text += `\n${detail.failure}`;
  else if (detail.status === 407) text += '\nThe URL configured for the webhook is for a private or disallowed network.';
  else if (detail.status) text += `\nThe webhook got a response with status code *${detail.status}*.`;
  // The reference prints the body as Python's repr of bytes.
  if (detail.content) text += `\nThe response contains the following payload:\n\`\`\`\nb'${detail.content.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'\n\`\`\``;
  await doSendMessage(shard, realm, { sender: bot, recipients: [owner], content: normalizeContent(text), client: 'OutgoingWebhookResponse', readBySender: true, batch });
}

/** fail_with_message */
async function failInConversation(shard: Shard, realm: RealmState, batch: WriteBatch, bot: UserRecord, msg: MessageRecord, failure: string): Promise<void> {
  await respond(shard, realm, batch, bot, msg, `Failure! ${failure}`);
}

/** The reference's request body: the generic (Zulip) format, or Slack's form fields. */
function requestFor(shard: Shard, realm: RealmState, bot: UserRecord, msg: MessageRecord, trigger: string): { body: string; contentType: string } {
  const service = bot.bot!.service!;
  if (service.interface === BOT_INTERFACE.slack) {
    const host = new URL(realm.url).host;
    const fields: [string, string][] = [
      ['token', service.token],
      ['team_id', `T${realm.id}`],
      ['team_domain', host],
      ['channel_id', `C${msg.streamId}`],
      ['channel_name', realm.streams.get(msg.streamId!)?.name ?? ''],
      ['thread_ts', String(msg.timestamp)],
      ['timestamp', String(msg.timestamp)],
      ['user_id', `U${msg.senderId}`],
      ['user_name', realm.users.get(msg.senderId)?.fullName ?? ''],
      ['text', msg.content],
      ['trigger_word', trigger],
      ['service_id', String(bot.id)],
    ];
    return { body: new URLSearchParams(fields).toString(), contentType: 'application/x-www-form-urlencoded' };
  }
  const message: Record<string, unknown> = { ...messageView(shard, realm, bot, msg, { applyMarkdown: false, clientGravatar: false, allowEmptyTopicName: false }), rendered_content: msg.rendered };
  delete message.content_type;
  const body = { data: msg.content, message, bot_email: bot.email, bot_full_name: bot.fullName, token: service.token, trigger };
  return { body: JSON.stringify(body), contentType: 'application/json' };
}

/** process_success_response: the reply a 2xx answer asks for, if any; throws for a bad body. */
function replyOf(text: string, slack: boolean): string | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ApiError('Invalid JSON in response');
  }
  // zulip_botserver before 2021-05 answered json.dumps("") for "no reply".
  if (json === '') return null;
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new ApiError('Invalid response format');
  const r = json as Record<string, unknown>;
  if (slack) return 'text' in r ? String(r.text) : null;
  if (r.response_not_required) return null;
  if ('response_string' in r) return String(r.response_string);
  if ('content' in r) return String(r.content);
  return null;
}

/** A failed attempt: retried with backoff, or the end of the delivery. */
async function retryOrFail(run: JobRun<Trigger>, realm: RealmState, bot: UserRecord, msg: MessageRecord, failure: string, detail: { status?: number; content?: string } = {}): Promise<void> {
  if (run.retry(Date.now() + 1000 * 2 ** run.job.attempts)) return;
  await failInConversation(run.shard, realm, run.batch, bot, msg, detail.status ? `Third party responded with ${detail.status}` : 'Bot is unavailable');
  await notifyOwner(run.shard, realm, run.batch, bot, msg, detail.status ? detail : { failure });
}

async function deliver(run: JobRun<Trigger>): Promise<void> {
  const { shard, batch } = run;
  const realm = shard.realm(run.job.realmId);
  const msg = realm && getMessage(shard, realm, run.job.data.messageId);
  const bot = realm?.users.get(run.job.data.botId);
  // A deleted message, or a bot deactivated or changed since: nothing to deliver.
  if (!realm || !msg || !bot?.isActive || !bot.bot?.service) return;
  if (bot.botType === BOT_TYPE.embedded) {
    const handler = EMBEDDED_BOTS.find((b) => b.name === bot.bot!.service!.name);
    const query = run.job.data.trigger === 'mention' ? withoutMention(msg.content, bot) : msg.content;
    if (handler && query !== null) await respond(shard, realm, batch, bot, msg, handler.reply(query));
    return;
  }
  const service = bot.bot.service;
  const slack = service.interface === BOT_INTERFACE.slack;
  if (slack && msg.kind !== 'stream') return await failInConversation(shard, realm, batch, bot, msg, "Slack outgoing webhooks don't support direct messages.");
  const request = requestFor(shard, realm, bot, msg, run.job.data.trigger);
  let res;
  try {
    res = await guardedPost(service.baseUrl, request.body, { 'content-type': request.contentType, 'user-agent': `ZulipOutgoingWebhook/${ZULIP_VERSION}` }, { timeoutMs: OUTGOING_WEBHOOK_TIMEOUT_MS, allowPrivate: shard.config.webhookAllowPrivateAddresses });
  } catch (err) {
    // The reference's Smokescreen proxy answers 407 for a refused address; it is not retried.
    if (err instanceof DisallowedAddressError) {
      await failInConversation(shard, realm, batch, bot, msg, 'Third party responded with 407');
      return await notifyOwner(shard, realm, batch, bot, msg, { status: 407 });
    }
    const timedOut = (err as { code?: string }).code === 'ETIMEDOUT';
    return await retryOrFail(run, realm, bot, msg, timedOut ? `Request timed out after ${OUTGOING_WEBHOOK_TIMEOUT_MS / 1000} seconds.` : 'A connection error occurred. Is my bot server down?');
  }
  if (res.status >= 200 && res.status < 300) {
    let reply: string | null;
    try {
      reply = replyOf(res.body, slack);
    } catch (err) {
      await failInConversation(shard, realm, batch, bot, msg, (err as Error).message);
      return await notifyOwner(shard, realm, batch, bot, msg, { failure: `The outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> ${(err as Error).message}` });
    }
    if (reply !== null) await respond(shard, realm, batch, bot, msg, reply);
    return;
  }
  if (res.status >= 500) return await retryOrFail(run, realm, bot, msg, '', { status: res.status, content: res.body });
  await failInConversation(shard, realm, batch, bot, msg, `Third party responded with ${res.status}`);
  await notifyOwner(shard, realm, batch, bot, msg, { status: res.status, content: res.body });
}

/** extract_query_without_mention: the text after a leading mention of the bot, or null. */
export function withoutMention(content: string, bot: UserRecord): string | null {
  const extended = new RegExp(`^@\\*\\*.*\\|${bot.id}\\*\\*`).exec(content);
  if (extended) return content.slice(extended[0].length).trimStart();
  const plain = `@**${bot.fullName}**`;
  return content.startsWith(plain) ? content.slice(plain.length).trimStart() : null;
}

defineJobKind<Trigger>(KIND, {
  run: deliver,
  // The first attempt and three retries; deliver() itself decides what giving up means.
  maxAttempts: MAX_RETRIES + 1,
  backoff: (attempts) => 1000 * 2 ** (attempts - 1),
});
