import { field, has, optional, registerIntegration, str, type WebhookRequest } from './registry.js';

/** Opsgenie (zerver/webhooks/opsgenie): an alert's action, in the integration's topic. */
const ALL_EVENT_TYPES = ['AddTeam', 'UnAcknowledge', 'AddNote', 'TestAction', 'Close', 'Escalate', 'AddRecipient', 'RemoveTags', 'Acknowledge', 'Delete', 'AddTags', 'TakeOwnership', 'Create', 'AssignOwnership'];

// The alert's fields listed under the type, in 10.2's order (escalationName is the payload's).
const FIELDS: [string, string][] = [
  ['note', 'Note'],
  ['recipient', 'Recipient'],
  ['addedTags', 'Tags added'],
  ['team', 'Team added'],
  ['owner', 'Assigned owner'],
  ['escalationName', 'Escalation'],
  ['removedTags', 'Tags removed'],
  ['message', 'Message'],
];

function handle({ payload: p }: WebhookRequest) {
  const alert = field(p, 'alert');
  const type = str(p, 'action');
  const integration = str(p, 'integrationName');
  const tags = (optional<unknown[]>(alert, 'tags') ?? []).map((_, i) => `\`${str(alert, 'tags', i)}\``).join(', ');
  let info = '';
  for (const [key, label] of FIELDS) {
    const from = key === 'escalationName' ? p : alert;
    if (has(from, key)) info += `* **${label}**: ${str(from, key)}\n`;
  }
  if (tags) info += `* **Tags**: ${tags}\n`;
  const body = `[Opsgenie alert for ${integration}](https://app.opsgenie.com/alert/V2#/show/${str(alert, 'alertId')}):\n* **Type**: ${type}\n${info}`.trim();
  return [{ topic: integration, body, eventType: type }];
}

registerIntegration({ name: 'opsgenie', displayName: 'Opsgenie', webhookName: 'Opsgenie', allEventTypes: ALL_EVENT_TYPES, payload: 'body', handle });
