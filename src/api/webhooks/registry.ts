import { ApiError, badRequest, missingArgument } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';

/**
 * Incoming webhook integrations (the reference's zerver/webhooks/<name>/view.py): each turns a
 * third-party service's request into messages. The registry is what POST /external/{name}
 * dispatches on, what /register's realm_incoming_webhook_bots lists and what POST /bots accepts
 * as an incoming webhook bot's service_name.
 */
export interface WebhookRequest {
  /** The payload as JSON, read where the integration says (`Integration.payload`); null for 'none'. */
  payload: unknown;
  rawBody: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The body's media type, lower-cased, without parameters (Django's request.content_type). */
  contentType: string;
  /** Query string and form fields the operation knows. */
  params: Record<string, string>;
  /** The integration's messages carry the title when the user chose the topic (`topic`). */
  userSpecifiedTopic: boolean;
  realm: RealmState;
  /** Who posts: the bot whose API key the URL carries (or a user's own key). */
  bot: UserRecord;
  /** The address the owner notices point to (the reference's FromAddress.SUPPORT). */
  support: string;
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

/**
 * What the web app's "Generate URL" form offers for an integration (10.2 lists these as
 * `config_options` of realm_incoming_webhook_bots: key, label, validator name).
 */
export interface UrlOption {
  key: string;
  label: string;
  validator: 'check_string' | 'check_bool';
}

export const BRANCHES_OPTION: UrlOption = { key: 'branches', label: '', validator: 'check_string' };
export const IGNORE_PRIVATE_REPOSITORIES_OPTION: UrlOption = { key: 'ignore_private_repositories', label: 'Exclude notifications from private repositories', validator: 'check_bool' };

/**
 * Where the payload is read: 'body' is the reference's JsonBodyPayload (the raw body as JSON,
 * whatever the content type), 'payload' the `payload` parameter (a form field or the query),
 * 'either' the `payload` parameter when there is one and the body otherwise, 'none' left to
 * the integration.
 */
export type PayloadSource = 'body' | 'payload' | 'either' | 'none';

export interface Integration {
  name: string;
  displayName: string;
  /** The name the reference's webhook_view gives it: messages come from client `Zulip<name>Webhook`. */
  webhookName: string;
  /** Event types the integration can filter on (only_events / exclude_events), or null. */
  allEventTypes: string[] | null;
  /** Query parameters the integration reads, beyond the common ones. */
  params?: string[];
  /** Default 'either'. */
  payload?: PayloadSource;
  urlOptions?: UrlOption[];
  /** Errors the integration raises answer `{ok: false, error}`, as Slack's API does. */
  slackErrors?: boolean;
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

/**
 * check_valid_bot_config for incoming webhook bots: the integration exists. None of these
 * integrations has bot configuration options; the URL options that 10.2 lists under
 * config_options are the URL's business, not the bot's (see the README's Integrations section).
 */
export function checkIntegrationConfig(name: string, _config: Record<string, string>): void {
  if (!integrations.has(name)) throw badRequest(`Invalid integration '${name}'.`);
}

/** realm_incoming_webhook_bots of /register, by name as the reference lists them. */
export function realmIncomingWebhookBots(): Record<string, unknown>[] {
  return [...integrations.values()]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((i) => ({
      name: i.name,
      display_name: i.displayName,
      all_event_types: i.allEventTypes,
      config_options: (i.urlOptions ?? []).map((o) => ({ key: o.key, label: o.label, validator: o.validator })),
    }));
}

/**
 * The reference's UnsupportedWebhookEventTypeError: status 200, which the reference answers
 * with result "success" (as every 2xx error), and the error's message and code.
 */
export function unsupportedEvent(webhookName: string, eventType: string | null): ApiError {
  return new ApiError(`The '${eventType ?? 'None'}' event isn't currently supported by the ${webhookName} webhook; ignoring`, {
    code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE',
    status: 200,
    data: { webhook_name: webhookName, event_type: eventType },
  });
}

/** AnomalousWebhookPayloadError: the request does not look like the service's. */
export function anomalousPayload(webhookName: string): ApiError {
  return new ApiError(`Unable to parse request: Did ${webhookName} generate this event?`, { code: 'ANOMALOUS_WEBHOOK_PAYLOAD', data: { webhook_name: webhookName } });
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

/** A payload that is not the JSON object the integration expects (the reference's InvalidJSONError). */
export function malformedPayload(): ApiError {
  return new ApiError('Malformed JSON', { code: 'INVALID_JSON' });
}

/**
 * An error that the bot's owner also hears of, by a direct message from the Notification Bot
 * (the reference's send_rate_limited_pm_notification_to_bot_owner before raising).
 */
export class OwnerNoticeError extends ApiError {
  constructor(
    msg: string,
    readonly notice: string,
  ) {
    super(msg);
  }
}

/** The payload as the integration declares it, or the reference's error for it. */
export function readPayload(source: PayloadSource, rawBody: string, param: string | undefined): unknown {
  if (source === 'none') return null;
  let text: string;
  if (source === 'payload' || (source === 'either' && param !== undefined)) {
    if (param === undefined) throw missingArgument('payload');
    text = param;
  } else text = rawBody;
  try {
    return JSON.parse(text);
  } catch {
    throw source === 'payload' ? new ApiError('payload is not valid JSON', { code: 'BAD_REQUEST' }) : malformedPayload();
  }
}

/**
 * Reads a path of a JSON payload, or fails the request with the reference's WildValue message
 * (`request['a']['b'] is missing`; the reference answers these with a server error, here 400).
 */
export function field<T = unknown>(value: unknown, ...path: (string | number)[]): T {
  let node = value;
  for (const [i, key] of path.entries()) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) throw badRequest(`${describe(path.slice(0, i + 1))} is missing`);
    node = (node as Record<string | number, unknown>)[key];
  }
  return node as T;
}

export function optional<T = unknown>(value: unknown, ...path: (string | number)[]): T | undefined {
  let node = value;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return (node ?? undefined) as T | undefined;
}

/** A payload string where the reference tames it with check_string. */
export function str(value: unknown, ...path: (string | number)[]): string {
  const v = field(value, ...path);
  if (typeof v !== 'string') throw badRequest(`${describe(path)} is not a string`);
  return v;
}

/** check_int */
export function int(value: unknown, ...path: (string | number)[]): number {
  const v = field(value, ...path);
  if (typeof v !== 'number' || !Number.isInteger(v)) throw badRequest(`${describe(path)} is not an integer`);
  return v;
}

/** The reference's variable name for a payload path: request['a']['b'][0]. */
function describe(path: (string | number)[]): string {
  return `request${path.map((k) => (typeof k === 'number' ? `[${k}]` : `['${k}']`)).join('')}`;
}

/** Python's `in` on a JSON object: the key is there, whatever its value. */
export function has(value: unknown, key: string): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, key);
}

/**
 * Runs `build`; a payload missing what it reads fails with "Invalid payload", and the bot's
 * owner is sent `notice` (the reference's MISCONFIGURED_PAYLOAD_ERROR_MESSAGE handling).
 */
export function orMisconfigured<T>(notice: string, build: () => T): T {
  try {
    return build();
  } catch (err) {
    if (err instanceof ApiError && err.status === 400) throw new OwnerNoticeError('Invalid payload', notice);
    throw err;
  }
}
