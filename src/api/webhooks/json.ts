import { registerIntegration, type WebhookRequest } from './registry.js';

/**
 * Python's json.dumps(value, indent=2): JSON.stringify's layout, but non-ASCII characters
 * escaped (ensure_ascii) as Python does.
 */
export function pythonJsonDumps(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The generic JSON integration (zerver/webhooks/json): the payload, pretty-printed, in topic "JSON". */
registerIntegration({
  name: 'json',
  displayName: 'JSON formatter',
  webhookName: 'JSON',
  allEventTypes: null,
  handle: (req: WebhookRequest) => [{ topic: 'JSON', body: `\`\`\`json\n${pythonJsonDumps(req.payload)}\n\`\`\`` }],
});
