import { registerIntegration, str, type WebhookRequest } from './registry.js';

/**
 * Travis CI (zerver/webhooks/travis): a build's result in topic "builds". Travis posts a form
 * whose `payload` field is the JSON; the event type (push, pull_request) is its `type`.
 */
const GOOD = ['Passed', 'Fixed'];
const BAD = ['Failed', 'Broken', 'Still Failing', 'Errored', 'Canceled'];
const PENDING = ['Pending'];

function handle({ payload: p }: WebhookRequest) {
  const status = str(p, 'status_message');
  const emoji = GOOD.includes(status) ? ':thumbs_up:' : BAD.includes(status) ? ':thumbs_down:' : PENDING.includes(status) ? ':counterclockwise:' : `(No emoji specified for status '${status}'.)`;
  const body = `Author: ${str(p, 'author_name')}\nBuild status: ${status} ${emoji}\nDetails: [changes](${str(p, 'compare_url')}), [build log](${str(p, 'build_url')})`;
  return [{ topic: 'builds', body, eventType: str(p, 'type') }];
}

registerIntegration({ name: 'travis', displayName: 'Travis CI', webhookName: 'Travis', allEventTypes: ['push', 'pull_request'], payload: 'payload', handle });
