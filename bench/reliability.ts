import { setMaxListeners } from 'node:events';
import { Api, Poller, type Creds } from './lib/api.js';
import { Latencies, sleep } from './lib/load.js';
import type { Env, Outcome } from './scenarios.js';

/**
 * The scenarios of the reliability issues, opt-in (`--only SOAK,FAIR,FAIR-LOGIN`; `--quick`
 * runs short ones): they take long, and measure endurance and isolation rather than speed.
 */

/**
 * SOAK: many queues for a long time, with sends. `soakQueues` queues: most parked on reaction
 * events (they stay parked, as P3's), `soakActive` of them long-polling message events and
 * acknowledging as they go, and `soakIdle` abandoned ones that receive every message of a
 * channel and never poll (the clients that close a laptop lid). Sends go to that channel at
 * `soakRate` per second. The server's RSS is sampled every few seconds; after a warm-up fifth
 * of the run it must stay within 10% of where it was.
 */
export async function soak(env: Env): Promise<Outcome> {
  const { soakSeconds, soakQueues, soakActive, soakIdle, soakRate } = env.sizes;
  const { users, channels } = env.target.seeded;
  const channel = channels[0];
  const members = users.filter((u) => channel.members.includes(u.id));
  const api = new Api(env.target.url, soakQueues + 64);
  const parkedQueues: { creds: Creds; queueId: string }[] = [];
  const others = users.filter((u) => !channel.members.includes(u.id));
  for (let i = 0; i < soakQueues - soakActive - soakIdle; i += 50) {
    const batch = Array.from({ length: Math.min(50, soakQueues - soakActive - soakIdle - i) }, (_, k) => others[(i + k) % others.length]);
    const regs = await Promise.all(batch.map((u) => api.ok(u, 'POST', '/register', { event_types: ['reaction'], fetch_event_types: ['message'] })));
    regs.forEach((r, k) => parkedQueues.push({ creds: batch[k], queueId: r.queue_id }));
  }
  const abort = new AbortController();
  setMaxListeners(0, abort.signal);
  const parked = parkedQueues.map((q) => api.call(q.creds, 'GET', '/events', { queue_id: q.queueId, last_event_id: -1 }, abort.signal).catch(() => null));
  let delivered = 0;
  const pollers = Array.from({ length: soakActive }, (_, i) => new Poller(api, members[i % members.length], { event_types: ['message'], fetch_event_types: ['message'] }, () => void delivered++));
  await Promise.all(pollers.map((p) => p.register()));
  for (const p of pollers) p.start();
  const idle = await Promise.all(Array.from({ length: soakIdle }, (_, i) => api.ok(members[i % members.length], 'POST', '/register', { event_types: ['message'], fetch_event_types: ['message'] })));

  const samples: { at: number; rssMb: number }[] = [];
  let sent = 0;
  let errors = 0;
  const started = performance.now();
  let nextSample = 0;
  const sender = users[0];
  while (performance.now() - started < soakSeconds * 1000) {
    const elapsed = (performance.now() - started) / 1000;
    while (sent < elapsed * soakRate) {
      const k = sent++;
      void api.call(sender, 'POST', '/messages', { type: 'stream', to: channel.id, topic: `soak ${k % 20}`, content: `soak message ${k} with a little **markup**` }).then((r) => void (r.status !== 200 && errors++), () => void errors++);
    }
    if (elapsed >= nextSample) {
      const u = await env.target.usage();
      if (u) samples.push({ at: Math.round(elapsed), rssMb: Math.round(u.rssMb) });
      nextSample += Math.max(1, soakSeconds / 60);
    }
    await sleep(20);
  }
  abort.abort();
  await Promise.all(parked);
  await Promise.all(pollers.map((p) => p.stop()));
  for (const q of [...parkedQueues, ...idle.map((r, i) => ({ creds: members[i % members.length], queueId: r.queue_id as string }))]) {
    await api.call(q.creds, 'DELETE', '/events', { queue_id: q.queueId }).catch(() => undefined);
  }
  await api.close();

  const settled = samples.filter((s) => s.at >= soakSeconds / 5);
  const base = settled[0]?.rssMb ?? null;
  const peak = settled.length ? Math.max(...settled.map((s) => s.rssMb)) : null;
  const growth = base !== null && peak !== null ? Math.round(((peak - base) / base) * 1000) / 1000 : null;
  return {
    id: 'SOAK',
    title: `${soakQueues} queues for ${soakSeconds} s, sends at ${soakRate}/s (${soakIdle} never polled)`,
    target: 'RSS flat within 10% after warm-up',
    value: growth === null ? 'n/a' : `RSS ${base} -> peak ${peak} MB (${Math.round(growth * 100)}%)`,
    pass: growth === null ? null : growth <= 0.1 && errors === 0,
    details: { sent, errors, delivered, pollErrors: pollers.reduce((n, p) => n + p.errors, 0), growth, samples },
  };
}

/**
 * Ten users reading a page of their channel, 100 requests a second in all, open loop: their
 * latency, alone and beside some other load, is what the isolation scenarios compare.
 */
function pageReaders(env: Env, api: Api, others: Creds[]) {
  const { channels } = env.target.seeded;
  // A page of a channel the reader is in (users i with i % 5 === c % 5 are in channel c).
  const light = (i: number) => {
    const channel = channels.find((c) => c.members.includes((others[i] as Creds & { id: number }).id)) ?? channels[0];
    return api.call(others[i], 'GET', '/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: [{ operator: 'channel', operand: channel.id }] });
  };
  return async (seconds: number): Promise<{ lat: Latencies; errors: number }> => {
    const lat = new Latencies();
    let errors = 0;
    const inFlight: Promise<void>[] = [];
    const started = performance.now();
    let n = 0;
    while (performance.now() - started < seconds * 1000) {
      while (n < ((performance.now() - started) / 1000) * 100) {
        const i = n++ % others.length;
        const t0 = performance.now();
        inFlight.push(light(i).then((r) => (r.status === 200 ? lat.add(r.receivedAt - t0) : void errors++)));
      }
      await sleep(5);
    }
    await Promise.all(inFlight);
    return { lat, errors };
  };
}

/** Runs `load` (until told to stop) beside the page readers; their latency alone, then beside it. */
async function beside(env: Env, api: Api, load: (stopped: () => boolean) => Promise<void>[]) {
  const measure = pageReaders(env, api, env.target.seeded.users.slice(1, 11));
  await measure(Math.max(1, env.sizes.fairSeconds / 5));
  const alone = await measure(env.sizes.fairSeconds);
  let stop = false;
  const loops = load(() => stop);
  await sleep(500);
  const during = await measure(env.sizes.fairSeconds);
  stop = true;
  await Promise.all(loops);
  const a = alone.lat.summary();
  const b = during.lat.summary();
  return { a, b, errors: during.errors, pass: b.p99 <= Math.max(50, a.p99 * 5) && during.errors === 0 };
}

/**
 * FAIR: one user's worst legal query against everyone else. The heavy user loops (4 at once)
 * on GET /messages for 5,000 messages of every public channel excluding every topic: it walks
 * the whole history and finds nothing. Meanwhile ten other users read a page of their channel
 * at a steady rate. Their latency is measured alone first, then beside the heavy user.
 */
export async function fairness(env: Env): Promise<Outcome> {
  const { users, topics } = env.target.seeded;
  const api = new Api(env.target.url, 32);
  const heavy = users[0];
  const worst = { anchor: 'newest', num_before: 5000, num_after: 0, narrow: [{ operator: 'channels', operand: 'public' }, ...topics.map((topic) => ({ operator: 'topic', operand: topic, negated: true }))] };
  let heavyDone = 0;
  let heavyMs = 0;
  const { a, b, errors, pass } = await beside(env, api, (stopped) =>
    Array.from({ length: 4 }, async () => {
      while (!stopped()) {
        const t0 = performance.now();
        const r = await api.call(heavy, 'GET', '/messages', worst);
        if (r.status === 200) {
          heavyDone++;
          heavyMs += r.receivedAt - t0;
        }
      }
    }),
  );
  await api.close();
  return {
    id: 'FAIR',
    title: "others' page reads beside one user's worst legal query (x4 in parallel)",
    target: "others' p99 <= max(50 ms, 5x alone)",
    value: `p50 ${a.p50} -> ${b.p50} ms, p99 ${a.p99} -> ${b.p99} ms`,
    pass,
    details: { alone: a, beside: b, errors, heavyQueries: heavyDone, heavyMeanMs: heavyDone ? Math.round(heavyMs / heavyDone) : null },
  };
}

/**
 * FAIR-LOGIN: the page readers beside a flood of password logins with made-up usernames, eight
 * at a time, without credentials: each a 32 MiB scrypt, which once ran on libuv's threadpool and
 * stalled everyone's file work. The bench's server sets the failed-login limits out of reach,
 * so the flood is hashed (or refused by the hashing queue, 429) rather than refused by them.
 */
export async function loginFlood(env: Env): Promise<Outcome> {
  const api = new Api(env.target.url, 32);
  const answers: Record<string, number> = {};
  let n = 0;
  const { a, b, errors, pass } = await beside(env, api, (stopped) =>
    Array.from({ length: 8 }, async () => {
      while (!stopped()) {
        const r = await api.call(null, 'POST', '/fetch_api_key', { username: `nobody${n++}@bench.invalid`, password: 'a-guess' });
        answers[r.status] = (answers[r.status] ?? 0) + 1;
      }
    }),
  );
  await api.close();
  return {
    id: 'FAIR-LOGIN',
    title: "others' page reads beside a flood of logins with made-up names (x8 in parallel)",
    target: "others' p99 <= max(50 ms, 5x alone)",
    value: `p50 ${a.p50} -> ${b.p50} ms, p99 ${a.p99} -> ${b.p99} ms`,
    pass,
    details: { alone: a, beside: b, errors, logins: answers },
  };
}
