import { badRequest } from '../../lib/errors.js';
import { field, optional, registerIntegration, str, type WebhookMessage, type WebhookRequest } from './registry.js';

/**
 * Prometheus Alertmanager (zerver/webhooks/alertmanager): one message per topic and status,
 * the topic being the label (or annotation) named by `name` (default `instance`) and each
 * alert's text the one named by `desc` (default `alertname`), with a link to its source.
 */
function handle(req: WebhookRequest): WebhookMessage[] {
  const nameField = req.params.name ?? 'instance';
  const descField = req.params.desc ?? 'alertname';
  const topics = new Map<string, { firing: string[]; resolved: string[] }>();
  for (const [i, alert] of field<unknown[]>(req.payload, 'alerts').entries()) {
    const labels = optional<Record<string, unknown>>(alert, 'labels') ?? {};
    const annotations = optional<Record<string, unknown>>(alert, 'annotations') ?? {};
    const pick = (key: string, fallback: string) => String(key in labels ? labels[key] : key in annotations ? annotations[key] : fallback);
    const name = pick(nameField, '(unknown)');
    const desc = pick(descField, `<missing field: ${descField}>`);
    const url = str(alert, 'generatorURL').replaceAll('tab=1', 'tab=0');
    let entry = topics.get(name);
    if (!entry) topics.set(name, (entry = { firing: [], resolved: [] }));
    const status = str(alert, 'status');
    if (status !== 'firing' && status !== 'resolved') throw badRequest(`request['alerts'][${i}]['status'] is neither firing nor resolved`);
    entry[status].push(`${desc} ([source](${url}))`);
  }
  const out: WebhookMessage[] = [];
  for (const [topic, statuses] of topics) {
    for (const [status, messages] of Object.entries(statuses)) {
      if (messages.length === 0) continue;
      const [icon, title] = status === 'firing' ? [':alert:', 'FIRING'] : [':squared_ok:', 'Resolved'];
      const body = messages.length === 1 ? `${icon} **${title}** ${messages[0]}` : `${icon} **${title}**\n${messages.map((m) => `* ${m}`).join('\n')}`;
      out.push({ topic, body });
    }
  }
  return out;
}

registerIntegration({ name: 'alertmanager', displayName: 'Prometheus Alertmanager', webhookName: 'Alertmanager', allEventTypes: null, params: ['name', 'desc'], payload: 'body', handle });
