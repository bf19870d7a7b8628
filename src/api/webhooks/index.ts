import { ApiError, badRequest, notFound } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { doSendMessage, normalizeContent, normalizeTopic, checkCanPost } from '../messages/send.js';
import { me, operation } from '../../api-kit/operation.js';
import './alertmanager.js';
import './azuredevops.js';
import './bitbucket2.js';
import './bitbucket3.js';
import './circleci.js';
import './errbit.js';
import './gitea.js';
import './github/index.js';
import './gitlab.js';
import './gogs.js';
import './grafana.js';
import './jira.js';
import './json.js';
import './linear.js';
import './newrelic.js';
import './opsgenie.js';
import './pagerduty.js';
import './semaphore.js';
import './sentry.js';
import './slack-incoming.js';
import './travis.js';
import './uptimerobot.js';
import './zabbix.js';
import { invalidJsonNotice, notifyBotOwner, supportAddress } from './notices.js';
import { unquote } from './py.js';
import { allIntegrationParams, integration, malformedPayload, OwnerNoticeError, readPayload, type Integration, type WebhookMessage } from './registry.js';

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
  payload?: string;
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

async function send(shard: Shard, realm: RealmState, bot: UserRecord, hook: Integration, msg: WebhookMessage, p: Params): Promise<void> {
  const content = normalizeContent(msg.body);
  const client = `Zulip${hook.webhookName}Webhook`;
  if (p.stream === undefined) {
    const owner = bot.botOwnerId === null ? undefined : realm.users.get(bot.botOwnerId);
    if (!owner) throw badRequest('Missing \'stream\' argument');
    await doSendMessage(shard, realm, { sender: bot, recipients: [owner], content, client, readBySender: false });
    return;
  }
  const name = msg.unquoteUrlParameters ? unquote(p.stream) : p.stream;
  const byId = /^\d+$/.test(name);
  const stream = byId ? realm.streams.get(Number(name)) : realm.streamByName(name);
  if (!stream || stream.isArchived) {
    // As in the reference, the service is not told (it would only retry); the owner is.
    const where = byId ? `channel ID ${name}, but there is no channel with that ID` : `channel #**${name}**, but that channel does not exist. Click [here](#channels/new) to create it`;
    await notifyBotOwner(shard, realm, bot, `Your bot \`${bot.email}\` tried to send a message to ${where}.`);
    return;
  }
  checkCanPost(realm, bot, stream);
  const userTopic = p.topic !== undefined && msg.unquoteUrlParameters ? unquote(p.topic) : p.topic;
  const topic = normalizeTopic(realm, userTopic ?? msg.topic);
  await doSendMessage(shard, realm, { sender: bot, stream, topic, content, client, readBySender: false });
}

/** Errors of an integration that speaks Slack's API: `{ok: false, error}` (10.0's slack_error_handler). */
class SlackError extends ApiError {
  override body(): Record<string, unknown> {
    return { ok: false, error: this.message };
  }
}

const incoming = operation<Params>({
  auth: 'webhook',
  allowIncomingWebhooks: true,
  silentlyIgnoresParams: true,
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
    const headers = p.__headers ?? {};
    try {
      const payload = readPayload(hook.payload ?? 'either', p.__payload, p.payload);
      if ((hook.payload ?? 'either') !== 'none' && (payload === null || typeof payload !== 'object')) throw malformedPayload();
      const params = Object.fromEntries(Object.entries(p).filter(([k, v]) => typeof v === 'string' && !k.startsWith('__'))) as Record<string, string>;
      const contentType = (headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      const messages = hook.handle({ payload, rawBody: p.__payload, headers, contentType, params, userSpecifiedTopic: p.topic !== undefined, realm: ctx.realm, bot, support: supportAddress(ctx.shard) });
      for (const msg of messages) if (!filtered(msg.eventType, p)) await send(ctx.shard, ctx.realm, bot, hook, msg, p);
    } catch (err) {
      if (err instanceof OwnerNoticeError) await notifyBotOwner(ctx.shard, ctx.realm, bot, err.notice);
      else if (err instanceof ApiError && err.code === 'INVALID_JSON') await notifyBotOwner(ctx.shard, ctx.realm, bot, invalidJsonNotice(hook.webhookName));
      if (hook.slackErrors && err instanceof ApiError && err.status >= 400) throw new SlackError(err.message, { status: err.status });
      throw err;
    }
    return hook.slackErrors ? { ok: true } : {};
  },
});

export const operations = { 'webhooks.incoming': incoming };
