import { badRequest } from '../../lib/errors.js';
import { field, has, optional, registerIntegration, str, type WebhookMessage, type WebhookRequest } from './registry.js';
import { pyStr, truthy } from './py.js';

/**
 * Grafana (zerver/webhooks/grafana): Grafana 8+ alerting posts a list of `alerts`, one message
 * each in topic "[<alertname>]"; Grafana 7 posts one alert, in the alert's title.
 */
const ALL_EVENT_TYPES = ['ok', 'pending', 'alerting', 'paused', 'firing', 'resolved'];
const LEGACY_STATES = ['no_data', 'paused', 'alerting', 'ok', 'pending', 'unknown'];

const status = (icon: string, state: string) => `${icon} **${state.toUpperCase()}**\n\n`;


function alertMessage(alert: unknown): WebhookMessage {
  const state = str(alert, 'status');
  if (state !== 'firing' && state !== 'resolved') throw badRequest("request['status'] is not one of the allowed values");
  let body = status(state === 'firing' ? ':alert:' : ':checkbox:', state);
  const labels = field<Record<string, unknown>>(alert, 'labels');
  let topic: string;
  if (has(labels, 'alertname') && truthy(labels.alertname)) {
    const name = str(labels, 'alertname');
    topic = `[${name}]`;
    body += `**${name}**\n\n`;
  } else topic = `[${str(alert, 'fingerprint')}]`;
  body += `This alert was fired at <time:${str(alert, 'startsAt')}>.`;
  const end = str(alert, 'endsAt');
  if (end !== '0001-01-01T00:00:00Z') body += `\n\nThis alert was resolved at <time:${end}>.`;
  if (truthy(labels)) body += `\n\nLabels:\n${Object.keys(labels).map((k) => `- ${k}: ${str(labels, k)}\n`).join('')}\n`;
  const values = optional<Record<string, unknown>>(alert, 'values');
  if (truthy(values)) body += `Values:\n${Object.entries(values!).map(([k, v]) => `- ${k}: ${pyStr(v)}\n`).join('')}\n`;
  else if (truthy(optional(alert, 'valueString'))) body += `Values:\n${str(alert, 'valueString')}\n\n`;
  const annotations = field<Record<string, unknown>>(alert, 'annotations');
  if (truthy(annotations)) body += `Annotations:\n${Object.keys(annotations).map((k) => `- ${k}: ${str(annotations, k)}\n`).join('')}`;
  if (truthy(field(alert, 'generatorURL'))) body += `\n[Generator](${str(alert, 'generatorURL')})`;
  if (truthy(field(alert, 'silenceURL'))) body += `\n[Silence](${str(alert, 'silenceURL')})`;
  if (truthy(optional(alert, 'imageURL'))) body += `\n[Image](${str(alert, 'imageURL')})`;
  return { topic, body: `${body}\n`, eventType: state };
}

function legacyMessage(p: unknown): WebhookMessage {
  const topic = str(p, 'title');
  let matches = '';
  if (has(p, 'evalMatches') && field(p, 'evalMatches') !== null) {
    for (const match of field<unknown[]>(p, 'evalMatches')) {
      const value = field(match, 'value');
      if (value !== null && typeof value !== 'number') throw badRequest("request['evalMatches'][…]['value'] is not a number");
      matches += `**${str(match, 'metric')}:** ${pyStr(value)}\n`;
    }
  }
  const message = has(p, 'message') ? `${str(p, 'message')}\n\n` : '';
  const state = str(p, 'state');
  if (!LEGACY_STATES.includes(state)) throw badRequest("request['state'] is not one of the allowed values");
  const alertStatus = state === 'alerting' ? status(':alert:', state) : state === 'ok' ? status(':squared_ok:', state) : status(':info:', state);
  let body = `${alertStatus}[${str(p, 'ruleName')}](${str(p, 'ruleUrl')})\n\n${message}${matches}`;
  if (has(p, 'imageUrl')) body += `\n[Click to view visualization](${str(p, 'imageUrl')})`;
  return { topic, body: body.trim(), eventType: state };
}

function handle({ payload: p }: WebhookRequest): WebhookMessage[] {
  if (has(p, 'alerts')) return field<unknown[]>(p, 'alerts').map(alertMessage);
  return [legacyMessage(p)];
}

registerIntegration({ name: 'grafana', displayName: 'Grafana', webhookName: 'Grafana', allEventTypes: ALL_EVENT_TYPES, payload: 'body', handle });
