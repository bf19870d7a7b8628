import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Sender } from '../test/cluster/clients.js';
import { Api, Poller } from './lib/api.js';
import { hostOf, missingTools, startEtcd, startNode, startProxy, stoaCluster, type StoaNode } from '../test/cluster/harness.js';
import { hammer, sleep, type Measured } from './lib/load.js';
import type { Outcome, Sizes } from './scenarios.js';

/**
 * The cluster's two figures (docs/SCALING.md), on this machine: two nodes and etcd behind
 * Debian's nginx, with `stoa cluster proxy` keeping its map, as test/cluster/ runs them.
 *
 *   PROXY  P1 (sends to the 50-subscriber channel while its 50 subscribers long-poll) through
 *          nginx against P1 straight to the node, in the same run: direct, proxied, direct again
 *          (the two direct runs bracket the proxied one, so drift in the machine's load shows).
 *   MOVE   the organization, seeded like the bench's big realm, moved to the other node while 4
 *          senders send as fast as they can and the 50 pollers poll, all through the proxy: the
 *          write pause by the nodes' clocks (paused -> served) and as the senders saw it (first
 *          503 to next success), and how long the copy taken in use (warm) lasted.
 */
interface ClusterEnv {
  sizes: Sizes;
  quick: boolean;
  log(line: string): void;
}

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * CPU time (ms, user + system, all threads) of processes and their children, from /proc: unlike
 * throughput it hardly depends on what else the machine runs.
 */
function cpuMs(roots: number[]): number {
  const stat = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/stat`, 'utf8').slice(readFileSync(`/proc/${pid}/stat`, 'utf8').lastIndexOf(')') + 2).split(' ');
    } catch {
      return null;
    }
  };
  const pids = new Set(roots);
  for (const entry of readdirSync('/proc')) {
    const fields = /^\d+$/.test(entry) ? stat(Number(entry)) : null;
    // Field 4 of stat is the parent; after the command's ')' it is the second.
    if (fields && pids.has(Number(fields[1]))) pids.add(Number(entry));
  }
  let ticks = 0;
  for (const pid of pids) {
    const fields = stat(pid);
    if (fields) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}

export async function clusterScenarios(env: ClusterEnv, want: (id: string) => boolean): Promise<Outcome[]> {
  if (!want('PROXY') && !want('MOVE')) return [];
  const missing = missingTools();
  if (missing) {
    env.log(`PROXY, MOVE: not measured: ${missing}`);
    return ['PROXY', 'MOVE'].filter(want).map((id) => ({ id, title: 'cluster', target: '-', value: `n/a (${missing})`, pass: null, details: {} }));
  }
  const cleanups: (() => unknown)[] = [];
  const t = { teardown: (fn: () => unknown) => void cleanups.unshift(fn) };
  const results: Outcome[] = [];
  try {
    const etcd = await startEtcd(t);
    const serverEnv = { STOA_LOG_LEVEL: 'warn', STOA_SHARDS: '2' };
    const [n1] = await Promise.all([startNode(t, 'n1', etcd, serverEnv), startNode(t, 'n2', etcd, serverEnv)]);
    const made = await stoaCluster(etcd, ['cluster', 'create-org', '--subdomain', 'bench', '--name', 'Bench', '--owner-email', 'owner@bench.invalid', '--node', 'n1', '--json']);
    if (made.code !== 0) throw new Error(`create-org: ${made.stderr}`);
    const messages = env.quick ? 5_000 : 100_000;
    env.log(`cluster: seeding ${messages} messages on n1`);
    await n1.stop();
    const seedFile = join(n1.dataDir, 'seed.json');
    const seeded = await seedNode(n1, etcd.url, ['--realm', 'bench', '--users', '60', '--channels', '3', '--topics', '10', '--messages', String(messages), '--out', seedFile]);
    if (seeded.code !== 0) throw new Error(`stoa seed: ${seeded.stderr}`);
    await n1.start();
    const proxy = await startProxy(t, etcd);
    const seed = JSON.parse(readFileSync(seedFile, 'utf8')) as { users: { email: string; apiKey: string; id: number }[]; channels: { id: number; name: string; members: number[] }[] };
    const channel = seed.channels[0];
    const subscribers = seed.users.filter((u) => channel.members.includes(u.id)).slice(0, 50);
    const host = hostOf('bench');

    // The bench's own long-pollers (they register and poll; the test's also fetch the history).
    const pollersAt = async (port: number) => {
      const api = new Api(`http://127.0.0.1:${port}`, subscribers.length + 8, { host });
      const pollers = subscribers.map((u) => new Poller(api, u, { event_types: ['message'] }));
      await Promise.all(pollers.map((p) => p.register()));
      pollers.forEach((p) => p.start());
      return { stop: async () => (await Promise.all(pollers.map((p) => p.stop())), await api.close()) };
    };
    const p1 = async (port: number): Promise<Measured & { nodeCpuMsPerSend: number; proxyCpuMsPerSend: number }> => {
      const pollers = await pollersAt(port);
      await sleep(500);
      const node0 = cpuMs([n1.proc.child.pid!]);
      const proxy0 = cpuMs([proxy.nginxPid]);
      const measured = await hammer({ url: `http://127.0.0.1:${port}`, host, creds: seed.users[0], method: 'POST', path: '/api/v1/messages', params: { type: 'stream', to: channel.id, topic: 'p1', content: 'A load-test message with **some** markup' }, connections: env.sizes.connections, seconds: env.sizes.seconds });
      // (The warm-up's sends are in the CPU time too: counted as a fifth more, as hammer runs it.)
      const sends = Math.max(1, measured.requests * 1.2);
      const nodeCpuMsPerSend = round((cpuMs([n1.proc.child.pid!]) - node0) / sends);
      const proxyCpuMsPerSend = round((cpuMs([proxy.nginxPid]) - proxy0) / sends);
      await pollers.stop();
      return { ...measured, nodeCpuMsPerSend, proxyCpuMsPerSend };
    };
    if (want('PROXY')) {
      env.log('PROXY: P1 direct, through nginx, direct again');
      const direct1 = await p1(n1.port);
      const proxied = await p1(proxy.port);
      const direct2 = await p1(n1.port);
      const direct = (direct1.rps + direct2.rps) / 2;
      const r = round(proxied.rps / direct);
      // The load-independent figure: nginx's CPU per send (its request and the pollers' polls it
      // carries) against the node's own CPU per send. (The node's figure itself moves with the
      // rate: faster sends batch more events per poll.)
      const directCpu = (direct1.nodeCpuMsPerSend + direct2.nodeCpuMsPerSend) / 2;
      const overhead = round(proxied.proxyCpuMsPerSend / directCpu);
      results.push({
        id: 'PROXY',
        title: 'P1 through nginx against P1 straight to the node',
        target: "nginx's CPU <= 0.25 of the node's per send",
        value: `nginx +${Math.round(overhead * 100)}% CPU (${proxied.proxyCpuMsPerSend} vs ${round(directCpu)} ms/send); req/s x${r} (${Math.round(proxied.rps)} vs ${Math.round(direct)})`,
        pass: overhead <= 0.25 && proxied.errors === 0,
        details: { direct1, proxied, direct2, rpsRatio: r, cpuOverhead: overhead, drift: round(direct2.rps / direct1.rps) },
      });
    }
    if (want('MOVE')) {
      env.log(`MOVE: ${messages} messages from n1 to n2 under load`);
      const pollers = await pollersAt(proxy.port);
      const senders = seed.users.slice(0, 4).map((u, i) => new Sender(proxy.port, host, u, channel.name, `mover${i}`).start());
      await sleep(2_000);
      const t0 = Date.now();
      const moved = await stoaCluster(etcd, ['cluster', 'move', 'bench', 'n2']);
      if (moved.code !== 0) throw new Error(`move: ${moved.stderr}`);
      const wall = Date.now() - t0;
      await sleep(2_000);
      await Promise.all(senders.map((s) => s.stop()));
      await pollers.stop();
      const { connect, getJson, KEYS } = await import('../src/cluster/etcd.js');
      const client = connect([etcd.url]);
      const record = (await getJson<{ requested: number; paused: number; switched: number; served: number; rows: number; warmRows: number; bytes: number }>(client, KEYS.move('bench')))!.value;
      client.close();
      const pause = record.served - record.paused;
      const seen = Math.max(...senders.map((s) => s.longestPause));
      results.push({
        id: 'MOVE',
        title: `move of a ${messages}-message organization under load`,
        target: 'pause <= 2 s',
        value: `${pause} ms paused (${seen} ms as senders saw it; copy in use ${record.paused - record.requested} ms)`,
        pass: pause <= 2000,
        details: { pauseMs: pause, switchMs: record.switched - record.paused, clientPauseMs: seen, warmCopyMs: record.paused - record.requested, wallMs: wall, rows: record.rows, warmRows: record.warmRows, bytes: record.bytes, sends: senders.reduce((n, s) => n + s.acked.size, 0), refusals: senders.reduce((n, s) => n + s.refusals, 0) },
      });
    }
  } finally {
    for (const fn of cleanups) await Promise.resolve(fn()).catch(() => undefined);
  }
  return results;
}

async function seedNode(node: StoaNode, etcdUrl: string, args: string[]) {
  const { stoa } = await import('../test/cli/run.js');
  return stoa(node.dataDir, ['seed', ...args], { STOA_ETCD: etcdUrl, STOA_NODE_ID: node.id, STOA_SHARDS: '2', STOA_PORT: String(node.port) });
}
