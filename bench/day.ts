import { Api, Poller, type Creds } from './lib/api.js';
import { Latencies, sleep } from './lib/load.js';
import type { Env, Outcome } from './scenarios.js';

/**
 * P9, "a day of chat": simulated users doing what real clients do, in the proportions published
 * for real servers (of all requests: ~44% long-polls, 36% presence, 3% history reads, 1.5% flag
 * updates, 0.5% sends; we add typing and reactions for the rest that clients send). Polls come
 * as events and heartbeats make them; every other action is drawn at random (a Poisson process
 * per user) so that presence, the metronome of a real client, comes once a minute.
 *
 * Time runs COMPRESSION times faster than a real day: a user pings presence every 60/COMPRESSION
 * seconds, and the rest scales with it. Steps of doubling user counts run until one breaks the
 * bar (mean latency < 100 ms, p99 < 2 s, no errors; polls excluded, since they wait by design).
 */
const COMPRESSION = 10;
const PRESENCE_SECONDS = 60 / COMPRESSION;
/** Weights per action, relative to presence = 36. */
const MIX: [Action, number][] = [
  ['presence', 36],
  ['typing', 4],
  ['history', 3],
  ['flags', 1.5],
  ['reaction', 1],
  ['send', 0.5],
];
type Action = 'presence' | 'typing' | 'history' | 'flags' | 'reaction' | 'send';
const TOTAL_WEIGHT = MIX.reduce((n, [, w]) => n + w, 0);
/** Actions per user per second. */
const RATE = TOTAL_WEIGHT / 36 / PRESENCE_SECONDS;

interface SimUser {
  creds: Creds & { id: number };
  poller: Poller;
  channels: number[];
  /** Recent message ids this user has been sent, for flags and reactions. */
  recent: number[];
  reacted: Set<number>;
  next: number;
}

function pick(): Action {
  let x = Math.random() * TOTAL_WEIGHT;
  for (const [action, w] of MIX) if ((x -= w) < 0) return action;
  return 'presence';
}

async function act(api: Api, u: SimUser, action: Action): Promise<number> {
  const channel = u.channels[Math.floor(Math.random() * u.channels.length)];
  const recent = u.recent[Math.floor(Math.random() * u.recent.length)];
  switch (action) {
    case 'presence':
      return (await api.call(u.creds, 'POST', '/users/me/presence', { status: 'active', new_user_input: true, slim_presence: true })).status;
    case 'typing':
      if (channel === undefined) return 200;
      return (await api.call(u.creds, 'POST', '/typing', { type: 'stream', op: 'start', stream_id: channel, topic: 'day' })).status;
    case 'history':
      if (channel === undefined) return 200;
      return (await api.call(u.creds, 'GET', '/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow: [{ operator: 'channel', operand: channel }] })).status;
    case 'flags':
      if (recent === undefined) return 200;
      return (await api.call(u.creds, 'POST', '/messages/flags', { messages: [recent], op: 'add', flag: 'read' })).status;
    case 'reaction':
      if (recent === undefined || u.reacted.has(recent)) return 200;
      u.reacted.add(recent);
      return (await api.call(u.creds, 'POST', `/messages/${recent}/reactions`, { emoji_name: 'octopus' })).status;
    case 'send':
      if (channel === undefined) return 200;
      return (await api.call(u.creds, 'POST', '/messages', { type: 'stream', to: channel, topic: 'day', content: 'a message in the day of chat' })).status;
  }
}

/** One step: `count` users for `seconds`; the latency of every non-poll request. */
async function step(env: Env, count: number, seconds: number) {
  const api = new Api(env.target.url, count * 2 + 32);
  const { users, channels } = env.target.seeded;
  const sims: SimUser[] = [];
  // Past the seeded users' count two simulated users are one person: what they have reacted
  // with is that person's (a second identical reaction is refused, as the reference refuses it).
  const reactedBy = new Map<number, Set<number>>();
  for (let i = 0; i < count; i++) {
    const creds = users[i % users.length];
    let reacted = reactedBy.get(creds.id);
    if (!reacted) reactedBy.set(creds.id, (reacted = new Set()));
    const sim: SimUser = { creds, poller: null!, channels: channels.filter((c) => c.members.includes(creds.id)).map((c) => c.id), recent: [], reacted, next: 0 };
    sim.poller = new Poller(api, creds, { fetch_event_types: ['message', 'update_message_flags'], client_capabilities: { stream_typing_notifications: true } }, (event) => {
      if (event.type === 'message') {
        sim.recent.push(event.message.id);
        if (sim.recent.length > 20) sim.recent.shift();
      }
    });
    sims.push(sim);
  }
  for (let i = 0; i < sims.length; i += 25) await Promise.all(sims.slice(i, i + 25).map((s) => s.poller.register()));
  const lat = new Latencies();
  let errors = 0;
  /** What failed, by action and status, so that an error in the report can be told apart. */
  const failures: Record<string, number> = {};
  const failed = (what: string) => {
    errors++;
    failures[what] = (failures[what] ?? 0) + 1;
  };
  const start = performance.now();
  for (const s of sims) {
    s.poller.start();
    s.next = start + (-Math.log(1 - Math.random()) / RATE) * 1000;
  }
  const pending: Promise<void>[] = [];
  while (performance.now() - start < seconds * 1000) {
    const now = performance.now();
    for (const s of sims) {
      if (s.next > now) continue;
      s.next = now + (-Math.log(1 - Math.random()) / RATE) * 1000;
      const t0 = performance.now();
      const action = pick();
      pending.push(
        act(api, s, action).then(
          (status) => {
            lat.add(performance.now() - t0);
            if (status !== 200) failed(`${action} ${status}`);
          },
          () => failed(`${action} failed`),
        ),
      );
    }
    await sleep(10);
  }
  await Promise.all(pending);
  const polls = sims.reduce((n, s) => n + s.poller.polls, 0);
  const pollErrors = sims.reduce((n, s) => n + s.poller.errors, 0);
  if (pollErrors > 0) failures.poll = pollErrors;
  errors += pollErrors;
  await Promise.all(sims.map((s) => s.poller.stop()));
  await api.close();
  const s = lat.summary();
  return { users: count, requests: s.count + polls, pollShare: Math.round((polls / (s.count + polls)) * 1000) / 1000, ...s, errors, failures, ok: s.mean < 100 && s.p99 < 2000 && errors === 0 };
}

export async function dayOfChat(env: Env): Promise<Outcome> {
  const steps = [];
  let best = 0;
  for (let count = Math.min(50, env.sizes.dayMaxUsers); count <= env.sizes.dayMaxUsers; count *= 2) {
    env.log(`  P9: ${count} simulated users for ${env.sizes.daySeconds} s`);
    const result = await step(env, count, env.sizes.daySeconds);
    steps.push(result);
    if (!result.ok) break;
    best = count;
  }
  return {
    id: 'P9',
    title: `a day of chat (time x${COMPRESSION}): most users within the bar`,
    target: 'mean < 100 ms, p99 < 2 s, 0 errors: report the count',
    value: `${best} users`,
    pass: best > 0 ? true : false,
    details: { compression: COMPRESSION, presenceSeconds: PRESENCE_SECONDS, mix: Object.fromEntries(MIX), steps, ceiling: best === env.sizes.dayMaxUsers ? 'the largest step passed; the real limit is higher' : undefined },
  };
}
