import { ApiError, badRequest } from '../../lib/errors.js';
import { field, has, int, optional, registerIntegration, str, type WebhookRequest } from './registry.js';
import { pyStr } from './py.js';

/**
 * New Relic (zerver/webhooks/newrelic): incidents of New Relic's workflows, in the incident
 * title's topic; a payload lacking the fields of the default template gets a warning message
 * in topic "New Relic incident alerts". As of 10.2, times are `<time: ... >` with Python's
 * str() of the date (feature level 372; a later reference writes ISO dates).
 */
const ALL_EVENT_TYPES = ['CREATED', 'ACTIVATED', 'CLOSED'];
const PRIORITIES: Record<string, string> = { CRITICAL: ':red_circle:', HIGH: ':orange_circle:', MEDIUM: ':yellow:', LOW: ':blue_circle:' };
const DEFAULT_URL = 'https://one.newrelic.com/alerts-ai';
const EXPECTED_FIELDS = ['issueUrl', 'title', 'priority', 'totalIncidents', 'state', 'createdAt', 'updatedAt', 'alertPolicyNames', 'alertConditionNames'];

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** str() of the UTC datetime of a time in milliseconds, as unix_milliseconds_to_timestamp gives it. */
function timeElement(p: unknown, key: string): string {
  const ms = field(p, key);
  // A string divided by 1000 fails in the reference, as does a date past year 9999.
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0 || ms >= 253402300800000) throw new ApiError('The newrelic webhook expects time in milliseconds.');
  const d = new Date(ms);
  const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  const fraction = ms % 1000 ? `.${pad((ms % 1000) * 1000, 6)}` : '';
  return `<time: ${date}${fraction}+00:00 >`;
}

function strList(p: unknown, key: string, fallback: string): string[] {
  const list = optional<unknown>(p, key) ?? (has(p, key) ? null : [fallback]);
  if (!Array.isArray(list) || list.some((v) => typeof v !== 'string')) throw badRequest(`request['${key}'] is not a list of strings`);
  return list as string[];
}

/** The custom fields the user added to New Relic's template (`zulipCustomFields`). */
function customFields(p: unknown): string {
  const fields = optional<Record<string, unknown>>(p, 'zulipCustomFields') ?? {};
  // check_int takes booleans too, as Python's bool is an int.
  const scalar = (v: unknown) => v === null || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean';
  let out = '';
  for (const [key, value] of Object.entries(fields)) {
    const name = key.charAt(0).toUpperCase() + key.slice(1).toLowerCase();
    if (scalar(value)) out += `- **${name}**: ${pyStr(value)}\n`;
    else if (Array.isArray(value) && value.every(scalar)) out += `- **${name}**: ${value.map((v) => pyStr(v)).join(', ')}\n`;
    else out += `- **${name}**: *Value is not a supported data type*\n`;
  }
  return out;
}

function handle({ payload: p }: WebhookRequest) {
  const missing = EXPECTED_FIELDS.filter((key) => !has(p, key));
  if (missing.length > 0) {
    const body = `\n:danger: A New Relic [incident](${DEFAULT_URL}) updated\n\n**Warning**: Unable to use the default notification format because at least one expected field was missing from the incident payload. See [New Relic integration documentation](/integrations/doc/newrelic).\n\n**Missing fields**: ${missing.map((f) => `\`${f}\``).join(', ')}\n`;
    return [{ topic: 'New Relic incident alerts', body }];
  }
  const priority = str(p, 'priority');
  if (!(priority in PRIORITIES)) throw badRequest("request['priority'] is not one of the allowed values");
  const conditions = strList(p, 'alertConditionNames', 'Unknown condition').map((c) => `\`${c}\``).join(', ');
  const policies = strList(p, 'alertPolicyNames', 'Unknown policy').map((c) => `\`${c}\``).join(', ');
  const owner = optional(p, 'owner') ?? null;
  if (owner !== null && typeof owner !== 'string') throw badRequest("request['owner'] is not a string");
  const acknowledged = owner && owner !== 'N/A' ? `**Acknowledged by**: ${owner}` : '';
  const title = str(p, 'title');
  const url = has(p, 'issueUrl') ? str(p, 'issueUrl') : DEFAULT_URL;
  const total = int(p, 'totalIncidents');
  const state = str(p, 'state');
  if (!ALL_EVENT_TYPES.includes(state)) throw badRequest("request['state'] is not one of the allowed values");
  const created = timeElement(p, 'createdAt');
  const updated = timeElement(p, 'updatedAt');
  const details = `\n- **Alert policies**: ${policies}\n- **Conditions**: ${conditions}\n- **Total incidents**: ${total}\n- **Incident created at**: ${created}\n${customFields(p)}`;
  const body = `\n${PRIORITIES[priority]} **[${title}](${url})**\n\n\`\`\`quote\n**Priority**: ${priority}\n**State**: ${state}\n**Updated at**: ${updated}\n${acknowledged}\n\`\`\`\n\n\`\`\`spoiler :file: Incident details\n${details}\n\`\`\`\n`;
  return [{ topic: title, body, eventType: state }];
}

registerIntegration({ name: 'newrelic', displayName: 'New Relic', webhookName: 'NewRelic', allEventTypes: ALL_EVENT_TYPES, payload: 'body', handle });
