import { badRequest } from '../../lib/errors.js';
import { field, has, int, optional, registerIntegration, str, unsupportedEvent, type WebhookMessage, type WebhookRequest } from './registry.js';

/**
 * PagerDuty (zerver/webhooks/pagerduty): incident events of its three webhook versions (V1 and
 * V2 post a list of `messages`, V3 one `event`), in topic "Incident <number or title>".
 */
type Fields = Record<string, string | number>;

const NAMES_V1: Record<string, string> = {
  'incident.trigger': 'triggered',
  'incident.acknowledge': 'acknowledged',
  'incident.unacknowledge': 'unacknowledged',
  'incident.resolve': 'resolved',
  'incident.assign': 'assigned',
  'incident.escalate': 'escalated',
  'incident.delegate': 'delineated',
};
const NAMES_V2: Record<string, string> = { 'incident.trigger': 'triggered', 'incident.acknowledge': 'acknowledged', 'incident.resolve': 'resolved', 'incident.assign': 'assigned' };
const NAMES_V3: Record<string, string> = {
  'incident.triggered': 'triggered',
  'incident.acknowledged': 'acknowledged',
  'incident.unacknowledged': 'unacknowledged',
  'incident.resolved': 'resolved',
  'incident.reassigned': 'reassigned',
};
const ALL_EVENT_TYPES = ['resolved', 'assigned', 'unacknowledged', 'acknowledged', 'triggered', 'reassigned'];

const agent = (name: string, url: string) => `[${name}](${url})`;
const quote = (message: string) => `\`\`\` quote\n${message}\n\`\`\``;

/** The local part of an address, as email.headerregistry.Address reads it. */
function username(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 0 ? email : email.slice(0, at);
}

/** The incident's link and its service's, which every version has (V3 under other names). */
function incidentFields(action: string, numTitle: string | number, incident: unknown, serviceName: 'name' | 'summary'): Fields {
  return {
    action,
    incident_num_title: numTitle,
    incident_url: str(incident, 'html_url'),
    service_name: str(incident, 'service', serviceName),
    service_url: str(incident, 'service', 'html_url'),
  };
}

/** An agent's link, or the first assignee's (`nobody` without one). */
const firstAgent = (list: unknown[], ...path: string[]) => (list.length > 0 ? agent(str(list[0], ...path, 'summary'), str(list[0], ...path, 'html_url')) : 'nobody');

function fieldsV1(m: unknown): Fields {
  const incident = field(m, 'data', 'incident');
  const f = incidentFields(NAMES_V1[str(m, 'type')], int(incident, 'incident_number'), incident, 'name');
  const assigned = optional(incident, 'assigned_to_user');
  f.assignee_info = assigned ? agent(username(str(assigned, 'email')), str(assigned, 'html_url')) : 'nobody';
  const resolver = optional(incident, 'resolved_by_user');
  if (resolver) f.agent_info = agent(username(str(resolver, 'email')), str(resolver, 'html_url'));
  const lines: string[] = [];
  const summary = optional(incident, 'trigger_summary_data');
  if (summary && typeof summary === 'object' && Object.keys(summary).length > 0) {
    for (const key of ['subject', 'description']) if (has(summary, key) && str(summary, key)) lines.push(str(summary, key));
  }
  f.trigger_message = quote(lines.join('\n'));
  return f;
}

function fieldsV2(m: unknown): Fields {
  const incident = field(m, 'incident');
  const f = incidentFields(NAMES_V2[str(m, 'event')], int(incident, 'incident_number'), incident, 'name');
  f.assignee_info = firstAgent(field<unknown[]>(incident, 'assignments'), 'assignee');
  const changer = optional(incident, 'last_status_change_by');
  if (changer !== undefined) f.agent_info = agent(str(changer, 'summary'), str(changer, 'html_url'));
  const description = optional(incident, 'description');
  if (description !== undefined) f.trigger_message = quote(str(incident, 'description'));
  return f;
}

function fieldsV3(e: unknown): Fields {
  const data = field(e, 'data');
  const f = incidentFields(NAMES_V3[str(e, 'event_type')], `${str(data, 'title')} (#${int(data, 'number')})`, data, 'summary');
  f.assignee_info = firstAgent(field<unknown[]>(data, 'assignees'));
  const by = optional(e, 'agent');
  if (by !== undefined) f.agent_info = agent(str(by, 'summary'), str(by, 'html_url'));
  f.trigger_message = '';
  return f;
}

function need(f: Fields, key: string): string | number {
  if (!(key in f)) throw badRequest(`Missing '${key}' argument`);
  return f[key];
}

function message(type: string, f: Fields): WebhookMessage {
  const link = `Incident [${f.incident_num_title}](${f.incident_url})`;
  let body: string;
  if (['incident.trigger', 'incident.triggered', 'incident.unacknowledge', 'incident.unacknowledged'].includes(type)) {
    body = `${link} ${f.action} by [${f.service_name}](${f.service_url}) (assigned to ${f.assignee_info}).\n\n${need(f, 'trigger_message')}`;
  } else if (type === 'incident.resolve' || type === 'incident.resolved') {
    body = 'agent_info' in f ? `${link} resolved by ${f.agent_info}.\n\n${need(f, 'trigger_message')}` : `${link} resolved.\n\n${need(f, 'trigger_message')}`;
  } else if (type === 'incident.assign' || type === 'incident.reassigned') {
    body = `${link} ${f.action} to ${f.assignee_info}.\n\n${need(f, 'trigger_message')}`;
  } else {
    body = `${link} ${f.action} by ${f.assignee_info}.\n\n${need(f, 'trigger_message')}`;
  }
  return { topic: `Incident ${f.incident_num_title}`, body, eventType: String(f.action) };
}

function handle({ payload: p }: WebhookRequest): WebhookMessage[] {
  const out: WebhookMessage[] = [];
  const messages = optional<unknown[]>(p, 'messages');
  if (messages && messages.length > 0) {
    for (const m of messages) {
      const type = optional<string>(m, 'type');
      if (type === undefined) break;
      if (!(type in NAMES_V1)) throw unsupportedEvent('PagerDuty', type);
      out.push(message(type, fieldsV1(m)));
    }
    for (const m of messages) {
      const event = optional<string>(m, 'event');
      if (event === undefined) break;
      if (!(event in NAMES_V2)) throw unsupportedEvent('PagerDuty', event);
      out.push(message(event, fieldsV2(m)));
    }
  } else if (has(p, 'event')) {
    const type = optional<string>(p, 'event', 'event_type') ?? null;
    if (type === null || !(type in NAMES_V3)) throw unsupportedEvent('PagerDuty', type);
    out.push(message(type, fieldsV3(field(p, 'event'))));
  }
  return out;
}

registerIntegration({ name: 'pagerduty', displayName: 'PagerDuty', webhookName: 'PagerDuty', allEventTypes: ALL_EVENT_TYPES, payload: 'body', handle });
