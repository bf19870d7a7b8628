import type { Command } from 'commander';
import { doSetRealmDeactivated } from '../api/realm/deactivate.js';
import type { ResolvedConfig } from '../lib/config.js';
import type { RealmRecord, UserRecord } from '../model/types.js';
import { createRealm, describeCreatedRealm, inProcess } from '../realms.js';
import type { Directory } from '../store/directory.js';
import { openShardStore } from '../store/shard-store.js';
import type { CommandResult } from '../host/user-commands.js';
import { realmUrl } from '../zuliprc.js';
import { cliConfig, CliError, findRealm, knownUrls, realmLabel, withReadAccess, withRealmShard, withWriteAccess } from './context.js';
import { runningServer, type ServerInfo } from './server-client.js';

interface CreateOptions {
  subdomain: string;
  name: string;
  ownerEmail: string;
  ownerName?: string;
  password?: string;
}

async function create(opts: CreateOptions): Promise<void> {
  // Realm ids and placements are the cluster's: a node's organizations come from etcd.
  if (cliConfig().cluster) throw new CliError('this server is a cluster node: create organizations with stoa cluster create-org');
  const ownerFullName = opts.ownerName ?? opts.ownerEmail.split('@')[0];
  const server = runningServer(cliConfig().dataDir);
  if (server) {
    // The server makes it: it knows its own URLs, and serves the realm at once.
    const result = await server.post<CommandResult>('/realm/create', { subdomain: opts.subdomain, name: opts.name.trim(), ownerEmail: opts.ownerEmail, ownerFullName, ownerPassword: opts.password });
    if (!result.ok) throw new CliError(result.error);
    return console.log(result.value.text);
  }
  const config = cliConfig(true);
  const created = await withWriteAccess(config, (directory) =>
    createRealm(
      config,
      directory,
      inProcess(config),
      { subdomain: opts.subdomain, name: opts.name.trim(), ownerEmail: opts.ownerEmail, ownerFullName, ownerPassword: opts.password },
    ),
  );
  console.log(describeCreatedRealm(created));
}

interface RealmRow {
  subdomain: string;
  name: string;
  id: number;
  shard: number;
  url: string;
  users: number;
  deactivated: boolean;
  held?: string;
}

/** Reads each realm's record and counts its active human users straight from the shard stores. */
async function listRows(config: ResolvedConfig, directory: Directory): Promise<RealmRow[]> {
  const entries = directory.list();
  const rows: RealmRow[] = [];
  for (const shardIndex of new Set(entries.map((e) => e.shard))) {
    const store = openShardStore(config.dataDir, shardIndex);
    try {
      for (const entry of entries.filter((e) => e.shard === shardIndex)) {
        const record = store.realms.get(entry.id) as RealmRecord | undefined;
        let users = 0;
        for (const { value } of store.users.getRange({ start: [entry.id], end: [entry.id + 1] })) {
          const user = value as UserRecord;
          if (user.isActive && !user.isBot) users++;
        }
        const external = knownUrls(config) ? config.externalHost : 'localhost:<port>';
        rows.push({ ...entry, url: realmUrl({ scheme: config.scheme, externalHost: external }, entry.subdomain), users, deactivated: record?.deactivated ?? false });
      }
    } finally {
      await store.env.close();
    }
  }
  return rows.sort((a, b) => a.id - b.id);
}

function table(rows: RealmRow[]): string {
  const cells = [
    ['SUBDOMAIN', 'NAME', 'ID', 'SHARD', 'URL', 'USERS', 'STATUS'],
    // A cluster node's copy of an organization served elsewhere (src/cluster/) says so.
    ...rows.map((r) => [r.subdomain || "''", r.name, String(r.id), String(r.shard), r.url, String(r.users), r.held ?? (r.deactivated ? 'deactivated' : 'active')]),
  ];
  const widths = cells[0].map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  return cells.map((row) => row.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

async function list(opts: { json?: boolean }): Promise<void> {
  let config = cliConfig();
  // A running server's URLs are the ones it answers at, whatever this shell's variables say.
  const server = runningServer(config.dataDir);
  if (server) {
    const info = await server.get<ServerInfo>('/info');
    config = { ...config, externalHost: info.externalHost, scheme: info.scheme, port: info.port };
  }
  const rows = await withReadAccess(config, async (directory) => (directory ? listRows(config, directory) : []));
  if (opts.json) console.log(JSON.stringify(rows, null, 2));
  else if (rows.length === 0) console.log(`No realms in ${config.dataDir} yet (the server creates the root realm on its first start).`);
  else console.log(table(rows));
}

async function setDeactivated(subdomain: string, deactivated: boolean): Promise<void> {
  const config = cliConfig();
  const server = runningServer(config.dataDir);
  const changed = server
    ? await server.post<CommandResult>('/realm/active', { realm: subdomain, active: !deactivated }).then((r) => {
        if (!r.ok) throw new CliError(r.error);
        return r.value.changed as boolean;
      })
    : await withWriteAccess(config, (directory) =>
    withRealmShard(config, findRealm(directory, subdomain), (shard, realm) => doSetRealmDeactivated(shard, realm, deactivated)),
  );
  const state = deactivated ? 'deactivated' : 'active';
  console.log(changed ? `${realmLabel(subdomain)} is now ${state}` : `${realmLabel(subdomain)} was already ${state}`);
}

export function realmCommands(program: Command): void {
  const realm = program.command('realm').description('create, list, deactivate and reactivate realms (organizations)');

  realm
    .command('create')
    .description('create a realm and its owner, and write the owner\'s zuliprc to <data dir>/<subdomain>.zuliprc')
    .requiredOption('--subdomain <subdomain>', "the realm answers at <subdomain>.<external host>; '' makes the root realm")
    .requiredOption('--name <name>', 'the organization name')
    .requiredOption('--owner-email <email>', "the owner's email")
    .option('--owner-name <full name>', "the owner's full name (default: the email's local part)")
    .option('--password <password>', "the owner's password (default: a generated one, printed)")
    .action(create);

  realm
    .command('list')
    .description('list the realms: subdomain, name, id, shard, URL, active users, status (allowed while the server runs)')
    .option('--json', 'print JSON')
    .action(list);

  realm
    .command('deactivate')
    .description('deactivate a realm: its data stays, every API request answers REALM_DEACTIVATED')
    .requiredOption('--realm <subdomain>', "the realm's subdomain ('' for the root realm)")
    .action((opts: { realm: string }) => setDeactivated(opts.realm, true));

  realm
    .command('reactivate')
    .description('reactivate a deactivated realm')
    .requiredOption('--realm <subdomain>', "the realm's subdomain ('' for the root realm)")
    .action((opts: { realm: string }) => setDeactivated(opts.realm, false));
}
