import type { Command } from 'commander';
import type { Etcd3 } from 'etcd3';
import { CliError } from './context.js';

/**
 * `stoa cluster ...`: several nodes behind a proxy (docs/SCALING.md). These commands talk to
 * etcd (--etcd, or STOA_ETCD) and to the running nodes; unlike the other write commands they
 * need the nodes running, not stopped.
 */
async function withEtcd<T>(opts: { etcd?: string }, fn: (client: Etcd3) => Promise<T>): Promise<T> {
  const endpoints = (opts.etcd ?? process.env.STOA_ETCD ?? '').split(',').map((u) => u.trim()).filter(Boolean);
  if (endpoints.length === 0) throw new CliError('no etcd address: give --etcd <url,...> or set STOA_ETCD');
  const { connect } = await import('../cluster/etcd.js');
  const { OperatorError } = await import('../cluster/operator.js');
  const client = connect(endpoints);
  try {
    return await fn(client);
  } catch (err) {
    if (err instanceof OperatorError) throw new CliError(err.message);
    if ((err as Error).name?.startsWith('GRPC') || /UNAVAILABLE|deadline/i.test((err as Error).message)) throw new CliError(`etcd at ${endpoints.join(',')} does not answer: ${(err as Error).message}`);
    throw err;
  } finally {
    client.close();
  }
}

const mib = (bytes: number) => `${Math.round(bytes / 1048576)} MiB`;

async function nodes(opts: { etcd?: string; json?: boolean }): Promise<void> {
  const { listNodes } = await import('../cluster/operator.js');
  const list = await withEtcd(opts, listNodes);
  if (opts.json) return void console.log(JSON.stringify(list, null, 2));
  if (list.length === 0) return void console.log('No node has joined this cluster yet.');
  for (const node of list) {
    const s = node.status;
    const health = !node.alive ? 'DOWN' : s ? `up ${s.uptimeSeconds}s, ${mib(s.rssBytes)} RSS, ${s.cpuSeconds.toFixed(1)} s CPU` : 'alive, not answering';
    console.log(`${node.id}  ${node.address}  ${health}  load ${node.load} people, ${node.organizations.length} organizations`);
    const stats = new Map(s?.realms.map((r) => [r.subdomain, r]) ?? []);
    for (const org of node.organizations) {
      const r = stats.get(org.subdomain);
      const detail = r ? `${r.users} people, ${r.queues} open queues, ${r.writes} writes since start${r.paused ? ', PAUSED (moving)' : ''}` : '(no figures)';
      console.log(`    ${org.host}  ${org.name}  ${detail}`);
    }
    if (s && s.heldCopies.length > 0) console.log(`    copies kept after moves: ${s.heldCopies.join(', ')} (stoa cluster drop-copy)`);
  }
}

async function addNode(id: string, opts: { etcd?: string; address: string }): Promise<void> {
  const { addNode } = await import('../cluster/operator.js');
  const done = await withEtcd(opts, (client) => addNode(client, id, opts.address));
  console.log(`node ${id} ${done} at ${opts.address}; start it with STOA_ETCD=<etcd> STOA_NODE_ID=${id} STOA_ADVERTISE=${opts.address}`);
}

interface CreateOrgOptions {
  etcd?: string;
  subdomain: string;
  name: string;
  ownerEmail: string;
  ownerName?: string;
  password?: string;
  node?: string;
  json?: boolean;
}

async function createOrg(opts: CreateOrgOptions): Promise<void> {
  const { createOrganization } = await import('../cluster/operator.js');
  const org = { subdomain: opts.subdomain, name: opts.name.trim(), ownerEmail: opts.ownerEmail, ownerFullName: opts.ownerName ?? opts.ownerEmail.split('@')[0], ownerPassword: opts.password };
  const { node, created } = await withEtcd(opts, (client) => createOrganization(client, org, opts.node));
  if (opts.json) return void console.log(JSON.stringify({ node, ...created }, null, 2));
  console.log(
    [
      `Created organization "${org.name}" at ${created.url} on node ${node}`,
      `  owner email:    ${created.ownerEmail}`,
      `  owner password: ${created.ownerPassword}`,
      `  owner API key:  ${created.ownerApiKey}`,
      `  zuliprc:        ${created.zuliprc} (on ${node})`,
    ].join('\n'),
  );
}

async function move(subdomain: string, to: string | undefined, opts: { etcd?: string; abort?: boolean; wait: boolean }): Promise<void> {
  const ops = await import('../cluster/operator.js');
  await withEtcd(opts, async (client) => {
    if (opts.abort) {
      const undone = await ops.abortMove(client, subdomain);
      console.log(undone ? `move of "${subdomain}" undone: it stays where it was` : `no move of "${subdomain}" to undo (none, or already switched)`);
      return;
    }
    if (!to) throw new CliError('name the node to move it to (or --abort)');
    const started = await ops.requestMove(client, subdomain, to);
    console.log(`moving "${subdomain}" from ${started.from} to ${to} (move ${started.id})`);
    if (!opts.wait) return;
    const done = await ops.waitMove(client, subdomain, started.id, (m) => console.log(`  ${m.state}${m.error ? ` (retrying: ${m.error})` : ''}`));
    if (!done) throw new CliError(`the move of "${subdomain}" was undone`);
    const pause = (done.served ?? done.switched!) - done.paused!;
    console.log(`moved: ${done.rows} rows, ${done.files} files, ${mib(done.bytes ?? 0)}; writes paused ${pause} ms (switch at +${done.switched! - done.paused!} ms)`);
    console.log(`the copy on ${done.from} is kept: stoa cluster drop-copy ${subdomain || "''"} --node ${done.from}`);
  });
}

async function dropCopy(subdomain: string, opts: { etcd?: string; node: string }): Promise<void> {
  const { dropCopy } = await import('../cluster/operator.js');
  const { rows } = await withEtcd(opts, (client) => dropCopy(client, subdomain, opts.node));
  console.log(`dropped the copy of "${subdomain}" on ${opts.node} (${rows} rows)`);
}

async function proxy(opts: { etcd?: string; map: string; reload?: string; once?: boolean }): Promise<void> {
  const { runProxyWriter, readView, renderMap } = await import('../cluster/proxy.js');
  if (opts.once) {
    const { writeFileSync } = await import('node:fs');
    await withEtcd(opts, async (client) => writeFileSync(opts.map, renderMap(await readView(client))));
    return;
  }
  const endpoints = (opts.etcd ?? process.env.STOA_ETCD ?? '').split(',').filter(Boolean);
  if (endpoints.length === 0) throw new CliError('no etcd address: give --etcd <url,...> or set STOA_ETCD');
  const { connect } = await import('../cluster/etcd.js');
  const client = connect(endpoints);
  const writer = await runProxyWriter(client, opts.map, opts.reload ?? null);
  console.log(`writing ${opts.map} from etcd${opts.reload ? ` and running "${opts.reload}"` : ''} on every change`);
  const stop = () => void writer.stop().finally(() => (client.close(), process.exit(0)));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

export function clusterCommands(program: Command): void {
  const cluster = program.command('cluster').description('several nodes behind a proxy, placed in etcd (docs/SCALING.md); needs the nodes running').option('--etcd <urls>', 'etcd client URLs, comma-separated (default: STOA_ETCD)');
  const etcd = (cmd: Command) => cmd.optsWithGlobals() as { etcd?: string };

  cluster
    .command('nodes')
    .description('list the nodes, whether they run, their organizations and load')
    .option('--json', 'print JSON')
    .action((opts, cmd: Command) => nodes({ ...etcd(cmd), ...opts }));

  cluster
    .command('add-node <id>')
    .description('add a node (or change its address): the proxy routes to it, organizations can be placed on it')
    .requiredOption('--address <host:port>', 'where the proxy and the other nodes reach it')
    .action((id: string, opts, cmd: Command) => addNode(id, { ...etcd(cmd), ...opts }));

  cluster
    .command('create-org')
    .description('create an organization on a chosen node, or on the least loaded one')
    .requiredOption('--subdomain <subdomain>', "it answers at <subdomain>.<external host>")
    .requiredOption('--name <name>', 'the organization name')
    .requiredOption('--owner-email <email>', "the owner's email")
    .option('--owner-name <full name>', "the owner's full name (default: the email's local part)")
    .option('--password <password>', "the owner's password (default: a generated one, printed)")
    .option('--node <id>', 'the node (default: the least loaded live node)')
    .option('--json', 'print JSON')
    .action((opts, cmd: Command) => createOrg({ ...etcd(cmd), ...opts }));

  cluster
    .command('move <subdomain> [node]')
    .description('move an organization to another node while it is in use: writes pause, its data is copied, the proxy switches')
    .option('--abort', 'undo a move that has not switched yet')
    .option('--no-wait', 'return once the move is requested')
    .action((subdomain: string, node: string | undefined, opts, cmd: Command) => move(subdomain, node, { ...etcd(cmd), ...opts }));

  cluster
    .command('drop-copy <subdomain>')
    .description('remove the copy a move left on its old node')
    .requiredOption('--node <id>', 'the old node')
    .action((subdomain: string, opts, cmd: Command) => dropCopy(subdomain, { ...etcd(cmd), ...opts }));

  cluster
    .command('proxy')
    .description("run beside nginx: write its routing map from etcd and reload it on every change")
    .requiredOption('--map <file>', 'the map file nginx includes')
    .option('--reload <command>', 'run after each write (e.g. "nginx -s reload")')
    .option('--once', 'write the map once and exit')
    .action((opts, cmd: Command) => proxy({ ...etcd(cmd), ...opts }));
}
