import { ApiError, badRequest } from '../../lib/errors.js';

/**
 * Incoming webhook integrations (the reference's zerver/webhooks/<name>/view.py): each turns a
 * third-party service's request into messages. The registry is what POST /external/{name}
 * dispatches on, what /register's realm_incoming_webhook_bots lists and what POST /bots accepts
 * as an incoming webhook bot's service_name.
 */
export interface WebhookRequest {
  /** The body as JSON (null when it is not JSON). */
  payload: unknown;
  rawBody: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Query string and form fields. */
  params: Record<string, string>;
  /** The integration's messages carry the title when the user chose the topic (`topic`). */
  userSpecifiedTopic: boolean;
}

export interface WebhookMessage {
  topic: string;
  body: string;
  /** The event type, for only_events / exclude_events filtering. */
  eventType?: string;
  /**
   * unquote_url_parameters: the service (Bitbucket, Jira) escapes the URL twice, so `stream` and
   * `topic` are percent-decoded once more before use.
   */
  unquoteUrlParameters?: boolean;
}

export interface Integration {
  name: string;
  displayName: string;
  /** The name the reference's webhook_view gives it: messages come from client `Zulip<name>Webhook`. */
  webhookName: string;
  /** Event types the integration can filter on (only_events / exclude_events), or null. */
  allEventTypes: string[] | null;
  /** Query parameters the integration reads, beyond the common ones. */
  params?: string[];
  /** The messages to send; [] when the event is deliberately ignored. */
  handle(req: WebhookRequest): WebhookMessage[];
}

const integrations = new Map<string, Integration>();

export function registerIntegration(integration: Integration): void {
  integrations.set(integration.name, integration);
}

export function integration(name: string): Integration | undefined {
  return integrations.get(name);
}

/** Every integration's own query parameters (the operation's schema accepts them all). */
export function allIntegrationParams(): string[] {
  return [...new Set([...integrations.values()].flatMap((i) => i.params ?? []))];
}

/** check_valid_bot_config for incoming webhook bots: the integration exists (none takes options). */
export function checkIntegrationConfig(name: string, _config: Record<string, string>): void {
  if (!integrations.has(name)) throw badRequest(`Invalid integration '${name}'.`);
}

/** realm_incoming_webhook_bots of /register. */
export function realmIncomingWebhookBots(): Record<string, unknown>[] {
  return [...integrations.values()].map((i) => ({ name: i.name, display_name: i.displayName, all_event_types: i.allEventTypes, config_options: [] }));
}

/** The reference's UnsupportedWebhookEventTypeError: answered with status 200, and logged. */
export function unsupportedEvent(webhookName: string, eventType: string): ApiError {
  return new ApiError(`The '${eventType}' event isn't currently supported by the ${webhookName} webhook; ignoring`, {
    code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE',
    status: 200,
    data: { webhook_name: webhookName, event_type: eventType },
  });
}

/** MissingHTTPEventHeaderError */
export function eventHeader(req: WebhookRequest, header: string): string {
  const value = req.headers[header.toLowerCase()];
  if (!value) throw new ApiError(`Missing the HTTP event header '${header}'`, { code: 'MISSING_HTTP_EVENT_HEADER', data: { header } });
  return value;
}

/** A Json[bool] URL parameter of the reference's views (`true` / `false`). */
export function jsonBoolParam(req: WebhookRequest, name: string, fallback = false): boolean {
  const raw = req.params[name];
  if (raw === undefined) return fallback;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw badRequest(`${name} is not valid JSON`);
  }
  if (typeof value !== 'boolean') throw badRequest(`${name} is not a boolean`);
  return value;
}

/** A payload that is not the JSON object the integration expects. */
export function malformedPayload(): ApiError {
  return badRequest('Malformed JSON');
}

/** Reads a path of a JSON payload, or fails the request as the reference's WildValue does. */
export function field<T = unknown>(value: unknown, ...path: (string | number)[]): T {
  let node = value;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || !(key in (node as object))) throw badRequest(`Missing '${path.join('.')}' argument`);
    node = (node as Record<string | number, unknown>)[key];
  }
  return node as T;
}

export function optional<T = unknown>(value: unknown, ...path: (string | number)[]): T | undefined {
  let node = value;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return (node ?? undefined) as T | undefined;
}
