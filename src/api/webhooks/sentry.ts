import { badRequest } from '../../lib/errors.js';
import { field, has, optional, registerIntegration, unsupportedEvent, type WebhookRequest } from './registry.js';
import { pyStr } from './py.js';

/**
 * Sentry (zerver/webhooks/sentry): events (exceptions, with the frame that raised them, and
 * messages) and issue changes of Sentry's internal integrations, the same through a plain
 * webhook, and the deprecated plugin's payload. The reference reads this payload as a plain
 * dict: values print as Python prints them.
 */
type P = Record<string, any>;

const HIGHLIGHT: Record<string, string> = { go: 'go', java: 'java', javascript: 'javascript', node: 'javascript', python: 'python3', ruby: 'ruby' };

/** The reference's timestamp: the ISO date cut at its fraction, with a space for the T. */
const stamp = (iso: string) => iso.split('.')[0].replace('T', ' ');

function traceback(lines: string[] | null | undefined): string {
  return (lines ?? []).map((line) => (line === '' ? '\n' : `     ${line}\n`)).join('');
}

function eventMessage(event: P): [string, string] {
  const title = field<string>(event, 'title');
  const platform = field<string>(event, 'platform');
  const highlight = HIGHLIGHT[platform] ?? '';
  // The deprecated Raven SDKs are not supported; Sentry's own sample event still says version 6.
  if (platform === 'python' && Number.parseInt(String(field(event, 'version')), 10) < 7 && event.title !== 'This is an example Python exception') {
    throw unsupportedEvent('Sentry', 'Raven SDK');
  }
  const head = `**level:** ${pyStr(field(event, 'level'))}\n**timestamp:** ${stamp(field<string>(event, 'datetime'))}`;
  const webLink = pyStr(field(event, 'web_url'));
  if (has(event, 'exception')) {
    const filename = optional<string>(event, 'metadata', 'filename') ?? null;
    let stacktrace: P | undefined;
    for (const value of [...field<P[]>(event, 'exception', 'values')].reverse()) {
      if (has(value, 'stacktrace')) {
        stacktrace = value.stacktrace;
        break;
      }
    }
    const exception = `\n**New exception:** [${title}](${webLink})\n\`\`\`quote\n${head}\n**filename:** ${pyStr(filename)}\n\`\`\`\n`;
    if (stacktrace && filename) {
      const frame = [...field<P[]>(stacktrace, 'frames')].reverse().find((f) => (f.filename ?? null) === filename);
      if (frame && frame.context_line != null) {
        const context = `${traceback(frame.pre_context)}---> ${frame.context_line}\n${traceback(frame.post_context)}`;
        return [title, `${exception}\nTraceback:\n\`\`\`${highlight}\n${context}\`\`\`\n`];
      }
    }
    return [title, exception];
  }
  if (has(event, 'logentry')) return [title, `\n**New message event:** [${title}](${webLink})\n\`\`\`quote\n${head}\n\`\`\`\n`];
  throw unsupportedEvent('Sentry', 'unknown-event type');
}

function issueMessage(action: string, issue: P, actor: P): [string, string] {
  const title = field<string>(issue, 'title');
  const assignedTo = field<P | null>(issue, 'assignedTo');
  const lastSeen = stamp(field<string>(issue, 'lastSeen'));
  const assignee = assignedTo ? (assignedTo.type === 'team' ? `team ${pyStr(assignedTo.name)}` : pyStr(field(assignedTo, 'name'))) : 'No one';
  if (action === 'created') return [title, `\n**New issue created:** ${title}\n\`\`\`quote\n**level:** ${pyStr(field(issue, 'level'))}\n**timestamp:** ${lastSeen}\n**assignee:** ${assignee}\n\`\`\`\n`];
  const by = () => pyStr(field(actor, 'name'));
  if (action === 'resolved') return [title, `\nIssue **${title}** was marked as resolved by **${by()}**.\n`];
  if (action === 'assigned') return [title, `\nIssue **${title}** has now been assigned to **${assignee}** by **${by()}**.\n`];
  if (action === 'ignored') return [title, `\nIssue **${title}** was ignored by **${by()}**.\n`];
  throw unsupportedEvent('Sentry', `${action} action`);
}

/**
 * A plain webhook's payload, made to look like an internal integration's: the event's link
 * and a date from its timestamp (the reference's transform_webhook_payload).
 */
function transform(payload: P): P | null {
  const event = (payload.event ?? {}) as P;
  if (!event.event_id) return null;
  try {
    event.web_url = new URL(`events/${event.event_id}/`, field<string>(payload, 'url')).href;
  } catch {
    throw badRequest("Invalid 'url' argument");
  }
  const timestamp = Number(event.timestamp ?? field(event, 'received'));
  if (!Number.isFinite(timestamp)) throw badRequest("Missing 'event.timestamp' argument");
  event.datetime = new Date(Math.floor(timestamp * 1000)).toISOString().replace(/\.\d+Z$/, '.000000+00:00');
  return payload;
}

function handle({ payload }: WebhookRequest) {
  const p = payload as P;
  let data = (p.data ?? null) as P | null;
  if (data === null) data = transform(p);
  let topic: string;
  let body: string;
  if (data && typeof data === 'object' && Object.keys(data).length > 0) {
    if (has(data, 'event')) [topic, body] = eventMessage(data.event);
    else if (has(data, 'issue')) [topic, body] = issueMessage(pyStr(field(p, 'action')), data.issue, field(p, 'actor'));
    else throw unsupportedEvent('Sentry', pyStr(Object.keys(data)));
  } else {
    topic = pyStr(p.project_name);
    body = `\nNew [issue](${pyStr(p.url)}) (level: ${String(field(p, 'level')).toUpperCase()}):\n\n\`\`\` quote\n${pyStr(p.message)}\n\`\`\`\n`;
  }
  return [{ topic, body }];
}

registerIntegration({ name: 'sentry', displayName: 'Sentry', webhookName: 'Sentry', allEventTypes: null, payload: 'body', handle });
