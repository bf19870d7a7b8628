import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { BouncerError, sendToBouncer } from '../api/notify/push/bouncer.js';
import { readRegistration, realmOwnerSecret, realmUuid, registrationPath, writeRegistration, type PushRegistration } from '../model/push-registration.js';
import { pushConfig, type ResolvedConfig } from '../lib/config.js';
import type { RealmRecord } from '../model/types.js';
import { openShardStore } from '../store/shard-store.js';
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../lib/version.js';
import { cliConfig, CliError, withReadAccess } from './context.js';

/**
 * `stoa push register`: registers this server with the push notification service (the
 * reference's `manage.py register_server`), the one way the reference's mobile apps receive
 * notifications. It asks for the operator's consent to the service's terms, sends the server's
 * host name and contact address (`remotes/server/register`), then basic metadata about each
 * organization (`remotes/server/analytics`: names, URLs, UUIDs; no messages, no people), and
 * writes the credentials to <dataDir>/push-registration.json, which a running server picks up.
 * Until then push notifications are off. `stoa push deactivate` ends the registration.
 */
interface RegisterOptions {
  agreeToTermsOfService?: boolean;
  contactEmail?: string;
  rotateKey?: boolean;
}

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
/** get_random_string(64): the reference's zulip_org_key. */
function randomKey(length = 64): string {
  return [...randomBytes(length)].map((b) => ALNUM[b % ALNUM.length]).join('');
}

async function consent(): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = (await rl.question('Do you want to agree to the Zulip Terms of Service and proceed? [Y/n] ')).trim().toLowerCase();
    return answer === '' || answer === 'y' || answer === 'yes';
  } finally {
    rl.close();
  }
}

function failure(err: unknown): never {
  if (err instanceof BouncerError) {
    if (err.code === 'HOSTNAME_ALREADY_IN_USE_BOUNCER_ERROR') {
      throw new CliError('the hostname is already in use by another server at the push notification service; if you control it, transfer the registration as the service documents');
    }
    throw new CliError(`Error received from the push notification service: "${err.message}"`);
  }
  throw err;
}

/** get_realms_info_for_push_bouncer: what the service is told of each organization. */
async function realmsInfo(config: ResolvedConfig, reg: PushRegistration): Promise<Record<string, unknown>[]> {
  return withReadAccess(config, async (directory) => {
    if (!directory) return [];
    const entries = directory.list();
    const out: Record<string, unknown>[] = [];
    for (const shardIndex of new Set(entries.map((e) => e.shard))) {
      const store = openShardStore(config.dataDir, shardIndex, true);
      try {
        for (const entry of entries.filter((e) => e.shard === shardIndex)) {
          const record = store.realms.get(entry.id) as RealmRecord | undefined;
          if (!record) continue;
          const host = record.subdomain ? `${record.subdomain}.${config.externalHost}` : config.externalHost;
          out.push({
            id: record.id,
            host,
            url: `${config.scheme}://${host}`,
            name: record.name,
            org_type: Number(record.settings.org_type ?? 0),
            date_created: record.dateCreated,
            deactivated: record.deactivated,
            is_system_bot_realm: false,
            authentication_methods: { Email: true },
            uuid: realmUuid(reg, record.id),
            uuid_owner_secret: realmOwnerSecret(reg, record.id),
          });
        }
      } finally {
        await store.env.close();
      }
    }
    return out.sort((a, b) => (a.id as number) - (b.id as number));
  });
}

async function register(opts: RegisterOptions): Promise<void> {
  const config = cliConfig(true);
  const { servicesUrl, contactEmail: configured } = pushConfig(config);
  const contactEmail = opts.contactEmail ?? configured;
  if (!contactEmail) throw new CliError('the service needs an address to reach the operator: pass --contact-email or set push.contactEmail');
  const hostname = config.externalHost;
  const existing = readRegistration(config.dataDir);
  console.log(
    [
      'This command registers your server for the Mobile Push Notifications Service.',
      "Doing so will share basic metadata with the service's maintainers:",
      '',
      `* This server's configured hostname: ${hostname}`,
      `* This server's configured contact email address: ${contactEmail}`,
      '* Metadata about each organization hosted by the server; see:',
      '',
      '    <https://zulip.com/doc-permalinks/basic-metadata>',
      '',
      'Use of this service is governed by the Zulip Terms of Service:',
      '',
      '    <https://zulip.com/policies/terms>',
      '',
    ].join('\n'),
  );
  if (!opts.agreeToTermsOfService && !opts.rotateKey && !(await consent())) {
    throw new CliError('not registered: the terms of service were not agreed to (run again with --agree-to-terms-of-service)');
  }
  const reg: PushRegistration = existing ?? { orgId: randomUUID(), orgKey: randomKey(), secret: randomBytes(32).toString('hex'), servicesUrl, hostname, contactEmail, registeredAt: 0 };
  const form: Record<string, string> = { zulip_org_id: reg.orgId, zulip_org_key: reg.orgKey, hostname, contact_email: contactEmail };
  const newKey = opts.rotateKey ? randomKey() : null;
  if (newKey) form.new_org_key = newKey;
  let created: boolean;
  try {
    created = (await sendToBouncer({ servicesUrl, credentials: null, method: 'POST', endpoint: 'server/register', form })).created === true;
  } catch (err) {
    failure(err);
  }
  const next: PushRegistration = { ...reg, orgKey: newKey ?? reg.orgKey, servicesUrl, hostname, contactEmail, registeredAt: Math.floor(Date.now() / 1000) };
  // Written before the metadata goes: the service knows these credentials from now on.
  writeRegistration(config.dataDir, next);
  next.realms = await sendServerData(config, next);
  writeRegistration(config.dataDir, next);
  if (created) console.log('Your server is now registered for the Mobile Push Notification Service!\nA running server starts sending push notifications within seconds.');
  else console.log('Mobile Push Notification Service registration successfully updated!');
}

/** send_server_data_to_push_bouncer, with the organizations' metadata and no usage statistics. */
async function sendServerData(config: ResolvedConfig, reg: PushRegistration): Promise<PushRegistration['realms']> {
  const credentials = { orgId: reg.orgId, orgKey: reg.orgKey };
  const { servicesUrl } = pushConfig(config);
  try {
    await sendToBouncer({ servicesUrl, credentials, method: 'GET', endpoint: 'server/analytics/status' });
    const realms = await realmsInfo(config, reg);
    const res = await sendToBouncer({
      servicesUrl,
      credentials,
      method: 'POST',
      endpoint: 'server/analytics',
      form: {
        realm_counts: '[]',
        installation_counts: '[]',
        realmauditlog_rows: '[]',
        realms: JSON.stringify(realms),
        version: JSON.stringify(ZULIP_VERSION),
        merge_base: JSON.stringify(ZULIP_MERGE_BASE),
        api_feature_level: JSON.stringify(ZULIP_FEATURE_LEVEL),
      },
    });
    return (res.realms ?? {}) as PushRegistration['realms'];
  } catch (err) {
    failure(err);
  }
}

async function deactivate(): Promise<void> {
  const config = cliConfig();
  const reg = readRegistration(config.dataDir);
  if (!reg) throw new CliError('this server is not registered for push notifications');
  try {
    await sendToBouncer({ servicesUrl: pushConfig(config).servicesUrl, credentials: { orgId: reg.orgId, orgKey: reg.orgKey }, method: 'POST', endpoint: 'server/deactivate' });
  } catch (err) {
    failure(err);
  }
  rmSync(registrationPath(config.dataDir));
  console.log('Mobile Push Notification Service registration successfully deactivated!');
}

export function pushCommands(program: Command): void {
  const push = program.command('push').description('mobile push notifications through the push notification service');
  push
    .command('register')
    .description('register this server with the push notification service (or update its registration)')
    .option('--agree-to-terms-of-service', 'agree to the Zulip Terms of Service: https://zulip.com/policies/terms')
    .option('--contact-email <email>', "the operator's address (default: push.contactEmail in the config)")
    .option('--rotate-key', "replace the server's key at the service")
    .action(register);
  push.command('deactivate').description('end the registration; push notifications stop').action(deactivate);
}
