import { registerIntegration, str, type WebhookRequest } from './registry.js';

/** Errbit (zerver/webhooks/errbit): a problem, in topic "<app> / <environment>". */
function handle({ payload: p }: WebhookRequest) {
  const topic = `${str(p, 'problem', 'app_name')} / ${str(p, 'problem', 'environment')}`;
  return [{ topic, body: `[${str(p, 'problem', 'error_class')}](${str(p, 'problem', 'url')}): "${str(p, 'problem', 'message')}" occurred.` }];
}

registerIntegration({ name: 'errbit', displayName: 'Errbit', webhookName: 'Errbit', allEventTypes: null, payload: 'body', handle });
