import { setMaxListeners } from 'node:events';
import { Api, Poller, type Creds } from './lib/api.js';
import { cpuBetween, hammer, Latencies, leadInSeconds, openLoop, sampled, sleep, type CpuSpent, type Measured } from './lib/load.js';
import type { Target } from './lib/target.js';

/** How big and how long: `--quick` shrinks every scenario so the whole run takes under a minute. */
export interface Sizes {
  users: number;
  channels: number;
  topics: number;
  smallMessages: number;
  bigMessages: number;
  seconds: number;
  connections: number;
  extraPolls: number;
  registers: number;
  markRead: number;
  daySeconds: number;
  dayMaxUsers: number;
  soakSeconds: number;
  soakQueues: number;
  soakActive: number;
  soakIdle: number;
  soakRate: number;
  fairSeconds: number;
  deliveryRounds: number;
}

export interface Outcome {
  id: string;
  title: string;
  target: string;
  /** The headline figure, as printed. */
  value: string;
  /** Met, missed, or not measurable here (null). */
  pass: boolean | null;
  details: Record<string, unknown>;
}

export interface Env {
  target: Target;
  sizes: Sizes;
  baseline: Measured;
  log(line: string): void;
}

const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;

/**
 * The server's CPU time per send and per delivered event over a measured run, split between its
 * main thread (HTTP) and the rest (shard threads, GC helpers). null when the server is remote.
 */
export function cpuCost(cpu: CpuSpent | null, sends: number, events: number) {
  if (!cpu || sends === 0) return null;
  const r = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
  return {
    msPerSend: r(cpu.totalMs / sends),
    mainMsPerSend: r(cpu.mainMs / sends),
    otherMsPerSend: r(cpu.otherMs / sends),
    shardMsPerSend: r(cpu.busiestOtherMs / sends),
    usPerEvent: events > 0 ? r((cpu.totalMs * 1000) / events, 1) : null,
  };
}

/**
 * The bench process's own CPU time since `from`, in ms: its pollers (undici, a JSON parse of
 * every answer) share the machine's cores with the server, which a real client does not.
 */
function generatorCpuMs(from: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(from);
  return Math.round((used.user + used.system) / 1000);
}

/** The first channel's subscribers ("bench 0", 50 users) as long-pollers of message events. */
async function fanoutPollers(env: Env, api: Api, onEvent?: (event: any, at: number) => void): Promise<Poller[]> {
  const users = env.target.seeded.users.slice(0, 50);
  const pollers = users.map((u) => new Poller(api, u, { event_types: ['message'], fetch_event_types: ['message'] }, onEvent));
  await Promise.all(pollers.map((p) => p.register()));
  for (const p of pollers) p.start();
  await sleep(200);
  return pollers;
}

function sendSpec(env: Env, topic: string) {
  const channel = env.target.seeded.channels[0];
  return { url: env.target.url, creds: env.target.seeded.users[0], method: 'POST' as const, path: '/api/v1/messages', params: { type: 'stream', to: channel.id, topic, content: 'A load-test message with **some** markup' }, connections: env.sizes.connections, seconds: env.sizes.seconds };
}

/** P1: sends to a 50-subscriber channel while all 50 hold long-polls. */
export async function sendWithPollers(env: Env, id = 'P1'): Promise<Outcome & { measured: Measured }> {
  const api = new Api(env.target.url, 64);
  let delivered = 0;
  let deliveredAtStart = 0;
  let pollsAtStart = 0;
  let generatorFrom = process.cpuUsage();
  let generatorMs = 0;
  const pollers = await fanoutPollers(env, api, (e) => void (e.type === 'message' && delivered++));
  const run = await sampled(env.target, async (mark) => {
    const measured = await hammer({
      ...sendSpec(env, 'p1'),
      onStart: async () => {
        deliveredAtStart = delivered;
        pollsAtStart = pollers.reduce((n, p) => n + p.polls, 0);
        generatorFrom = process.cpuUsage();
        await mark();
      },
    });
    generatorMs = generatorCpuMs(generatorFrom);
    return measured;
  });
  const deliveredMeasured = delivered - deliveredAtStart;
  const pollsMeasured = pollers.reduce((n, p) => n + p.polls, 0) - pollsAtStart;
  await Promise.all(pollers.map((p) => p.stop()));
  await api.close();
  const m = run.value;
  const r = ratio(m.rps, env.baseline.rps);
  const cost = cpuCost(run.cpu, m.requests, deliveredMeasured);
  return {
    id,
    title: 'POST /messages, 50-subscriber channel, 50 long-polls',
    target: '>= 0.35 of baseline req/s',
    value: `${r} (${Math.round(m.rps)} req/s${cost ? `, ${cost.msPerSend} ms CPU/send` : ''})`,
    pass: r >= 0.35 && m.errors === 0,
    // The generator's share of the two cores bounds the rate as much as the server's does.
    details: { ...m, ratio: r, eventsDelivered: delivered, eventsMeasured: deliveredMeasured, pollsMeasured, generatorMsPerSend: m.requests > 0 ? Math.round((generatorMs / m.requests) * 1000) / 1000 : null, pollErrors: pollers.reduce((n, p) => n + p.errors, 0), maxRssMb: run.maxRssMb, avgCpu: run.avgCpu, cpu: run.cpu, ...cost },
    measured: m,
  };
}

/** P2: send -> event at all 50 pollers, at a quarter of P1's rate. */
export async function fanoutLatency(env: Env, p1Rps: number): Promise<Outcome> {
  const api = new Api(env.target.url, 128);
  const rate = Math.max(1, p1Rps / 4);
  const sent = new Map<number, { t0: number; got: number }>();
  const lat = new Latencies();
  let complete = 0;
  const pollers = await fanoutPollers(env, api, (event, at) => {
    const n = Number(/^p2 (\d+)$/.exec(event.message?.content ?? '')?.[1]);
    const s = sent.get(n);
    if (s && ++s.got === pollers.length) {
      lat.add(at - s.t0);
      complete++;
    }
  });
  const channel = env.target.seeded.channels[0];
  const sender = env.target.seeded.users[0];
  let errors = 0;
  const inFlight: Promise<void>[] = [];
  const post = (content: string): void => void inFlight.push(api.call(sender, 'POST', '/messages', { type: 'stream', to: channel.id, topic: 'p2', content }).then((r) => void (r.status !== 200 && errors++)));
  // The lead-in's messages ("p2 lead-in <k>") reach the pollers too; the handler above skips them.
  const leadIn = await openLoop(rate, leadInSeconds(env.sizes.seconds), (k) => post(`p2 lead-in ${k}`));
  const cpuFrom = await env.target.cpuTime();
  const generatorFrom = process.cpuUsage();
  const start = performance.now();
  const n = await openLoop(rate, env.sizes.seconds, (k) => {
    sent.set(k, { t0: performance.now(), got: 0 });
    post(`p2 ${k}`);
  });
  await Promise.all(inFlight);
  // The last sends' events are waited for, not a fixed time: on a loaded machine they can take
  // longer than a second to reach all 50 pollers, and a message counted as lost must be lost.
  for (const until = performance.now() + 10_000; complete < n && performance.now() < until; ) await sleep(20);
  const cpuTo = await env.target.cpuTime();
  const generatorMs = generatorCpuMs(generatorFrom);
  await Promise.all(pollers.map((p) => p.stop()));
  await api.close();
  const s = lat.summary();
  const incomplete = n - s.count;
  const cpu = cpuBetween(cpuFrom, cpuTo, (performance.now() - start) / 1000);
  return {
    id: 'P2',
    title: 'send -> event at all 50 pollers, at 1/4 of P1 rate',
    target: 'p99 <= 10 ms',
    value: `p50 ${s.p50} ms, p99 ${s.p99} ms at ${Math.round(rate)}/s`,
    pass: s.p99 <= 10 && incomplete === 0 && errors === 0,
    details: { rate: Math.round(rate), leadIn, sent: n, ...s, incomplete, errors, polls: pollers.reduce((k, p) => k + p.polls, 0), cpu, ...cpuCost(cpu, n, s.count * pollers.length), generatorMs },
  };
}

/**
 * Waits until the server is idle (under a tenth of a core over two half-seconds in a row), for
 * 20 s at the most; returns how long that took. Without the server's CPU time (a remote
 * target), a fixed second.
 */
async function settle(target: Target): Promise<number> {
  const t0 = performance.now();
  let last = await target.cpuTime();
  if (!last) {
    await sleep(1000);
    return 1000;
  }
  let quiet = 0;
  while (quiet < 2 && performance.now() - t0 < 20_000) {
    await sleep(500);
    const now = await target.cpuTime();
    if (!now) break;
    quiet = now.totalMs - last.totalMs < 50 ? quiet + 1 : 0;
    last = now;
  }
  return Math.round(performance.now() - t0);
}

/** P3: P1 again with many extra parked long-polls. */
export async function parkedPolls(env: Env, p1Rps: number): Promise<Outcome> {
  const { extraPolls } = env.sizes;
  const api = new Api(env.target.url, extraPolls + 16);
  const users = env.target.seeded.users.slice(50);
  // Queues that no message reaches (event_types: reaction), so their polls stay parked.
  const queues: { creds: Creds; queueId: string }[] = [];
  // Issue 31's measure: what each registered queue with its poll parked adds to the RSS.
  const before = await env.target.usage();
  for (let i = 0; i < extraPolls; i += 50) {
    const batch = Array.from({ length: Math.min(50, extraPolls - i) }, (_, k) => users[(i + k) % users.length]);
    const regs = await Promise.all(batch.map((u) => api.ok(u, 'POST', '/register', { event_types: ['reaction'], fetch_event_types: ['message'] })));
    regs.forEach((r, k) => queues.push({ creds: batch[k], queueId: r.queue_id }));
  }
  const abort = new AbortController();
  // One signal for every parked poll: each adds a listener, which is expected here.
  setMaxListeners(0, abort.signal);
  const parked = queues.map((q) => api.call(q.creds, 'GET', '/events', { queue_id: q.queueId, last_event_id: -1 }, abort.signal).catch(() => null));
  // The polls take seconds to arrive and park, and the RSS grows until they have: read it once
  // the server has settled, not at a fixed second (which counted only some of them).
  const settledAfterMs = await settle(env.target);
  const idle = await env.target.usage();
  const again = await sendWithPollers(env, 'P3');
  abort.abort();
  await Promise.all(parked);
  for (let i = 0; i < queues.length; i += 100) {
    await Promise.all(queues.slice(i, i + 100).map((q) => api.call(q.creds, 'DELETE', '/events', { queue_id: q.queueId })));
  }
  await api.close();
  const drop = 1 - again.measured.rps / p1Rps;
  const rss = again.details.maxRssMb as number | null;
  const perQueue = before && idle ? Math.round(((idle.rssMb - before.rssMb) * 1024 * 10) / extraPolls) / 10 : null;
  return {
    id: 'P3',
    title: `P1 with ${extraPolls} extra parked long-polls`,
    target: 'throughput drop <= 10%, RSS <= 300 MB (issue 31: <= 16 KB per parked queue, settled)',
    value: `drop ${Math.round(drop * 100)}%, RSS ${rss ?? 'n/a'} MB, ${perQueue ?? 'n/a'} KB per parked queue`,
    pass: drop <= 0.1 && (rss === null || rss <= 300) && again.measured.errors === 0,
    details: { rps: Math.round(again.measured.rps), p1Rps: Math.round(p1Rps), drop: Math.round(drop * 1000) / 1000, rssWithParkedMb: idle?.rssMb ?? null, settledAfterMs, rssBeforeMb: before?.rssMb ?? null, kbPerParkedQueue: perQueue, ...again.details },
  };
}

/**
 * DELIVERY: what one delivery costs end to end, as a fixed amount of work whatever else runs on
 * the machine: one send to the 50-subscriber channel, waited for until all 50 pollers have it,
 * `rounds` times (a fifth more first, unmeasured). Reports the server's CPU time per round (1
 * send, 50 deliveries, 50 polls), which hardly depends on the load, and the round's wall time.
 */
export async function deliveryCost(env: Env, rounds: number): Promise<Outcome> {
  const api = new Api(env.target.url, 64);
  const senders = env.target.seeded.users.slice(0, 4);
  const channel = env.target.seeded.channels[0];
  let want = -1;
  let got = 0;
  let wake: () => void = () => undefined;
  const pollers = await fanoutPollers(env, api, (event) => {
    if (Number(/^d (\d+)$/.exec(event.message?.content ?? '')?.[1]) === want && ++got === pollers.length) wake();
  });
  const lat = new Latencies();
  const round = async (n: number) => {
    want = n;
    got = 0;
    const done = new Promise<void>((resolve) => (wake = resolve));
    const t0 = performance.now();
    const sent = await api.call(senders[n % senders.length], 'POST', '/messages', { type: 'stream', to: channel.id, topic: 'delivery', content: `d ${n}` });
    if (sent.status !== 200) throw new Error(`POST /messages: ${sent.status} ${JSON.stringify(sent.body).slice(0, 200)}`);
    await done;
    return performance.now() - t0;
  };
  const warmup = Math.round(rounds / 5);
  for (let n = 0; n < warmup; n++) await round(n);
  const from = await env.target.cpuTime();
  const generatorFrom = process.cpuUsage();
  for (let n = warmup; n < warmup + rounds; n++) lat.add(await round(n));
  const to = await env.target.cpuTime();
  const generatorMsPerRound = Math.round((generatorCpuMs(generatorFrom) / rounds) * 1000) / 1000;
  await Promise.all(pollers.map((p) => p.stop()));
  await api.close();
  const s = lat.summary();
  const r = (x: number) => Math.round(x * 1000) / 1000;
  const spent = cpuBetween(from, to, 0);
  const cpu = spent ? { msPerRound: r(spent.totalMs / rounds), mainMsPerRound: r(spent.mainMs / rounds), otherMsPerRound: r(spent.otherMs / rounds), shardMsPerRound: r(spent.busiestOtherMs / rounds) } : null;
  return {
    id: 'DELIVERY',
    title: `one send to 50 pollers, waited for, ${rounds} times`,
    target: 'reported: server CPU per round',
    value: `${cpu ? `${cpu.msPerRound} ms CPU/round (main ${cpu.mainMsPerRound}), ` : ''}round p50 ${s.p50} ms, p99 ${s.p99} ms`,
    pass: null,
    details: { rounds, ...s, ...cpu, generatorMsPerRound },
  };
}

/** P5: a page of 100 messages of one topic. */
export async function topicHistory(env: Env, label = 'P5'): Promise<Outcome & { measured: Measured }> {
  const channel = env.target.seeded.channels[0];
  const narrow = [{ operator: 'channel', operand: channel.id }, { operator: 'topic', operand: env.target.seeded.topics[0] }];
  const run = await sampled(env.target, (mark) =>
    hammer({ url: env.target.url, creds: env.target.seeded.users[0], method: 'GET', path: '/api/v1/messages', params: { anchor: 'newest', num_before: 100, num_after: 0, narrow }, connections: env.sizes.connections, seconds: env.sizes.seconds, onStart: mark }),
  );
  const m = run.value;
  const r = ratio(m.rps, env.baseline.rps);
  return {
    id: label,
    title: `GET /messages, 100 of a channel+topic, ${env.target.seeded.messages} messages stored`,
    target: '>= 0.15 of baseline req/s',
    value: `${r} (${Math.round(m.rps)} req/s)`,
    pass: r >= 0.15 && m.errors === 0,
    details: { ...m, ratio: r, maxRssMb: run.maxRssMb, avgCpu: run.avgCpu, cpu: run.cpu, cpuMsPerPage: run.cpu && m.requests > 0 ? Math.round((run.cpu.totalMs / m.requests) * 1000) / 1000 : null },
    measured: m,
  };
}

/** P7 (second half): POST /register with every section, one at a time. */
export async function registerLatency(env: Env): Promise<Outcome> {
  const api = new Api(env.target.url, 4);
  const lat = new Latencies();
  const users = env.target.seeded.users;
  const ids: { creds: Creds; queueId: string }[] = [];
  // A fifth more first, unmeasured: the warm-up every load run has (lib/load.ts). P7 has just
  // restarted the server, so without it the p50 would include JIT compilation.
  const warmup = Math.round(env.sizes.registers / 5);
  let cpuFrom: Awaited<ReturnType<Target['cpuTime']>> = null;
  let t1 = 0;
  for (let i = 0; i < warmup + env.sizes.registers; i++) {
    if (i === warmup) {
      cpuFrom = await env.target.cpuTime();
      t1 = performance.now();
    }
    const creds = users[(i * 7) % users.length];
    const t0 = performance.now();
    const reg = await api.call(creds, 'POST', '/register', {});
    if (reg.status !== 200) throw new Error(`POST /register: ${reg.status} ${JSON.stringify(reg.body).slice(0, 300)}`);
    // Until the whole snapshot has arrived; parsing half a megabyte of JSON is the client's work.
    if (i >= warmup) lat.add(reg.receivedAt - t0);
    ids.push({ creds, queueId: reg.body.queue_id });
  }
  // The server's CPU per measured register, per thread: what the latency's two modes across runs
  // (4.5 and 6.2 ms on one build) do not blur, as P1 and P5 carry it.
  const spent = cpuBetween(cpuFrom, await env.target.cpuTime(), (performance.now() - t1) / 1000);
  const n = env.sizes.registers;
  const r = (x: number) => Math.round((x / n) * 1000) / 1000;
  const cpu = spent ? { msPerRegister: r(spent.totalMs), mainMsPerRegister: r(spent.mainMs), shardMsPerRegister: r(spent.busiestOtherMs), otherMsPerRegister: r(spent.otherMs - spent.busiestOtherMs) } : null;
  for (const q of ids) await api.call(q.creds, 'DELETE', '/events', { queue_id: q.queueId });
  await api.close();
  const s = lat.summary();
  return {
    id: 'P7b',
    title: `POST /register (all sections), ${users.length + 1}-user realm`,
    target: '<= 5 ms',
    value: `p50 ${s.p50} ms, p99 ${s.p99} ms${cpu ? `, ${cpu.msPerRegister} ms CPU/register (main ${cpu.mainMsPerRegister}, shard ${cpu.shardMsPerRegister})` : ''}`,
    pass: s.p50 <= 5,
    details: { ...s, ...cpu },
  };
}

/** P8: mark 10,000 messages read over a narrow, in batches as clients do (5,000 per request). */
export async function markRead(env: Env): Promise<Outcome> {
  const api = new Api(env.target.url, 2);
  const creds = env.target.seeded.users[0];
  const narrow = [{ operator: 'channel', operand: env.target.seeded.channels[0].id }];
  const times: number[] = [];
  let marked = 0;
  const sweep = async (op: 'add' | 'remove') => {
    let anchor: string | number = 'oldest';
    let count = 0;
    while (count < env.sizes.markRead) {
      const r = await api.ok(creds, 'POST', '/messages/flags/narrow', { anchor, include_anchor: anchor === 'oldest', num_before: 0, num_after: Math.min(5000, env.sizes.markRead - count), narrow, op, flag: 'read' });
      count += r.processed_count;
      if (r.found_newest || r.processed_count === 0) break;
      anchor = r.last_processed_id;
    }
    return count;
  };
  for (let i = 0; i < 3; i++) {
    await sweep('remove');
    const t0 = performance.now();
    marked = await sweep('add');
    times.push(performance.now() - t0);
  }
  await api.close();
  times.sort((a, b) => a - b);
  const median = Math.round(times[1] * 10) / 10;
  return {
    id: 'P8',
    title: `POST /messages/flags/narrow marking ${marked} messages read`,
    target: '<= 50 ms',
    value: `${median} ms`,
    pass: marked >= env.sizes.markRead && median <= 50,
    details: { marked, medianMs: median, runsMs: times.map((t) => Math.round(t * 10) / 10) },
  };
}
