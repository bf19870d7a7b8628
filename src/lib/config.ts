import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv';
import { rangeProblem } from './address-ranges.js';
import type { EmailConfig } from './mail.js';

/** The project root: this file is compiled to dist/src/lib/config.js. */
export const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));

export interface Config {
  port: number;
  bind: string;
  dataDir: string;
  externalHost: string | null;
  scheme: 'http' | 'https';
  shards: number | null;
  logLevel: string;
  rootRealm: { name: string; ownerEmail: string; ownerFullName: string };
  fetchApiKeyRateLimit: { failures: number; windowSeconds: number };
  heartbeatSeconds: number;
  queueLifespanSeconds: number;
  /** Per user: how many event queues; per queue: how many unacknowledged events. */
  eventQueues: { maxPerUser: number; maxPendingEvents: number };
  /** API rate limits, as the reference's rules: [window seconds, requests] pairs, each enforced. */
  rateLimits: { enabled: boolean; perUser: [number, number][]; perIp: [number, number][] };
  /** Checked before parameters are parsed or passed on (front/body.ts, lib/input-limits.ts). */
  requestLimits: { bodyBytes: number; params: number; depth: number };
  /** How long a stop waits for requests in flight before it closes their connections. */
  stopGraceSeconds: number;
  /**
   * How long POST /streams/{id}/delete_topic keeps deleting batches before answering
   * `complete: false` (the reference's 50 s); the client repeats the request to go on.
   */
  deleteTopicBudgetMs?: number;
  /**
   * Tests: POST /register also builds afresh every section it serves from the realm's shared
   * copy (api/events/register-shared.ts) and fails if the two answers differ by a byte.
   */
  registerCacheCheck?: boolean;
  /** Embedded bots run in the server (the reference's EMBEDDED_BOTS_ENABLED). */
  embeddedBotsEnabled: boolean;
  /**
   * Outgoing webhooks may reach loopback, private, link-local and multicast addresses. Off by
   * default: the reference sends them through an SSRF-guarding proxy (Smokescreen).
   */
  webhookAllowPrivateAddresses: boolean;
  /** The email gateway (api/email-gateway/): channel addresses, and an SMTP listener if `port` is set. */
  emailGateway: { enabled: boolean; domain: string | null; port: number | null; bind: string; maxMessageBytes: number };
  /** Outgoing mail (invitations): through `smtp` when set, else files in <dataDir>/outbox (lib/mail.ts). */
  email: EmailConfig;
  /** Minutes an invitation stays valid when its creator does not say (the reference's INVITATION_LINK_VALIDITY_DAYS). */
  invitationValidityMinutes: number;
  /**
   * Shortest password accepted for a new account or a password change (the reference's
   * PASSWORD_MIN_LENGTH, 6). The reference's API test suite creates an account with the password
   * "temp", which its test server accepts; a run of that suite sets this to 0.
   */
  passwordMinLength: number;
  /**
   * Reverse proxies (addresses or CIDR ranges) whose X-Forwarded-For and X-Forwarded-Proto are
   * believed (front/client-address.ts); anyone else's are ignored.
   */
  trustedProxies: string[];
  /** Who may read GET /health and GET /metrics (front/monitoring.ts): client addresses or ranges. */
  monitoring: { allowFrom: string[] };
  /** One JSON line per request on stdout (lib/log.ts accessLog). */
  accessLog: boolean;
  /** How long a password reset link works (api/password-reset/). */
  passwordResetValidityMinutes: number;
  /** The BigBlueButton server for calls (api/calls/), or nulls: none. */
  bigBlueButton: { url: string | null; secret: string | null };
  /** A node of a cluster (src/cluster/, docs/SCALING.md); null: one server, as without etcd. */
  cluster: ClusterConfig | null;
  /** Email to people who are away (api/notify/): missed messages, digests, new logins. Read through notifyConfig(). */
  notifications?: Partial<NotificationsConfig>;
  /** Mobile push through the push notification service (api/notify/push/); off until `stoa push register`. */
  push?: Partial<PushConfig>;
}

export interface NotificationsConfig {
  missedMessageEmails: boolean;
  digestEmails: boolean;
  loginEmails: boolean;
  /** Digests go out at this hour (UTC) on each organization's digest weekday, as the reference's daily cron job. */
  digestHourUtc: number;
  /** Tests: look for digests to send this often, instead of daily. */
  digestIntervalSeconds: number | null;
  /** "<name> notifications" in emails; null: the external host (the reference's INSTALLATION_NAME). */
  installationName: string | null;
}

export interface PushConfig {
  /** The push notification service (the reference's ZULIP_SERVICES_URL). */
  servicesUrl: string;
  /** The operator's address, given to the service by `stoa push register`. */
  contactEmail: string | null;
}

const NOTIFICATION_DEFAULTS: NotificationsConfig = { missedMessageEmails: true, digestEmails: true, loginEmails: true, digestHourUtc: 18, digestIntervalSeconds: null, installationName: null };
const PUSH_DEFAULTS: PushConfig = { servicesUrl: 'https://push.zulipchat.com', contactEmail: null };

/** The notification options with every default filled in (a config file may give only some). */
export function notifyConfig(config: Config): NotificationsConfig {
  return { ...NOTIFICATION_DEFAULTS, ...config.notifications };
}

export function pushConfig(config: Config): PushConfig {
  return { ...PUSH_DEFAULTS, ...config.push };
}

export interface ClusterConfig {
  /** etcd's client URLs. */
  etcd: string[];
  nodeId: string;
  /** host:port where the proxy and the other nodes reach this node; default: bind and port. */
  advertise?: string | null;
  leaseSeconds?: number;
  idBlock?: number;
}

/** A config with every default filled in, once the listening port is known. */
export interface ResolvedConfig extends Config {
  externalHost: string;
  shards: number;
}

export class ConfigError extends Error {}

const require = createRequire(import.meta.url);

// Made on first use: shard threads import this module for small helpers (notifyConfig) and
// never validate. `npm run build` compiles the schema into config-validator.cjs
// (build/config-validator.ts), so that the main thread never loads Ajv (1.1 MB of its heap);
// without it, or when the schema has changed since, Ajv compiles it here (its meta-schema
// first: about 150 ms of the start).
let validator: ValidateFunction<Config> | null = null;
function configValidator(): ValidateFunction<Config> {
  if (validator) return validator;
  const text = readFileSync(resolve(projectRoot, 'schemas/config.schema.json'), 'utf8');
  const built = builtValidator();
  if (built?.schemaDigest === createHash('sha256').update(text).digest('hex')) return (validator = built);
  const { Ajv } = require('ajv') as typeof import('ajv');
  return (validator = new Ajv({ allErrors: false }).compile<Config>(JSON.parse(text)));
}

function builtValidator(): (ValidateFunction<Config> & { schemaDigest?: string }) | null {
  try {
    return require('./config-validator.cjs') as ValidateFunction<Config> & { schemaDigest?: string };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return null;
    throw err;
  }
}

function readJson(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read config file ${file}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`config file ${file} is not valid JSON: ${(err as Error).message}`);
  }
}

function envInt(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a non-negative integer, got "${raw}"`);
  return Number(raw);
}

function envFlag(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (raw === '1' || raw === 'true') return true;
  if (raw === '0' || raw === 'false') return false;
  throw new ConfigError(`${name} must be 1 or 0, got "${raw}"`);
}

/**
 * Merges `patch` into `base`: objects key by key, all the way down; anything else (a value, a
 * list, null) replaces what was there. So a config file may name one nested key
 * (`{"rateLimits": {"perIp": [[60, 1000]]}}`) and keep the defaults beside it.
 */
export function deepMerge(base: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch) || !isPlainObject(base)) return patch;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) merged[key] = key in base ? deepMerge(base[key], value) : value;
  return merged;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Defaults from config/default.json, then the file named by STOA_CONFIG, then STOA_* variables,
 * then `overrides` (tests), each merged into the one before (deepMerge). The result is
 * validated: a bad option stops the start with a message that names it.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  let merged = readJson(resolve(projectRoot, 'config/default.json'));
  if (env.STOA_CONFIG) merged = deepMerge(merged, readJson(resolve(env.STOA_CONFIG))) as Record<string, unknown>;
  const fromEnv: Record<string, unknown> = {
    port: envInt(env, 'STOA_PORT'),
    bind: env.STOA_BIND || undefined,
    dataDir: env.STOA_DATA_DIR || undefined,
    externalHost: env.STOA_EXTERNAL_HOST || undefined,
    shards: envInt(env, 'STOA_SHARDS'),
    logLevel: env.STOA_LOG_LEVEL || undefined,
    heartbeatSeconds: envInt(env, 'STOA_HEARTBEAT_SECONDS'),
    webhookAllowPrivateAddresses: envFlag(env, 'STOA_WEBHOOK_ALLOW_PRIVATE_ADDRESSES'),
    accessLog: envFlag(env, 'STOA_ACCESS_LOG'),
    scheme: env.STOA_SCHEME || undefined,
    trustedProxies: envList(env, 'STOA_TRUSTED_PROXIES'),
    rootRealm: definedOnly({ name: env.STOA_ORGANIZATION_NAME || undefined, ownerEmail: env.STOA_OWNER_EMAIL || undefined, ownerFullName: env.STOA_OWNER_NAME || undefined }),
  };
  for (const [key, value] of Object.entries({ ...fromEnv, ...overrides })) if (value !== undefined) merged[key] = deepMerge(merged[key], value);
  applySmtpEnv(env, merged);
  // The push notification service, and the operator's address `stoa push register` gives it.
  if (env.STOA_PUSH_SERVICES_URL) merged.push = { ...(merged.push as object), servicesUrl: env.STOA_PUSH_SERVICES_URL };
  if (env.STOA_PUSH_CONTACT_EMAIL) merged.push = { ...(merged.push as object), contactEmail: env.STOA_PUSH_CONTACT_EMAIL };
  applyClusterEnv(env, merged);
  const limits = env.STOA_RATE_LIMITS;
  if (limits !== undefined && limits !== '' && overrides.rateLimits === undefined) {
    if (limits !== 'on' && limits !== 'off') throw new ConfigError(`STOA_RATE_LIMITS must be "on" or "off", got "${limits}"`);
    merged.rateLimits = { ...(merged.rateLimits as object), enabled: limits === 'on' };
  }
  const validate = configValidator();
  if (!validate(merged)) {
    const e = validate.errors![0];
    const where = e.instancePath ? `option "${e.instancePath.slice(1).replace(/\//g, '.')}"` : 'config';
    const extra = e.keyword === 'additionalProperties' ? ` "${(e.params as { additionalProperty: string }).additionalProperty}"` : '';
    throw new ConfigError(`invalid ${where}: ${e.message}${extra}`);
  }
  // Relative to the project folder, not to wherever the server was started from: `npm start`
  // runs there, and so must a service manager or a shell elsewhere find the same data.
  merged.dataDir = resolve(projectRoot, merged.dataDir as string);
  for (const [option, entries] of [['trustedProxies', merged.trustedProxies], ['monitoring.allowFrom', (merged.monitoring as Config['monitoring']).allowFrom]] as const) {
    const problem = (entries as string[]).map(rangeProblem).find((p) => p !== null);
    if (problem) throw new ConfigError(`invalid option "${option}": ${problem}`);
  }
  const smtp = (merged.email as EmailConfig).smtp;
  if (smtp?.caFile) {
    smtp.caFile = resolve(projectRoot, smtp.caFile);
    try {
      readFileSync(smtp.caFile);
    } catch (err) {
      throw new ConfigError(`invalid option "email.smtp.caFile": cannot read ${smtp.caFile}: ${(err as Error).message}`);
    }
  }
  return merged as unknown as Config;
}

function envList(env: NodeJS.ProcessEnv, name: string): string[] | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  return raw.split(',').map((s) => s.trim()).filter(Boolean);
}

function definedOnly(obj: Record<string, unknown>): Record<string, unknown> | undefined {
  const kept = Object.entries(obj).filter(([, v]) => v !== undefined);
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

/**
 * STOA_SMTP_HOST, STOA_SMTP_PORT, STOA_SMTP_USER, STOA_SMTP_PASSWORD and STOA_EMAIL_FROM, so that
 * a mail password can come from the environment rather than a file.
 */
function applySmtpEnv(env: NodeJS.ProcessEnv, merged: Record<string, unknown>): void {
  const email = { ...(merged.email as EmailConfig | undefined) };
  if (env.STOA_EMAIL_FROM) email.from = env.STOA_EMAIL_FROM;
  if (env.STOA_SMTP_HOST) email.smtp = { ...email.smtp, host: env.STOA_SMTP_HOST };
  if (email.smtp) {
    const port = envInt(env, 'STOA_SMTP_PORT');
    if (port !== undefined) email.smtp.port = port;
    if (env.STOA_SMTP_USER) email.smtp.user = env.STOA_SMTP_USER;
    if (env.STOA_SMTP_PASSWORD) email.smtp.password = env.STOA_SMTP_PASSWORD;
  }
  merged.email = email;
}

/** STOA_ETCD (comma-separated URLs), STOA_NODE_ID and STOA_ADVERTISE make this server a cluster node. */
function applyClusterEnv(env: NodeJS.ProcessEnv, merged: Record<string, unknown>): void {
  if (!env.STOA_ETCD && !env.STOA_NODE_ID && !env.STOA_ADVERTISE) return;
  const cluster = { ...(merged.cluster as ClusterConfig | null) } as Partial<ClusterConfig>;
  if (env.STOA_ETCD) cluster.etcd = env.STOA_ETCD.split(',').map((url) => url.trim()).filter(Boolean);
  if (env.STOA_NODE_ID) cluster.nodeId = env.STOA_NODE_ID;
  if (env.STOA_ADVERTISE) cluster.advertise = env.STOA_ADVERTISE;
  if (!cluster.etcd) throw new ConfigError('STOA_NODE_ID and STOA_ADVERTISE need STOA_ETCD (or cluster.etcd in the config file)');
  if (!cluster.nodeId) throw new ConfigError('STOA_ETCD needs STOA_NODE_ID (or cluster.nodeId in the config file): the name of this node in the cluster');
  merged.cluster = cluster;
}

/** Every STOA_* variable the server and the CLI read. */
export const VARIABLES = [
  'STOA_CONFIG', 'STOA_PORT', 'STOA_BIND', 'STOA_DATA_DIR', 'STOA_EXTERNAL_HOST', 'STOA_SCHEME', 'STOA_SHARDS', 'STOA_LOG_LEVEL',
  'STOA_HEARTBEAT_SECONDS', 'STOA_RATE_LIMITS', 'STOA_WEBHOOK_ALLOW_PRIVATE_ADDRESSES', 'STOA_TRUSTED_PROXIES', 'STOA_ACCESS_LOG',
  'STOA_ORGANIZATION_NAME', 'STOA_OWNER_EMAIL', 'STOA_OWNER_NAME',
  'STOA_EMAIL_FROM', 'STOA_SMTP_HOST', 'STOA_SMTP_PORT', 'STOA_SMTP_USER', 'STOA_SMTP_PASSWORD',
  'STOA_ETCD', 'STOA_NODE_ID', 'STOA_ADVERTISE',
  'STOA_PUSH_SERVICES_URL', 'STOA_PUSH_CONTACT_EMAIL',
  'STOA_SLACK_TOKEN',
];
/** Variables of the test suite and the bench, which the server does not read but need no warning. */
const TOOL_VARIABLES = /^STOA_(TEST_|FUZZ_|BENCH_|PYTHON_ZULIP_API$)/;

/**
 * STOA_* variables that nothing reads: a misspelt one would otherwise be silently ignored
 * (`STOA_PROT=80` starting on 9991). Each is named, with the known variable it is nearest to.
 */
export function unknownVariables(env: NodeJS.ProcessEnv = process.env): string[] {
  return Object.keys(env)
    .filter((name) => name.startsWith('STOA_') && !VARIABLES.includes(name) && !TOOL_VARIABLES.test(name))
    .sort()
    .map((name) => {
      const near = VARIABLES.map((known) => [known, editDistance(name, known)] as const).sort((a, b) => a[1] - b[1])[0];
      return `unknown variable ${name} is ignored${near[1] <= 3 ? ` (did you mean ${near[0]}?)` : ''}`;
    });
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

export function resolveConfig(config: Config, port: number): ResolvedConfig {
  return {
    ...config,
    port,
    externalHost: (config.externalHost ?? `localhost:${port}`).toLowerCase(),
    shards: configuredShards(config),
  };
}

/** The shard count the config asks for (a store may use more: server.ts). */
export const configuredShards = (config: Config): number => config.shards ?? availableParallelism();
