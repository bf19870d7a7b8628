import { badRequest, notFound } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { doSendMessage, normalizeContent, normalizeTopic, checkCanPost } from '../messages/send.js';
import { notificationBot } from '../messages/notices.js';
import { me, operation } from '../operation.js';
import './alertmanager.js';
import './azuredevops.js';
import './bitbucket2.js';
import './bitbucket3.js';
import './github/index.js';
import './gitea.js';
import './gitlab.js';
import './gogs.js';
import './json.js';
import { allIntegrationParams, integration, malformedPayload, type WebhookMessage } from './registry.js';

/**
 * POST /api/v1/external/{integration}: a third-party service posts an event; the integration
 * turns it into messages sent by the bot whose API key the URL carries (`api_key`, or HTTP
 * Basic), to `stream` (a name or an id) and `topic`, or without `stream` to the bot's owner, as
 * the reference's check_send_webhook_message does.
 */

interface Params {
  integration: string;
  stream?: string;
  topic?: string;
  only_events?: string[];
  exclude_events?: string[];
  __payload: string;
  __headers: Record<string, string>;
  [other: string]: unknown;
}

/** fnmatch: `*`, `?` and `[...]` as in shell patterns. */
function fnmatch(name: string, pattern: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[' && pattern.indexOf(']', i + 1) > i + 1) {
      const end = pattern.indexOf(']', i + 1);
      let set = pattern.slice(i + 1, end).replace(/\\/g, '\\\\');
      if (set.startsWith('!')) set = `^${set.slice(1)}`;
      re += `[${set}]`;
      i = end;
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's').test(name);
}

function filtered(eventType: string | undefined, p: Params): boolean {
  if (eventType === undefined) return false;
  if (p.only_events && p.only_events.every((pattern) => !fnmatch(eventType, pattern))) return true;
  return p.exclude_events !== undefined && p.exclude_events.some((pattern) => fnmatch(eventType, pattern));
}

// The reference rate-limits these notices to the bot's owner; once per bot and ten minutes here.
const lastNotice = new Map<string, number>();

async function noticeToOwner(shard: Shard, realm: RealmState, bot: UserRecord, content: string): Promise<void> {
  const owner = bot.botOwnerId === null ? undefined : realm.users.get(bot.botOwnerId);
  const key = `${realm.id}:${bot.id}`;
  if (!owner?.isActive || (lastNotice.get(key) ?? 0) > Date.now() - 600_000) return;
  lastNotice.set(key, Date.now());
  const sender = await notificationBot(shard, realm);
  await doSendMessage(shard, realm, { sender, recipients: [owner], content, client: 'Internal', readBySender: true });
}

/** Python's urllib.parse.unquote: %XX runs decoded as UTF-8, anything else kept. */
function unquote(text: string): string {
  return text.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => new TextDecoder().decode(Buffer.from(run.replaceAll('%', ''), 'hex')));
}

async function send(shard: Shard, realm: RealmState, bot: UserRecord, client: string, msg: WebhookMessage, p: Params): Promise<void> {
  const content = normalizeContent(msg.body);
  if (p.stream === undefined) {
    const owner = bot.botOwnerId === null ? undefined : realm.users.get(bot.botOwnerId);
    if (!owner) throw badRequest('Missing \'stream\' argument');
    await doSendMessage(shard, realm, { sender: bot, recipients: [owner], content, client, readBySender: false });
    return;
  }
  const streamParam = msg.unquoteUrlParameters ? unquote(p.stream) : p.stream;
  const topicParam = p.topic !== undefined && msg.unquoteUrlParameters ? unquote(p.topic) : p.topic;
  const byId = /^\d+$/.test(streamParam);
  const stream = byId ? realm.streams.get(Number(streamParam)) : realm.streamByName(streamParam);
  if (!stream || stream.isArchived) {
    // As in the reference, the service is not told (it would only retry); the owner is.
    const where = byId ? `channel ID ${streamParam}, but there is no channel with that ID` : `channel #**${streamParam}**, but that channel does not exist. Click [here](#channels/new) to create it`;
    await noticeToOwner(shard, realm, bot, `Your bot \`${bot.email}\` tried to send a message to ${where}.`);
    return;
  }
  checkCanPost(realm, bot, stream);
  const topic = normalizeTopic(realm, topicParam ?? msg.topic);
  await doSendMessage(shard, realm, { sender: bot, stream, topic, content, client, readBySender: false });
}

/** The body as JSON: the request's JSON body, or a form's `payload` field (GitHub's form mode). */
function parsePayload(p: Params): unknown {
  const text = typeof p.payload === 'string' ? p.payload : p.__payload;
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    throw malformedPayload();
  }
}

const incoming = operation<Params>({
  auth: 'webhook',
  allowIncomingWebhooks: true,
  params: {
    properties: {
      integration: { type: 'string' },
      api_key: { type: 'string' },
      stream: { type: 'string' },
      topic: { type: 'string' },
      only_events: { type: 'array', items: { type: 'string' } },
      exclude_events: { type: 'array', items: { type: 'string' } },
      payload: { type: 'string' },
      __payload: { type: 'string' },
      __headers: { type: 'object' },
      ...Object.fromEntries(allIntegrationParams().map((name) => [name, { type: 'string' }])),
    },
    required: ['integration'],
  },
  handler: async (ctx) => {
    const hook = integration(ctx.params.integration);
    if (!hook) throw notFound();
    const bot = me(ctx);
    const p = ctx.params;
    const payload = parsePayload(p);
    if (payload === null || typeof payload !== 'object') throw malformedPayload();
    const params = Object.fromEntries(Object.entries(p).filter(([k, v]) => typeof v === 'string' && !k.startsWith('__'))) as Record<string, string>;
    const messages = hook.handle({ payload, rawBody: p.__payload, headers: p.__headers ?? {}, params, userSpecifiedTopic: p.topic !== undefined });
    const client = `Zulip${hook.webhookName}Webhook`;
    for (const msg of messages) if (!filtered(msg.eventType, p)) await send(ctx.shard, ctx.realm, bot, client, msg, p);
    return {};
  },
});

export const operations = { 'webhooks.incoming': incoming };
