import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { clusterScenarios } from './cluster.js';
import { dayOfChat } from './day.js';
import { importSpeed } from './import.js';
import { fairness, loginFlood, soak } from './reliability.js';
import { hammer, sleep, startBaseline, type Measured } from './lib/load.js';
import { OwnServer, readZuliprc, RemoteServer, type SeedSpec, type Target } from './lib/target.js';
import { firstLoadBytes, webAvailable, webScenarios } from './web.js';
import { deliveryCost, fanoutLatency, markRead, parkedPolls, registerLatency, sendWithPollers, topicHistory, type Env, type Outcome, type Sizes } from './scenarios.js';
import { peerComparison } from './peer/compare.js';

// Five topics, so that the small realm's topics too hold more than the 100 messages P5 reads:
// P6 compares the same work at two sizes.
const FULL: Sizes = {
  users: 1000, channels: 10, topics: 5, smallMessages: 10_000, bigMessages: 1_000_000, seconds: 10, connections: 32, extraPolls: 10_000, registers: 200, markRead: 10_000, daySeconds: 20, dayMaxUsers: 6400,
  soakSeconds: 600, soakQueues: 10_000, soakActive: 200, soakIdle: 200, soakRate: 20, fairSeconds: 10, deliveryRounds: 1000,
};
const QUICK: Sizes = {
  users: 120, channels: 3, topics: 5, smallMessages: 1500, bigMessages: 6000, seconds: 2, connections: 8, extraPolls: 300, registers: 20, markRead: 1000, daySeconds: 3, dayMaxUsers: 100,
  soakSeconds: 10, soakQueues: 300, soakActive: 20, soakIdle: 20, soakRate: 10, fairSeconds: 2, deliveryRounds: 50,
};
/** Scenarios that run only when asked for (or in a quick run): long, and about endurance. */
// W1-W4 (the web app, in Chromium) too: they seed a realm of their own.
const OPT_IN = new Set(['SOAK', 'FAIR', 'FAIR-LOGIN', 'DELIVERY', 'W1', 'W2', 'W3', 'W4']);

interface Options {
  url?: string;
  zuliprc?: string;
  quick?: boolean;
  only?: string;
  out?: string;
  profile?: string;
  peer?: string;
  p2Rate?: string;
  nodeArgs?: string;
}

const log = (line: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);

async function measureBaseline(sizes: Sizes): Promise<Measured> {
  const base = await startBaseline();
  try {
    return await hammer({ url: base.url, method: 'POST', path: '/api/v1/messages', params: { type: 'stream', to: 1, topic: 'baseline', content: 'A load-test message with **some** markup' }, connections: sizes.connections, seconds: sizes.seconds });
  } finally {
    await base.stop();
  }
}

/**
 * The environment of the bench's own server. A heartbeat beyond any scenario's length keeps P3's
 * extra polls parked throughout. Rate limits stay on, so that their cost is measured, but high
 * enough never to refuse the bench.
 */
function ownServerEnv(): { serverEnv: Record<string, string> } {
  const config = join(mkdtempSync(join(tmpdir(), 'stoa-bench-config-')), 'config.json');
  // The failed-login limits too: FAIR-LOGIN's flood must reach the hashing thread.
  writeFileSync(config, JSON.stringify({ rateLimits: { enabled: true, perUser: [[60, 1_000_000_000]], perIp: [[60, 1_000_000_000]] }, fetchApiKeyRateLimit: { failures: 1_000_000_000, windowSeconds: 60 } }));
  return { serverEnv: { STOA_HEARTBEAT_SECONDS: '120', STOA_CONFIG: config } };
}

function seedSpec(sizes: Sizes, messages: number): SeedSpec {
  return { users: sizes.users, channels: sizes.channels, topics: sizes.topics, messages };
}

/** Runs the scenarios whose ids `want` lets through, in an order that reuses each seeded server. */
async function scenarios(opts: Options, sizes: Sizes, baseline: Measured, want: (id: string) => boolean): Promise<Outcome[]> {
  const results: Outcome[] = [];
  const envFor = (target: Target): Env => ({ target, sizes, baseline, log });
  const step = async <T extends Outcome>(id: string, fn: () => Promise<T>): Promise<T | null> => {
    if (!want(id)) return null;
    log(`${id}...`);
    const outcome = await fn();
    log(`${id}: ${outcome.value} (${outcome.pass === null ? 'n/a' : outcome.pass ? 'met' : 'missed'})`);
    results.push(outcome);
    return outcome;
  };
  const common = async (env: Env) => {
    const p1 = await step('P1', () => sendWithPollers(env));
    // P2 and P3 run at P1's rate: measured here if P1 itself was not asked for.
    const p1Rps = async () => p1?.measured.rps ?? (await sendWithPollers(env)).measured.rps;
    if (want('P2') || want('P3')) {
      // --p2-rate: A/B pairs of P2 at one rate; P1's own rate moves with the machine's load and
      // with the change measured, and P2's figures with it. P3 compares with P1's rate: measured.
      const fixed = opts.p2Rate ? Number(opts.p2Rate) * 4 : null;
      const rps = fixed !== null && !want('P3') ? fixed : await p1Rps();
      await step('P2', () => fanoutLatency(env, fixed ?? rps));
      await step('P3', () => parkedPolls(env, rps));
    }
    const p5 = await step('P5', () => topicHistory(env));
    await step('P9', () => dayOfChat(env));
    await step('FAIR', () => fairness(env));
    await step('FAIR-LOGIN', () => loginFlood(env));
    await step('DELIVERY', () => deliveryCost(env, env.sizes.deliveryRounds));
    await step('SOAK', () => soak(env));
    return { p1, p5 };
  };

  if (opts.url) {
    const creds = readZuliprc(opts.zuliprc!);
    const remote = new RemoteServer(opts.url, creds);
    await remote.seed(seedSpec(sizes, sizes.smallMessages), log);
    const env = envFor(remote);
    await common(env);
    await step('P7b', () => registerLatency(env));
    await step('P8', () => markRead(env));
    return results;
  }

  const cluster = async () => {
    // The cluster's figures: nodes of their own behind nginx (bench/cluster.ts).
    for (const outcome of await clusterScenarios({ sizes, quick: opts.quick === true, log }, want)) {
      log(`${outcome.id}: ${outcome.value} (${outcome.pass === null ? 'n/a' : outcome.pass ? 'met' : 'missed'})`);
      results.push(outcome);
    }
  };
  const { serverEnv } = ownServerEnv();
  // CPU profiles of every server thread (main and shards), written when the server stops.
  const nodeArgs = [...(opts.nodeArgs ?? '').split(' ').filter(Boolean), ...(opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${opts.profile}`] : [])];
  // The web app's realm: 1,000 users, 100 channels, 100,000 messages (bench/web.ts).
  if (['W1', 'W2', 'W3'].some(want)) {
    if (!webAvailable()) log('W1-W3 need /usr/bin/chromium: not measured');
    else {
      const web = await OwnServer.create({ users: sizes.users, channels: opts.quick ? 10 : 100, topics: sizes.topics, messages: opts.quick ? 5000 : 100_000 }, serverEnv, log);
      try {
        for (const outcome of await webScenarios(envFor(web), web.owner as Required<typeof web.owner>, (id) => id !== 'W4' && want(id))) results.push(outcome);
      } finally {
        await web.close();
      }
    }
  }
  await step('W4', async () => firstLoadBytes());
  // Without a scenario of the own server (`--only W1`, `--only MOVE`, `--only IMP`), only the
  // others: the web app's realm above, the cluster's nodes, the import.
  if (!['P1', 'P2', 'P3', 'P4', 'P5', 'P6', 'P7', 'P7b', 'P8', 'P9', 'FAIR', 'FAIR-LOGIN', 'DELIVERY', 'SOAK'].some(want)) {
    await cluster();
    await step('IMP', () => importSpeed(sizes.bigMessages, log));
    return results;
  }
  const small = await OwnServer.create(seedSpec(sizes, sizes.smallMessages), serverEnv, log, nodeArgs);
  let smallRuns: Awaited<ReturnType<typeof common>>;
  try {
    await sleep(2000);
    await step('P4', async () => {
      const rss = (await small.usage())!.rssMb;
      return { id: 'P4', title: 'idle server RSS after start', target: '<= 80 MB', value: `${Math.round(rss)} MB`, pass: rss <= 80, details: { rssMb: Math.round(rss * 10) / 10, messagesStored: sizes.smallMessages } };
    });
    smallRuns = await common(envFor(small));
  } finally {
    await small.close();
  }

  await cluster();
  // IMP needs no server: the CLI imports a generated export of the big realm's size.
  await step('IMP', () => importSpeed(sizes.bigMessages, log));

  // P5 is measured on the small realm; only P6 needs it again on the big one.
  if (!['P6', 'P7', 'P7b', 'P8'].some(want)) return results;
  const big = await OwnServer.create(seedSpec(sizes, sizes.bigMessages), serverEnv, log, nodeArgs);
  try {
    const env = envFor(big);
    await step('P7', async () => {
      const ms = await big.restart();
      return { id: 'P7', title: `start-up with ${sizes.bigMessages} messages stored`, target: '<= 1 s', value: `${Math.round(ms)} ms`, pass: ms <= 1000, details: { startupMs: Math.round(ms) } };
    });
    await step('P7b', () => registerLatency(env));
    await step('P8', () => markRead(env));
    if (want('P6')) {
      const p5Big = await topicHistory(env, 'P5@big');
      const p1Big = await sendWithPollers(env, 'P1@big');
      results.push(p5Big, p1Big);
      const p1Small = smallRuns.p1?.measured.rps;
      const p5Small = smallRuns.p5?.measured.rps;
      const slow = (small: number | undefined, large: number) => (small ? Math.round((small / large) * 100) / 100 : null);
      const s1 = slow(p1Small, p1Big.measured.rps);
      const s5 = slow(p5Small, p5Big.measured.rps);
      await step('P6', async () => ({
        id: 'P6',
        title: `P1 and P5 at ${sizes.bigMessages} vs ${sizes.smallMessages} messages`,
        target: 'within 1.5x',
        value: `P1 x${s1 ?? 'n/a'}, P5 x${s5 ?? 'n/a'}`,
        pass: s1 !== null && s5 !== null ? s1 <= 1.5 && s5 <= 1.5 : null,
        details: { p1SmallRps: p1Small, p1BigRps: p1Big.measured.rps, p5SmallRps: p5Small, p5BigRps: p5Big.measured.rps },
      }));
    }
  } finally {
    await big.close();
  }
  return results;
}

function table(results: Outcome[], baseline: Measured): string {
  const rows = [['id', 'scenario', 'target', 'measured', 'result'], ...results.map((r) => [r.id, r.title, r.target, r.value, r.pass === null ? 'n/a' : r.pass ? 'met' : 'MISSED'])];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const line = (r: string[]) => r.map((cell, c) => cell.padEnd(widths[c])).join(' | ');
  return [`baseline (bare Koa): ${Math.round(baseline.rps)} req/s, p99 ${baseline.p99} ms`, line(rows[0]), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.slice(1).map(line)].join('\n');
}

async function main(opts: Options): Promise<void> {
  if (Boolean(opts.url) !== Boolean(opts.zuliprc)) throw new Error('--url and --zuliprc go together');
  const sizes = opts.quick ? QUICK : FULL;
  const only = opts.only ? new Set(opts.only.split(',').map((s) => s.trim().toUpperCase())) : null;
  // Ids compare in upper case ("P7b" is "P7B"); asking for P7 brings its second half, P7b.
  const want = (id: string) =>
    only ? only.has(id.toUpperCase()) || only.has(id.toUpperCase().replace(/B$/, '')) : !OPT_IN.has(id) || opts.quick === true;
  const load = loadavg();
  log(`${opts.quick ? 'quick' : 'full'} run against ${opts.url ?? 'its own server'}; load average ${load.map((l) => l.toFixed(2)).join(' ')}`);
  const baseline = await measureBaseline(sizes);
  log(`baseline: ${Math.round(baseline.rps)} req/s`);
  if (opts.peer) return peerMain(opts, sizes, baseline, load);
  const results = await scenarios(opts, sizes, baseline, want);
  const report = {
    date: new Date().toISOString(),
    mode: opts.quick ? 'quick' : 'full',
    target: opts.url ?? 'own server',
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version, loadAverageAtStart: load, loadAverageAtEnd: loadavg() },
    sizes,
    baseline,
    results,
  };
  const dir = opts.out ?? fileURLToPath(new URL('../../bench/results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const file = `${dir.replace(/\/$/, '')}/${report.date.replace(/[:.]/g, '-')}.json`;
  writeFileSync(file, JSON.stringify(report, null, 2));
  console.log(table(results, baseline));
  console.log(`report: ${file}`);
}

/** `--peer ejabberd`: the side-by-side comparison (bench/peer/) instead of the scenarios. */
async function peerMain(opts: Options, sizes: Sizes, baseline: Measured, load: number[]): Promise<void> {
  if (opts.peer !== 'ejabberd') throw new Error(`--peer: only "ejabberd" is known, not "${opts.peer}"`);
  if (opts.url) throw new Error('--peer runs against the bench\'s own server');
  const { serverEnv } = ownServerEnv();
  const { report, table } = await peerComparison(sizes, baseline, serverEnv, seedSpec(sizes, sizes.smallMessages), log);
  const full = { date: new Date().toISOString(), mode: opts.quick ? 'quick' : 'full', peer: opts.peer, machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version, loadAverageAtStart: load, loadAverageAtEnd: loadavg() }, baseline, ...report };
  const dir = opts.out ?? fileURLToPath(new URL('../../bench/results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const file = `${dir.replace(/\/$/, '')}/peer-${full.date.replace(/[:.]/g, '-')}.json`;
  writeFileSync(file, JSON.stringify(full, null, 2));
  console.log(table);
  console.log(`report: ${file}`);
}

new Command('bench')
  .description('Load-test a Stoa (or any Zulip-API) server: scenarios P1-P9 as ratios to a bare Koa baseline measured in the same run')
  .option('--url <url>', 'drive a running server instead of starting one (with --zuliprc)')
  .option('--zuliprc <file>', "an administrator's zuliprc for --url")
  .option('--quick', 'every scenario, small, in under a minute')
  .option('--only <ids>', 'comma-separated scenario ids, e.g. P1,P5')
  .option('--out <dir>', 'where to write the JSON report (default bench/results)')
  .option('--profile <dir>', "write CPU profiles of the server's threads there (own server only)")
  .option('--p2-rate <sends/s>', "run P2 at this rate instead of a quarter of P1's, measured first")
  .option('--node-args <flags>', "Node flags for the own server's process, e.g. '--max-semi-space-size=32'")
  .option('--peer <server>', 'compare P1/P2 with another server run the same way: "ejabberd" (bench/README.md)')
  .action((opts: Options) =>
    main(opts).then(
      () => process.exit(0),
      (err) => {
        console.error(err);
        process.exit(1);
      },
    ),
  )
  .parse();
