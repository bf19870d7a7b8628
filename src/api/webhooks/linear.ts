import { field, has, int, optional, registerIntegration, str, unsupportedEvent, type WebhookRequest } from './registry.js';

/**
 * Linear (zerver/webhooks/linear): issues, sub-issues and comments, each in topic "Issue:
 * <title>" or "Sub-Issue: <title>"; labels, projects, cycles and reactions are ignored.
 */
const IGNORED = ['IssueLabel', 'Project', 'ProjectUpdate', 'Cycle', 'Reaction'];

const quote = (text: string) => `\n~~~ quote\n${text}\n~~~\n`;

function issueMessage(p: unknown, event: string): string {
  const data = field(p, 'data');
  const action = str(p, 'action');
  int(data, 'number');
  str(data, 'title');
  const team = str(data, 'team', 'name');
  if (action === 'remove') return `This issue has been removed from team ${team}.`;
  let message = `[${event === 'issue' ? 'Issue' : 'Sub-Issue'}](${str(p, 'url')}) was ${action === 'create' ? 'created' : 'updated'} in team ${team}`;
  message += has(data, 'description') ? `:${quote(str(data, 'description'))}` : '.';
  const extra: string[] = [];
  const priority = str(data, 'priorityLabel');
  if (priority !== 'No priority') extra.push(`Priority: ${priority}`);
  if (has(data, 'assignee')) extra.push(`Assignee: ${str(data, 'assignee', 'name')}`);
  extra.push(`Status: ${str(data, 'state', 'name')}`);
  return `${message}\n${extra.join(', ')}.`;
}

function commentMessage(p: unknown): string {
  const data = field(p, 'data');
  const action = str(p, 'action');
  const user = str(data, 'user', 'name');
  if (action === 'remove') return `${user} has removed a comment.`;
  return `${user} [${action === 'create' ? 'commented' : 'updated comment'}](${str(p, 'url')}) on issue **${str(data, 'issue', 'title')}**:${quote(str(data, 'body'))}`;
}

function eventType(p: unknown): string | null {
  const type = str(p, 'type');
  if (type === 'Issue') return has(field(p, 'data'), 'parentId') ? 'sub_issue' : 'issue';
  if (type === 'Comment') return 'comment';
  if (IGNORED.includes(type)) return null;
  // A new kind of event Linear added since.
  throw unsupportedEvent('Linear', `${type}:${optional<string>(p, 'action') ?? '???'}`);
}

function handle({ payload: p }: WebhookRequest) {
  const event = eventType(p);
  if (event === null) return [];
  const topic = event === 'comment' ? `Issue: ${str(p, 'data', 'issue', 'title')}` : `${event === 'issue' ? 'Issue' : 'Sub-Issue'}: ${str(p, 'data', 'title')}`;
  // Linear's messages are not filtered by event type: the reference passes none.
  return [{ topic, body: event === 'comment' ? commentMessage(p) : issueMessage(p, event) }];
}

registerIntegration({ name: 'linear', displayName: 'Linear', webhookName: 'Linear', allEventTypes: ['issue', 'sub_issue', 'comment'], payload: 'body', handle });
