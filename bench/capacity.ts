import { spawn, type ChildProcess } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { doCreateRealm } from '../src/api/realm/actions.js';
import { subscribeToDefaultChannels } from '../src/api/subscriptions/actions.js';
import { doCreateUser } from '../src/api/users/actions.js';
import { loadConfig, resolveConfig } from '../src/lib/config.js';
import { ROLE } from '../src/model/types.js';
import { Shard } from '../src/shard/shard.js';
import { Directory } from '../src/store/directory.js';
import { Api, Poller, type Creds } from './lib/api.js';
import { sleep } from './lib/load.js';
import { HEARTBEAT_SECONDS, model, MIX, nodesNeeded, type Inputs } from './capacity-model.js';

/**
 * `node dist/bench/capacity.js`: the measurements behind docs/SCALING.md's capacity model, and
 * the simulation that checks it. Everything is CPU time and resident memory of the server's
 * process, read from /proc, which depend far less on what else the machine runs than
 * throughput does (this machine is shared).
 *
 *   memory  per organization, per thousand people, per open event queue, per parked long-poll
 *   CPU     per send with nobody listening, and per event delivered to a long-poll (fan-out)
 *   store   bytes per message (so per million)
 *   mix     the activity mix of docs/SCALING.md at a small scale, on one node: measured CPU and
 *           memory against what the model predicts for that scale
 */
const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));
const CLI = fileURLToPath(new URL('../src/cli/stoa.js', import.meta.url));
/** Organizations answer at <subdomain>.cap.test: the Host header names them. */
const HOST = 'cap.test';
const log = (line: string) => console.error(`[capacity ${new Date().toISOString().slice(11, 19)}] ${line}`);

/** user + system CPU of a process and all its threads, in ms (USER_HZ is 100). */
function ticksMs(statFile: string): number {
  const stat = readFileSync(statFile, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
const cpuMs = (pid: number) => ticksMs(`/proc/${pid}/stat`);
/** The main thread alone: the front end (HTTP, every long-poll's answer), one core at most. */
const mainMs = (pid: number) => ticksMs(`/proc/${pid}/task/${pid}/stat`);

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** RSS once it has settled: the lowest of a few samples a second apart (GC runs between). */
async function settledRss(pid: number, samples = 5): Promise<number> {
  let low = Infinity;
  for (let i = 0; i < samples; i++) {
    await sleep(1000);
    low = Math.min(low, rssMb(pid));
  }
  return low;
}

function duMb(dir: string): number {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    bytes += entry.isDirectory() ? duMb(path) * 1048576 : statSync(path).blocks * 512;
  }
  return bytes / 1048576;
}

class Server {
  child: ChildProcess | null = null;
  url = '';
  constructor(
    readonly dataDir: string,
    /** The measurements keep polls parked (a long heartbeat); the mix runs with the default. */
    private readonly heartbeatSeconds = 600,
  ) {}
  async start(): Promise<void> {
    const child = spawn(process.execPath, [MAIN], { env: { ...process.env, STOA_DATA_DIR: this.dataDir, STOA_PORT: '0', STOA_SHARDS: '1', STOA_LOG_LEVEL: 'error', STOA_RATE_LIMITS: 'off', STOA_HEARTBEAT_SECONDS: String(this.heartbeatSeconds), STOA_EXTERNAL_HOST: HOST }, stdio: ['ignore', 'pipe', 'inherit'] });
    this.child = child;
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (c) => ((out += c), /Stoa listening on (http:\/\/\S+) /.test(out) && resolve()));
      child.once('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
    });
    this.url = /Stoa listening on (http:\/\/\S+) /.exec(out)![1];
  }
  get pid(): number {
    return this.child!.pid!;
  }
  async stop(): Promise<void> {
    const child = this.child!;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

/** Organizations and people made in this process while the server is stopped, as `stoa seed` does. */
async function populate(dataDir: string, orgs: { subdomain: string; people: number }[]): Promise<Map<string, Creds[]>> {
  const config = resolveConfig(loadConfig({}, { dataDir, shards: 1, logLevel: 'error', externalHost: HOST }), 0);
  const directory = new Directory(dataDir);
  const shard = Shard.open(0, config);
  const made = new Map<string, Creds[]>();
  try {
    for (const org of orgs) {
      const existing = directory.get(org.subdomain);
      const { id } = existing ?? (await directory.reserve(org.subdomain, 1));
      const realm = shard.realm(id) ?? (await doCreateRealm(shard, { id, subdomain: org.subdomain, name: org.subdomain || 'root', ownerEmail: `owner@${org.subdomain || 'root'}.test`, ownerFullName: 'Owner', ownerPassword: 'not-hashed-twice' }), shard.realm(id)!);
      if (!existing) await directory.add({ id, subdomain: org.subdomain, name: realm.realm.name, shard: 0 });
      const people: Creds[] = [];
      for (let i = realm.users.size; people.length < org.people; i++) {
        const user = await doCreateUser(shard, realm, { email: `p${i}@${org.subdomain || 'root'}.test`, fullName: `Person ${i}`, role: ROLE.member });
        await subscribeToDefaultChannels(shard, realm, user);
        people.push({ email: user.email, apiKey: user.apiKey });
      }
      made.set(org.subdomain, people);
    }
  } finally {
    await shard.close();
    await directory.close();
  }
  return made;
}

/** Closed-loop sends from `senders`, `count` in all, through `api` with the organization's Host. */
async function sendMany(api: Api, senders: Creds[], count: number, channel = 'general'): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        const n = next++;
        await api.ok(senders[n % senders.length], 'POST', '/messages', { type: 'stream', to: channel, topic: `t${n % 10}`, content: `capacity message ${n} with a little **markup**` });
      }
    }),
  );
}

async function measure(quick: boolean): Promise<Inputs & { loadAverage: number[] }> {
  const scale = quick ? 0.1 : 1;
  const n = (x: number) => Math.max(10, Math.round(x * scale));
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-capacity-'));
  const server = new Server(dataDir);
  try {
    // Memory: an empty server, then organizations, then people, then queues, then parked polls.
    const [root] = [...(await populate(dataDir, [{ subdomain: '', people: 1 }])).values()];
    await server.start();
    const base = await settledRss(server.pid);
    await server.stop();
    const orgCount = n(200);
    await populate(dataDir, Array.from({ length: orgCount }, (_, i) => ({ subdomain: `org${i}`, people: 2 })));
    await server.start();
    const withOrgs = await settledRss(server.pid);
    await server.stop();
    const peopleCount = n(4000);
    const people = (await populate(dataDir, [{ subdomain: 'big', people: peopleCount }])).get('big')!;
    await server.start();
    const withPeople = await settledRss(server.pid);
    log(`memory: base ${base.toFixed(1)} MB, +${orgCount} orgs ${withOrgs.toFixed(1)}, +${peopleCount} people ${withPeople.toFixed(1)}`);

    const api = new Api(server.url, peopleCount + 64);
    const host = { host: `big.${HOST}` };
    const bigApi = new Api(server.url, peopleCount + 64, host);
    const queues: { creds: Creds; queueId: string }[] = [];
    for (let i = 0; i < peopleCount; i += 100) {
      const batch = people.slice(i, i + 100);
      const regs = await Promise.all(batch.map((p) => bigApi.ok(p, 'POST', '/register', { event_types: ['reaction'], fetch_event_types: ['realm'] })));
      regs.forEach((r, k) => queues.push({ creds: batch[k], queueId: r.queue_id }));
    }
    const withQueues = await settledRss(server.pid);
    const abort = new AbortController();
    setMaxListeners(0, abort.signal);
    const parked = queues.map((q) => bigApi.call(q.creds, 'GET', '/events', { queue_id: q.queueId, last_event_id: -1 }, abort.signal).catch(() => null));
    await sleep(3000);
    const withPolls = await settledRss(server.pid);
    abort.abort();
    await Promise.all(parked);
    log(`memory: +${queues.length} queues ${withQueues.toFixed(1)} MB, parked ${withPolls.toFixed(1)} MB`);

    // CPU: sends nobody polls, then sends to 50 and to 500 polling subscribers (fan-out).
    const sends = n(3000);
    const cpuOf = async (fn: () => Promise<void>) => {
      const [total, main] = [cpuMs(server.pid), mainMs(server.pid)];
      await fn();
      return { total: cpuMs(server.pid) - total, main: mainMs(server.pid) - main };
    };
    await sendMany(bigApi, people.slice(0, 10), 200); // warm-up
    const quiet = await cpuOf(() => sendMany(bigApi, people.slice(0, 10), sends));
    const fanout = async (k: number) => {
      const pollers = people.slice(0, k).map((p) => new Poller(bigApi, p, { event_types: ['message'] }));
      await Promise.all(pollers.map((p) => p.register()));
      pollers.forEach((p) => p.start());
      await sleep(1000);
      const ms = await cpuOf(() => sendMany(bigApi, people.slice(0, 10), Math.round(sends / 4)));
      await sleep(1000);
      await Promise.all(pollers.map((p) => p.stop()));
      return { ms, sent: Math.round(sends / 4), k };
    };
    const f50 = await fanout(50);
    const f500 = await fanout(Math.min(500, peopleCount));
    // Lockstep: each send waits until every listener has its event, so each event costs a whole
    // poll (its answer, the client's next GET /events, parking it again), as at the rates of
    // real organizations (a few sends a minute each), where nothing batches.
    const lockstep = async (k: number, count: number) => {
      let got = 0;
      const pollers = people.slice(0, k).map((p) => new Poller(bigApi, p, { event_types: ['message'] }, () => void got++));
      await Promise.all(pollers.map((p) => p.register()));
      pollers.forEach((p) => p.start());
      await sleep(1000);
      const ms = await cpuOf(async () => {
        for (let i = 0; i < count; i++) {
          const want = got + k;
          await bigApi.ok(people[0], 'POST', '/messages', { type: 'stream', to: 'general', topic: 'lockstep', content: `lockstep ${i}` });
          while (got < want) await sleep(1);
        }
      });
      await Promise.all(pollers.map((p) => p.stop()));
      return ms;
    };
    const stepCount = n(100);
    const lock = await lockstep(Math.min(200, peopleCount), stepCount);
    const perSend = { total: quiet.total / sends, main: quiet.main / sends };
    // The slope from 50 to 500 listeners: what one more delivered event costs.
    const perEvent = (part: 'total' | 'main') => Math.max(0, (f500.ms[part] / f500.sent - f50.ms[part] / f50.sent) / (f500.k - f50.k));
    const k = Math.min(200, peopleCount);
    const perPoll = { total: Math.max(0, (lock.total / stepCount - perSend.total) / k), main: Math.max(0, (lock.main / stepCount - perSend.main) / k) };
    log(`CPU: a poll answered with one event ${perPoll.total.toFixed(4)} ms (main ${perPoll.main.toFixed(4)}), ${k} listeners in lockstep`);
    log(`CPU: ${perSend.total.toFixed(3)} ms per send (main thread ${perSend.main.toFixed(3)}); per delivered event ${perEvent('total').toFixed(4)} ms (main ${perEvent('main').toFixed(4)}); per send with 50 listeners ${(f50.ms.total / f50.sent).toFixed(3)}, with ${f500.k} ${(f500.ms.total / f500.sent).toFixed(3)} ms`);
    await api.close();
    await bigApi.close();
    await server.stop();

    // Store: bytes per message, from seeding more into the big organization.
    const before = duMb(join(dataDir, 'shards'));
    const seeded = n(100_000);
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, 'seed', '--realm', 'big', '--users', '20', '--channels', '4', '--topics', '20', '--messages', String(seeded), '--out', join(dataDir, 'seed.json')], { env: { ...process.env, STOA_DATA_DIR: dataDir, STOA_SHARDS: '1' }, stdio: ['ignore', 'ignore', 'inherit'] });
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`seed exited ${code}`))));
    });
    const grown = duMb(join(dataDir, 'shards')) - before;
    log(`store: +${grown.toFixed(1)} MB for ${seeded} messages`);
    void root;
    return {
      baseRssMb: base,
      mbPerOrg: (withOrgs - base) / orgCount,
      mbPerThousandPeople: ((withPeople - withOrgs) / peopleCount) * 1000,
      kbPerQueue: ((withQueues - withPeople) / queues.length) * 1024,
      kbPerParkedPoll: ((withPolls - withQueues) / queues.length) * 1024,
      cpuMsPerSend: perSend.total,
      cpuMsPerEvent: perEvent('total'),
      mainMsPerSend: perSend.main,
      mainMsPerEvent: perEvent('main'),
      cpuMsPerPoll: perPoll.total,
      mainMsPerPoll: perPoll.main,
      storeMbPerMillion: (grown / seeded) * 1e6,
      loadAverage: loadavg(),
    };
  } finally {
    if (server.child && server.child.exitCode === null) await server.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The mix (capacity-model.ts) at `fraction` of its 10,000 organizations, on one node, for `seconds`. */
async function simulate(inputs: Inputs, fraction: number, seconds: number): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-capacity-mix-'));
  const server = new Server(dataDir, HEARTBEAT_SECONDS);
  const orgs: { subdomain: string; people: number; sendsPerDay: number }[] = [];
  for (const kind of MIX.kinds) for (let i = 0; i < Math.round(MIX.organizations * kind.share * fraction); i++) orgs.push({ subdomain: `${kind.name}${i}`, people: kind.people, sendsPerDay: kind.sendsPerDay });
  try {
    log(`mix: ${orgs.length} organizations, ${orgs.reduce((a, o) => a + o.people, 0)} people`);
    const people = await populate(dataDir, orgs);
    await server.start();
    const idle = await settledRss(server.pid);
    const apis = new Map(orgs.map((o) => [o.subdomain, new Api(server.url, o.people + 8, { host: `${o.subdomain}.${HOST}` })]));
    // The online share of people hold a queue each, parked on message events.
    const pollers: Poller[] = [];
    for (const o of orgs) {
      const online = people.get(o.subdomain)!.slice(0, Math.round(o.people * MIX.online));
      for (const p of online) pollers.push(new Poller(apis.get(o.subdomain)!, p, { event_types: ['message'] }));
    }
    for (let i = 0; i < pollers.length; i += 100) await Promise.all(pollers.slice(i, i + 100).map((p) => p.register()));
    pollers.forEach((p) => p.start());
    await sleep(2000);
    // Sends at the peak rate, open loop, each organization at its own share.
    const rate = orgs.reduce((a, o) => a + (o.sendsPerDay * MIX.peakFactor) / (MIX.workdayHours * 3600), 0);
    const weights = orgs.map((o) => o.sendsPerDay);
    const total = weights.reduce((a, b) => a + b, 0);
    const cpu0 = cpuMs(server.pid);
    const main0 = mainMs(server.pid);
    const t0 = performance.now();
    let sent = 0;
    let errors = 0;
    while (performance.now() - t0 < seconds * 1000) {
      while (sent < ((performance.now() - t0) / 1000) * rate) {
        let r = Math.random() * total;
        const o = orgs[weights.findIndex((w) => (r -= w) < 0)] ?? orgs[0];
        const senders = people.get(o.subdomain)!;
        sent++;
        void apis.get(o.subdomain)!.call(senders[Math.floor(Math.random() * senders.length)], 'POST', '/messages', { type: 'stream', to: 'general', topic: 'mix', content: `mix ${sent}` }).then((res) => void (res.status !== 200 && errors++), () => void errors++);
      }
      await sleep(20);
    }
    const cpuShare = (cpuMs(server.pid) - cpu0) / (seconds * 1000);
    const mainShare = (mainMs(server.pid) - main0) / (seconds * 1000);
    const busy = await settledRss(server.pid, 3);
    await Promise.all(pollers.map((p) => p.stop()));
    for (const api of apis.values()) await api.close();
    await server.stop();
    const predicted = model(inputs, fraction);
    return {
      organizations: orgs.length,
      people: orgs.reduce((a, o) => a + o.people, 0),
      online: pollers.length,
      sendsPerSecond: rate,
      sent,
      errors,
      measured: { idleRssMb: idle, busyRssMb: busy, cpuCores: cpuShare, mainThreadCores: mainShare },
      predicted: { rssMb: predicted.rssMb, cpuCores: predicted.cpuCores, mainThreadCores: predicted.mainCores },
    };
  } finally {
    if (server.child && server.child.exitCode === null) await server.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

new Command('capacity')
  .description("Measure what docs/SCALING.md's capacity model needs, and check it against a simulation of its mix")
  .option('--quick', 'a tenth of the sizes (a smoke run)')
  .option('--fraction <f>', 'share of the 10,000 organizations the simulation runs', '0.01')
  .option('--seconds <s>', 'how long the simulation sends', '60')
  .option('--out <dir>', 'where the JSON goes', fileURLToPath(new URL('../../bench/results/', import.meta.url)))
  .action(async (opts: { quick?: boolean; fraction: string; seconds: string; out: string }) => {
    const started = loadavg();
    log(`load average ${started.map((l) => l.toFixed(2)).join(' ')} on ${cpus().length} cores`);
    const inputs = await measure(opts.quick === true);
    const simulation = await simulate(inputs, Number(opts.fraction) * (opts.quick ? 0.2 : 1), opts.quick ? 10 : Number(opts.seconds));
    const sizing = Object.fromEntries([[4, 8], [8, 16], [16, 64]].map(([cores, gb]) => [`${cores} cores, ${gb} GB`, nodesNeeded(inputs, cores, gb)]));
    const report = { date: new Date().toISOString(), loadAverageAtStart: started, loadAverageAtEnd: loadavg(), inputs, model: model(inputs, 1), sizing, simulation };
    mkdirSync(opts.out, { recursive: true });
    const file = join(opts.out, `capacity-${report.date.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(report, null, 2));
    console.log(JSON.stringify(report, null, 2));
    log(`report: ${file}`);
  })
  .parseAsync();
