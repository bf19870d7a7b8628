import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/**
 * A stand-in for the push notification service (the reference's zilencer, push.zulipchat.com),
 * which these machines cannot reach. It checks every request as the service's own views check
 * it (zilencer/views.py, zilencer/auth.py of zulip/zulip main, late 2025: the endpoints of the
 * legacy, not end-to-end encrypted protocol), keeps what it was sent, and answers as the service
 * answers. It pretends to be no phone: a notification it takes is only recorded.
 *
 * Not checked, since no network is at hand: the contact address's MX record, and disposable
 * address domains.
 */
export interface BouncerRequest {
  method: string;
  endpoint: string;
  /** The server's zulip_org_id, for authenticated endpoints. */
  server: string | null;
  params: Record<string, string>;
  json: any;
  status: number;
  answer: any;
}

interface Device {
  server: string;
  userId: number | null;
  userUuid: string | null;
  kind: number;
  token: string;
  iosAppId: string | null;
}

export interface StandInBouncer {
  url: string;
  requests: BouncerRequest[];
  /** Answers the next `n` authenticated requests with `status` (503: the service's trouble). */
  failNext(n: number, status?: number): void;
  /** Whether the service pushes for registered servers (false: PUSH_NOTIFICATIONS_DISALLOWED). */
  canPush: boolean;
  /** While set, answers wait for it (a request is recorded at once): a notification on its way. */
  holdAnswers: Promise<unknown> | null;
  servers: Map<string, { key: string; hostname: string; contactEmail: string; deactivated: boolean }>;
  realms: Map<string, { server: string; id: number; name: string }>;
  devices: Device[];
  /** Requests to an endpoint, oldest first. */
  to(endpoint: string): BouncerRequest[];
  waitFor(endpoint: string, count?: number, timeoutMs?: number): Promise<BouncerRequest[]>;
}

class Refusal extends Error {
  constructor(msg: string, readonly status = 400, readonly code = 'BAD_REQUEST', readonly extra: Record<string, unknown> = {}) {
    super(msg);
  }
}

const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const APP_ID = /^[.a-zA-Z0-9-]+$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const APNS = 1;
const FCM = 2;

function required(params: Record<string, string>, name: string): string {
  const value = params[name];
  if (value === undefined) throw new Refusal(`Missing '${name}' argument`, 400, 'REQUEST_VARIABLE_MISSING');
  return value;
}
function nonEmpty(params: Record<string, string>, name: string): string {
  const value = required(params, name).trim();
  if (value === '') throw new Refusal(`${name} cannot be blank.`);
  return value;
}
function jsonInt(params: Record<string, string>, name: string, optional = false): number | null {
  const raw = optional ? params[name] : required(params, name);
  if (raw === undefined) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new Refusal(`${name} is not valid JSON`, 400, 'INVALID_JSON');
  }
  if (!Number.isInteger(value)) throw new Refusal(`${name} is not an integer`);
  return value as number;
}
function jsonList(params: Record<string, string>, name: string, optional = false): unknown[] | null {
  const raw = optional ? params[name] : required(params, name);
  if (raw === undefined) return null;
  const value = JSON.parse(raw);
  if (!Array.isArray(value)) throw new Refusal(`${name} is not a list`);
  return value;
}
/** validate_bouncer_token_request */
function validateToken(token: string, kind: number): void {
  if (kind !== APNS && kind !== FCM) throw new Refusal('Invalid token type');
  if (token === '' || token.length > 4096) throw new Refusal('Empty or invalid length token');
  if (kind === APNS && !/^(?:[0-9a-fA-F]{2})*$/.test(token)) throw new Refusal('Invalid APNS token');
}
/** validate_hostname_or_raise_error (URLValidator's host part, roughly). */
function validateHostname(hostname: string): void {
  let parsed: URL;
  try {
    parsed = new URL(`http://${hostname}`);
  } catch {
    throw new Refusal(`${hostname} is not a valid hostname`);
  }
  if ((parsed.pathname !== '/' && parsed.pathname !== '') || parsed.search || parsed.hash || hostname.includes('/')) throw new Refusal(`${hostname} contains invalid components (e.g., path, query, fragment).`);
  if (!/^(?:[a-z0-9-]+\.)*[a-z0-9-]+(?::\d{1,5})?$/i.test(hostname)) throw new Refusal(`${hostname} is not a valid hostname`);
}

export async function startStandInBouncer(t: { teardown(fn: () => unknown): void }): Promise<StandInBouncer> {
  let failures = 0;
  let failStatus = 503;
  const waiters: (() => void)[] = [];
  const b: StandInBouncer = {
    url: '',
    requests: [],
    canPush: true,
    holdAnswers: null,
    servers: new Map(),
    realms: new Map(),
    devices: [],
    failNext(n, status = 503) {
      failures = n;
      failStatus = status;
    },
    to: (endpoint) => b.requests.filter((r) => r.endpoint === endpoint && r.status === 200),
    async waitFor(endpoint, count = 1, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (b.to(endpoint).length < count) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} ${endpoint} request(s); have ${b.to(endpoint).length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 250);
        });
      }
      return b.to(endpoint).slice(0, count);
    },
  };

  /** zilencer/auth.py authenticated_remote_server_view */
  function authenticate(req: IncomingMessage): string {
    const header = req.headers.authorization ?? '';
    if (!header.startsWith('Basic ')) throw new Refusal('Missing authorization header for basic auth', 401, 'UNAUTHORIZED');
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
    const at = decoded.indexOf(':');
    const role = decoded.slice(0, at);
    const key = decoded.slice(at + 1);
    if (role.includes('@')) throw new Refusal('Must validate with valid Zulip server API key');
    const server = b.servers.get(role);
    if (!server) throw new Refusal(`Zulip server auth failure: ${role} is not registered -- did you run \`manage.py register_server\`?`, 401, 'INVALID_ZULIP_SERVER', { role });
    if (server.key !== key) throw new Refusal(`Zulip server auth failure: key does not match role ${role}`, 401, 'INVALID_ZULIP_SERVER', { role });
    if (server.deactivated) throw new Refusal('The mobile push notification service registration for your server has been deactivated', 401, 'REMOTE_SERVER_DEACTIVATED');
    return role;
  }

  /** get_remote_realm_helper: null for a realm not known yet; another server's is refused. */
  function remoteRealm(server: string, uuid: string | undefined): { server: string } | null {
    if (uuid === undefined) return null;
    const realm = b.realms.get(uuid);
    if (!realm) return null;
    if (realm.server !== server) throw new Refusal('Organization registered to a different Zulip server', 403, 'REMOTE_REALM_SERVER_MISMATCH_ERROR');
    return realm;
  }

  function identity(p: { user_id?: unknown; user_uuid?: unknown }): (d: Device) => boolean {
    const id = p.user_id === undefined || p.user_id === null ? null : Number(p.user_id);
    const uuid = typeof p.user_uuid === 'string' ? p.user_uuid : null;
    // UserPushIdentityCompat asserts one of them: a server error, not a client one.
    if (id === null && uuid === null) throw new Refusal('Internal server error', 500, 'BAD_REQUEST');
    return (d) => (uuid !== null && d.userUuid === uuid) || (id !== null && d.userId === id);
  }

  const views: Record<string, (req: IncomingMessage, p: Record<string, string>, json: any) => Record<string, unknown>> = {
    'POST server/register': (_req, p) => {
      const orgId = nonEmpty(p, 'zulip_org_id');
      const orgKey = nonEmpty(p, 'zulip_org_key');
      if (orgId.length !== 36) throw new Refusal('zulip_org_id is not length 36');
      if (orgKey.length !== 64) throw new Refusal('zulip_org_key is not length 64');
      const hostname = required(p, 'hostname');
      if (hostname.length > 128) throw new Refusal('hostname is too long');
      const contactEmail = required(p, 'contact_email');
      const newKey = p.new_org_key;
      if (newKey !== undefined && newKey.length !== 64) throw new Refusal('new_org_key is not length 64');
      validateHostname(hostname);
      if (!EMAIL.test(contactEmail)) throw new Refusal('Invalid server administrator email address: Enter a valid email address.', 400, 'BAD_REQUEST', { email_reason: 'Enter a valid email address.' });
      if (contactEmail.split('@')[1].toLowerCase() === 'example.com') throw new Refusal('Invalid server administrator email address: example.com is not a valid email domain.', 400, 'BAD_REQUEST', { email_reason: 'example.com is not a valid email domain.' });
      if (!UUID4.test(orgId)) throw new Refusal('Invalid UUID');
      const existing = b.servers.get(orgId);
      if (existing) {
        if (existing.key !== orgKey) throw new Refusal(`Zulip server auth failure: key does not match role ${orgId}`, 400, 'INVALID_ZULIP_SERVER', { role: orgId });
        if (existing.deactivated) throw new Refusal('The mobile push notification service registration for your server has been deactivated', 401, 'REMOTE_SERVER_DEACTIVATED');
      } else if ([...b.servers.values()].some((s) => s.hostname === hostname && !s.deactivated)) {
        throw new Refusal(`A server with hostname ${hostname} already exists`, 400, 'HOSTNAME_ALREADY_IN_USE_BOUNCER_ERROR', { hostname });
      }
      b.servers.set(orgId, { key: newKey ?? orgKey, hostname, contactEmail, deactivated: false });
      return { created: !existing };
    },
    'POST server/deactivate': (req) => {
      b.servers.get(authenticate(req))!.deactivated = true;
      return {};
    },
    'GET server/analytics/status': (req) => {
      authenticate(req);
      return { last_realm_count_id: 0, last_installation_count_id: 0, last_realmauditlog_id: 0 };
    },
    'POST server/analytics': (req, p) => {
      const server = authenticate(req);
      jsonList(p, 'realm_counts');
      jsonList(p, 'installation_counts');
      jsonList(p, 'realmauditlog_rows', true);
      const realms = (jsonList(p, 'realms', true) ?? []) as Record<string, unknown>[];
      const fields = ['id', 'host', 'url', 'name', 'org_type', 'date_created', 'deactivated', 'is_system_bot_realm', 'authentication_methods', 'uuid', 'uuid_owner_secret'];
      for (const realm of realms) {
        // RealmDataForAnalytics: extra="forbid", and each field typed.
        for (const key of Object.keys(realm)) if (!fields.includes(key)) throw new Refusal(`realms: extra field ${key}`);
        if (!Number.isInteger(realm.id) || typeof realm.host !== 'string' || typeof realm.url !== 'string' || typeof realm.date_created !== 'number' || typeof realm.deactivated !== 'boolean') throw new Refusal('realms: invalid realm data');
        if (!UUID4.test(String(realm.uuid))) throw new Refusal('realms: uuid is not a UUID4');
        if (![0, 10, 20, 30, 35, 40, 50, 60, 70, 80, 90, 100, 1000].includes(Number(realm.org_type ?? 0))) throw new Refusal('Not a valid org_type value');
        const known = b.realms.get(String(realm.uuid));
        if (known && known.server !== server) throw new Refusal('Duplicate registration detected.');
        b.realms.set(String(realm.uuid), { server, id: realm.id as number, name: String(realm.name ?? '') });
      }
      if (p.version !== undefined) JSON.parse(p.version);
      jsonInt(p, 'api_feature_level', true);
      return { realms: Object.fromEntries(realms.map((r) => [r.uuid, { can_push: b.canPush, expected_end_timestamp: null }])) };
    },
    'POST push/register': (req, p) => {
      const server = authenticate(req);
      const token = nonEmpty(p, 'token');
      const kind = jsonInt(p, 'token_kind')!;
      const userId = jsonInt(p, 'user_id', true);
      const iosAppId = p.ios_app_id ?? null;
      if (iosAppId !== null && !APP_ID.test(iosAppId)) throw new Refusal('Invalid ios_app_id');
      validateToken(token, kind);
      if (kind === APNS && iosAppId === null) throw new Refusal('Missing ios_app_id');
      if (userId === null && p.user_uuid === undefined) throw new Refusal('Missing user_id or user_uuid');
      if (p.realm_uuid !== undefined && p.user_uuid === undefined) throw new Refusal('Internal server error', 500);
      remoteRealm(server, p.realm_uuid);
      const userUuid = p.user_uuid ?? null;
      // With both, the registration by id goes and one by uuid is made.
      if (userId !== null && userUuid !== null) b.devices = b.devices.filter((d) => !(d.server === server && d.token === token && d.kind === kind && d.userId === userId));
      if (!b.devices.some((d) => d.server === server && d.kind === kind && d.token === token && d.userUuid === userUuid && (userUuid !== null || d.userId === userId))) {
        b.devices.push({ server, userId: userUuid !== null ? null : userId, userUuid, kind, token, iosAppId });
      }
      return {};
    },
    'POST push/unregister': (req, p) => {
      const server = authenticate(req);
      const token = nonEmpty(p, 'token');
      const kind = jsonInt(p, 'token_kind')!;
      validateToken(token, kind);
      const mine = identity({ user_id: jsonInt(p, 'user_id', true), user_uuid: p.user_uuid });
      const matches = (d: Device) => d.server === server && d.kind === kind && (kind === APNS ? d.token.toLowerCase() === token.toLowerCase() : d.token === token) && mine(d);
      if (!b.devices.some(matches)) throw new Refusal('Token does not exist');
      b.devices = b.devices.filter((d) => !matches(d));
      return {};
    },
    'POST push/unregister/all': (req, p) => {
      const server = authenticate(req);
      const mine = identity({ user_id: jsonInt(p, 'user_id', true), user_uuid: p.user_uuid });
      b.devices = b.devices.filter((d) => !(d.server === server && mine(d)));
      return {};
    },
    'POST push/test_notification': (req, _p, json) => {
      const server = authenticate(req);
      // TestNotificationPayload: extra="forbid", every field typed.
      const fields = ['token', 'token_kind', 'user_id', 'user_uuid', 'realm_uuid', 'base_payload'];
      if (json === null || typeof json !== 'object') throw new Refusal('Malformed JSON');
      for (const key of Object.keys(json)) if (!fields.includes(key)) throw new Refusal(`extra field ${key}`);
      if (typeof json.token !== 'string' || !Number.isInteger(json.token_kind) || !Number.isInteger(json.user_id) || typeof json.user_uuid !== 'string' || typeof json.base_payload !== 'object') throw new Refusal('invalid test notification payload');
      remoteRealm(server, json.realm_uuid ?? undefined);
      const mine = identity(json);
      const device = b.devices.find((d) => d.server === server && d.kind === json.token_kind && (d.kind === APNS ? d.token.toLowerCase() === json.token.toLowerCase() : d.token === json.token) && mine(d));
      if (!device) throw new Refusal('Device not recognized by the push bouncer', 400, 'INVALID_REMOTE_PUSH_DEVICE_TOKEN');
      return {};
    },
    'POST push/notify': (req, _p, json) => {
      const server = authenticate(req);
      if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new Refusal('Malformed JSON');
      // RemoteServerNotificationPayload: each field typed.
      const dicts = ['gcm_payload', 'apns_payload', 'gcm_options'];
      for (const key of dicts) if (json[key] !== undefined && (typeof json[key] !== 'object' || Array.isArray(json[key]))) throw new Refusal(`${key} is not a dict`);
      for (const key of ['android_devices', 'apple_devices']) if (json[key] !== undefined && (!Array.isArray(json[key]) || json[key].some((x: unknown) => typeof x !== 'string'))) throw new Refusal(`${key} is not a list of strings`);
      if (json.user_id !== undefined && json.user_id !== null && !Number.isInteger(json.user_id)) throw new Refusal('user_id is not an integer');
      const mine = identity(json);
      if (json.realm_uuid !== undefined && json.realm_uuid !== null && typeof json.user_uuid !== 'string') throw new Refusal('Internal server error', 500);
      const realm = remoteRealm(server, json.realm_uuid ?? undefined);
      if (!b.canPush) throw new Refusal("Your plan doesn't allow sending push notifications. Reason provided by the server: Push notifications are not included in this plan.", 400, 'PUSH_NOTIFICATIONS_DISALLOWED');
      const ours = b.devices.filter((d) => d.server === server && mine(d));
      const android = ours.filter((d) => d.kind === FCM);
      const apple = ours.filter((d) => d.kind === APNS);
      const known = (list: Device[], tokens: string[] = [], apns = false) => tokens.filter((tok) => !list.some((d) => (apns ? d.token.toLowerCase() === tok.toLowerCase() : d.token === tok)));
      return {
        total_android_devices: android.length,
        total_apple_devices: apple.length,
        deleted_devices: { android_devices: known(android, json.android_devices).sort(), apple_devices: known(apple, json.apple_devices, true).sort() },
        realm: realm ? { can_push: b.canPush, expected_end_timestamp: null } : null,
      };
    },
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://bouncer');
    const endpoint = url.pathname.replace(/^\/api\/v1\/remotes\//, '');
    const params: Record<string, string> = Object.fromEntries(url.searchParams);
    let json: any = null;
    if ((req.headers['content-type'] ?? '').startsWith('application/json')) {
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
    } else Object.assign(params, Object.fromEntries(new URLSearchParams(body)));
    const record: BouncerRequest = { method: req.method ?? '', endpoint, server: null, params, json, status: 200, answer: null };
    let status = 200;
    let answer: Record<string, unknown>;
    try {
      const view = views[`${req.method} ${endpoint}`];
      if (!view) throw new Refusal('Not Found', 404, 'NOT_FOUND');
      if (endpoint !== 'server/register' && failures > 0) {
        failures--;
        throw new Refusal('Service Unavailable', failStatus, 'SERVICE_UNAVAILABLE');
      }
      if (json === undefined) throw new Refusal('Malformed JSON');
      answer = { result: 'success', msg: '', ...view(req, params, json) };
    } catch (err) {
      const r = err instanceof Refusal ? err : new Refusal(String(err), 500);
      status = r.status;
      answer = { result: 'error', msg: r.message, code: r.code, ...r.extra };
    }
    const auth = req.headers.authorization;
    record.server = auth ? Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':')[0] : null;
    record.status = status;
    record.answer = answer;
    b.requests.push(record);
    for (const wake of waiters.splice(0)) wake();
    if (b.holdAnswers) await b.holdAnswers;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer));
  };
  const server = createServer((req, res) => void handle(req, res));
  const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
  b.url = `http://127.0.0.1:${port}`;
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return b;
}
