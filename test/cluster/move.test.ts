import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { stoa } from '../cli/run.js';
import { Poller, Sender, type Creds } from './clients.js';
import { call, hostOf, missingTools, startEtcd, startNode, startProxy, stoaClusterOk, waitFor, type StoaNode } from './harness.js';

/**
 * The issue's "done when": three nodes and etcd behind Debian's nginx on this machine, thirty
 * organizations spread over them, clients of several organizations driven through the proxy by
 * Host, and a busy organization (100,000 messages, live senders and pollers) moved from one node
 * to another while in use: no acknowledged write lost or doubled, every client caught up, and
 * the write pause reported.
 */
const missing = missingTools();
if (missing) {
  console.error(`\n*** SKIPPING the cluster test: ${missing}. .ci/run installs etcd-server and nginx. ***\n`);
  t.pass(`skipped: ${missing}`);
} else {
  t.setTimeout(1_200_000);
  t.test('three nodes behind nginx: thirty organizations, and a busy one moved while in use', async (t) => {
    const etcd = await startEtcd(t);
    const env = { STOA_HEARTBEAT_SECONDS: '5' };
    const [n1, n2, n3] = await Promise.all(['n1', 'n2', 'n3'].map((id) => startNode(t, id, etcd, env)));
    const nodes: Record<string, StoaNode> = { n1, n2, n3 };

    // The busy organization first, on n1, seeded with the store's own bulk path while n1 is stopped.
    const busy = JSON.parse(await stoaClusterOk(etcd, ['cluster', 'create-org', '--subdomain', 'busy', '--name', 'Busy', '--owner-email', 'owner@busy.test', '--node', 'n1', '--json']));
    t.equal(busy.node, 'n1', 'create-org --node places the organization on the node named');
    await n1.stop();
    const seedOut = join(n1.dataDir, 'seed.json');
    const seeding = stoa(n1.dataDir, ['seed', '--realm', 'busy', '--users', '12', '--channels', '4', '--topics', '20', '--messages', '100000', '--out', seedOut], { STOA_ETCD: etcd.url, STOA_NODE_ID: 'n1', STOA_SHARDS: '1', STOA_PORT: String(n1.port) });

    // Meanwhile twenty others: without --node, each goes to the least loaded live node, so they
    // alternate between n2 and n3.
    const { connect } = await import('../../src/cluster/etcd.js');
    const { createOrganization, listNodes } = await import('../../src/cluster/operator.js');
    const client = connect([etcd.url]);
    t.teardown(() => client.close());
    const owners = new Map<string, Creds>();
    for (let i = 0; i < 20; i++) {
      const { created, node } = await createOrganization(client, { subdomain: `org${i}`, name: `Org ${i}`, ownerEmail: `owner@org${i}.test`, ownerFullName: 'Owner' });
      owners.set(`org${i}`, { email: String(created.ownerEmail), apiKey: String(created.ownerApiKey) });
      if (node !== (i % 2 === 0 ? 'n2' : 'n3')) t.fail(`org${i} went to ${node}, not the least loaded node`);
    }
    const seeded = await seeding;
    t.equal(seeded.code, 0, `stoa seed on the stopped node: ${seeded.stderr.split('\n').filter(Boolean).pop()}`);
    await n1.start();
    // The busy organization's thirteen people make n1 the most loaded: nine more go there by name.
    for (let i = 20; i < 29; i++) {
      const { created } = await createOrganization(client, { subdomain: `org${i}`, name: `Org ${i}`, ownerEmail: `owner@org${i}.test`, ownerFullName: 'Owner' }, 'n1');
      owners.set(`org${i}`, { email: String(created.ownerEmail), apiKey: String(created.ownerApiKey) });
    }
    const spread = await listNodes(client);
    t.same(spread.map((n) => n.organizations.length), [10, 10, 10], 'thirty organizations, ten on each node');

    const proxy = await startProxy(t, etcd);
    const via = (subdomain: string, method: string, path: string, auth: Creds, params?: Record<string, unknown>) => call(proxy.port, hostOf(subdomain), method, path, { auth, params });
    // Every organization answers through the proxy by its Host, from the node that owns it.
    for (const [subdomain, creds] of owners) {
      const me = await via(subdomain, 'GET', '/api/v1/users/me', creds);
      if (me.status !== 200 || me.body.email !== creds.email) t.fail(`${subdomain} through the proxy: ${me.status} ${me.raw}`);
    }
    t.pass('all thirty organizations answer through the proxy');
    const unknownHost = await call(proxy.port, hostOf('nowhere'), 'GET', '/api/v1/server_settings');
    t.equal(unknownHost.status, 404, 'an unknown organization gets the 404 of a live node');
    const internal = await call(proxy.port, hostOf('org1'), 'GET', '/_stoa/cluster/status');
    t.equal(internal.status, 404, 'the nodes\' internal API is not reachable through the proxy');

    // The busy organization's clients: senders and pollers on a channel of their own.
    const seed = JSON.parse(readFileSync(seedOut, 'utf8')) as { users: Creds[] };
    const people = seed.users;
    const owner: Creds = { email: busy.ownerEmail, apiKey: busy.ownerApiKey };
    const made = await via('busy', 'POST', '/api/v1/users/me/subscriptions', owner, { subscriptions: [{ name: 'move test' }], principals: people.map((p) => p.email) });
    t.equal(made.status, 200, 'a channel for the live clients');
    const senders = people.slice(0, 4).map((p, i) => new Sender(proxy.port, hostOf('busy'), p, 'move test', `busy${i}`).start());
    const pollers = people.slice(4, 7).map((p) => new Poller(proxy.port, hostOf('busy'), p, 'move test').start());
    // Clients of other organizations, on every node, all along.
    const others = ['org0', 'org1', 'org20', 'org21'].map((sub) => ({ sub, sender: new Sender(proxy.port, hostOf(sub), owners.get(sub)!, 'general', sub, 50).start(), poller: new Poller(proxy.port, hostOf(sub), owners.get(sub)!, 'general').start() }));
    // A failed check must not leave clients retrying against stopped nodes (the run would then
    // wait for tap's timeout): stopped, without waiting for a sender's request in flight.
    t.teardown(() => {
      for (const c of [...senders, ...others.map((o) => o.sender)]) void c.stop().catch(() => undefined);
      for (const p of [...pollers, ...others.map((o) => o.poller)]) void p.stop().catch(() => undefined);
    });
    await waitFor('the busy senders to get going', () => senders.every((s) => s.acked.size >= 20), 120_000);

    // The move, while they run.
    const before = Math.max(...senders.flatMap((s) => [...s.acked.values()]));
    const moved = await stoaClusterOk(etcd, ['cluster', 'move', 'busy', 'n2']);
    const report = /moved: (\d+) rows, (\d+) files, .*writes paused (\d+) ms/.exec(moved);
    t.ok(report, `the move reports itself: ${moved.trim().split('\n').pop()}`);
    t.ok(Number(report?.[1]) > 100_000, `the copy carried every row (${report?.[1]})`);
    await waitFor('sends after the move', () => senders.every((s) => [...s.acked.values()].some((id) => id > before) && s.acked.size > 0), 120_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await Promise.all(senders.map((s) => s.stop()));
    for (const o of others) await o.sender.stop();

    // Nothing acknowledged was lost or doubled.
    const acked = new Map<string, number>();
    for (const s of senders) for (const [content, id] of s.acked) acked.set(content, id);
    const unknown = new Set(senders.flatMap((s) => [...s.unknown]));
    const stored = new Map<string, number[]>();
    let anchor: number | string = 'oldest';
    for (;;) {
      const page = await via('busy', 'GET', '/api/v1/messages', owner, { anchor, num_before: 0, num_after: 5000, include_anchor: anchor === 'oldest', apply_markdown: false, narrow: [{ operator: 'channel', operand: 'move test' }] });
      for (const m of page.body.messages as { id: number; content: string }[]) stored.set(m.content, [...(stored.get(m.content) ?? []), m.id]);
      if (page.body.found_newest || page.body.messages.length === 0) break;
      anchor = page.body.messages[page.body.messages.length - 1].id;
    }
    let lost = 0;
    let doubled = 0;
    for (const [content, id] of acked) {
      const ids = stored.get(content) ?? [];
      if (ids.length === 0) lost++;
      else if (ids.length > 1 || ids[0] !== id) doubled++;
    }
    for (const [content, ids] of stored) if (!acked.has(content) && (!unknown.has(content) || ids.length > 1)) doubled++;
    t.equal(lost, 0, `no acknowledged send lost (${acked.size} acknowledged, ${unknown.size} with no answer)`);
    t.equal(doubled, 0, 'none stored twice, none stored that was not sent');
    for (const s of senders) {
      const ids = [...s.acked.values()];
      t.ok(ids.every((id, i) => i === 0 || id > ids[i - 1]), `${s.name}: ids keep increasing across the move`);
    }

    // Every client caught up.
    const all = new Set(acked.values());
    await waitFor('the pollers to catch up', () => {
      const failed = pollers.find((p) => p.failure);
      if (failed) throw new Error(`a poller stopped: ${failed.failure}`);
      return pollers.every((p) => [...all].every((id) => p.seen.has(id)));
    }, 120_000);
    t.pass(`every poller has every acknowledged message (${pollers.map((p) => `${p.registrations} registrations`).join(', ')})`);
    t.ok(pollers.every((p) => p.badQueue >= 1), 'each poller was told BAD_EVENT_QUEUE_ID by the old node and registered again');
    t.equal(pollers.reduce((n, p) => n + p.doubled, 0), 0, 'no queue delivered a message twice');
    for (const o of others) {
      const ids = new Set(o.sender.acked.values());
      await waitFor(`${o.sub}'s poller`, () => [...ids].every((id) => o.poller.seen.has(id)), 60_000);
      t.equal(o.sender.refusals, 0, `${o.sub} (on ${spread.find((n) => n.organizations.some((p) => p.subdomain === o.sub))?.id}) went on unpaused: ${o.sender.acked.size} sends`);
    }
    await Promise.all([...pollers, ...others.map((o) => o.poller)].map((p) => p.stop()));

    const clientPause = Math.max(...senders.map((s) => s.longestPause));
    t.comment(`MOVE: 100,000-message organization n1 -> n2: writes paused ${report?.[3]} ms by the nodes' clocks, ${clientPause} ms as the senders saw it (${senders.reduce((n, s) => n + s.refusals, 0)} answers 503)`);

    // Exactly one node serves it now; the old one keeps its copy.
    const direct = async (node: StoaNode) => (await call(node.port, hostOf('busy'), 'GET', '/api/v1/users/me', { auth: owner })).status;
    t.same([await direct(n1), await direct(n2), await direct(n3)], [503, 200, 503], 'only n2 serves it; n1 and n3 answer 503');
    const after = await listNodes(client);
    t.ok(after.find((n) => n.id === 'n2')!.organizations.some((o) => o.subdomain === 'busy'), 'stoa cluster nodes: busy is on n2');
    t.same(after.find((n) => n.id === 'n1')!.status?.heldCopies, ['busy'], 'and n1 keeps its copy');
    t.match(await stoaClusterOk(etcd, ['cluster', 'nodes']), /copies kept after moves: busy/, 'which the listing shows');
    void nodes;
  });
}
