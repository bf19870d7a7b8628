import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import type { EmailConfig } from './lib/mail.js';

/** The project root: this file is compiled to dist/src/config.js. */
export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

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
  /** A node of a cluster (src/cluster/, docs/SCALING.md); null: one server, as without etcd. */
  cluster: ClusterConfig | null;
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

const schema = JSON.parse(readFileSync(resolve(projectRoot, 'schemas/config.schema.json'), 'utf8'));
const validate = new Ajv({ allErrors: false }).compile<Config>(schema);

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
 * Defaults from config/default.json, then the file named by STOA_CONFIG, then STOA_* variables,
 * then `overrides` (tests). The result is validated: a bad option stops the start with a message
 * that names it.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const merged: Record<string, unknown> = readJson(resolve(projectRoot, 'config/default.json'));
  if (env.STOA_CONFIG) Object.assign(merged, readJson(resolve(env.STOA_CONFIG)));
  const fromEnv: Partial<Config> = {
    port: envInt(env, 'STOA_PORT'),
    bind: env.STOA_BIND || undefined,
    dataDir: env.STOA_DATA_DIR || undefined,
    externalHost: env.STOA_EXTERNAL_HOST || undefined,
    shards: envInt(env, 'STOA_SHARDS'),
    logLevel: env.STOA_LOG_LEVEL || undefined,
    heartbeatSeconds: envInt(env, 'STOA_HEARTBEAT_SECONDS'),
    webhookAllowPrivateAddresses: envFlag(env, 'STOA_WEBHOOK_ALLOW_PRIVATE_ADDRESSES'),
  };
  for (const [key, value] of Object.entries({ ...fromEnv, ...overrides })) if (value !== undefined) merged[key] = value;
  applySmtpEnv(env, merged);
  applyClusterEnv(env, merged);
  const limits = env.STOA_RATE_LIMITS;
  if (limits !== undefined && limits !== '' && overrides.rateLimits === undefined) {
    if (limits !== 'on' && limits !== 'off') throw new ConfigError(`STOA_RATE_LIMITS must be "on" or "off", got "${limits}"`);
    merged.rateLimits = { ...(merged.rateLimits as object), enabled: limits === 'on' };
  }
  if (!validate(merged)) {
    const e = validate.errors![0];
    const where = e.instancePath ? `option "${e.instancePath.slice(1).replace(/\//g, '.')}"` : 'config';
    const extra = e.keyword === 'additionalProperties' ? ` "${(e.params as { additionalProperty: string }).additionalProperty}"` : '';
    throw new ConfigError(`invalid ${where}: ${e.message}${extra}`);
  }
  merged.dataDir = resolve(merged.dataDir as string);
  return merged as unknown as Config;
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

export function resolveConfig(config: Config, port: number): ResolvedConfig {
  return {
    ...config,
    port,
    externalHost: (config.externalHost ?? `localhost:${port}`).toLowerCase(),
    shards: config.shards ?? availableParallelism(),
  };
}
