import { Pool } from 'undici';
import { Latencies, leadInSeconds, openLoop, sleep } from '../lib/load.js';
import { boshClient, tcpClient, type RoomClient } from './xmpp.js';
import { Ejabberd } from './ejabberd.js';

/**
 * Stoa's P1/P2 shape against ejabberd: one room of 50 members all online, 4 of them sending.
 * P1: 32 messages in flight (8 per sender), a message done when its sender has it back from the
 * room (ejabberd's acknowledgement, after its archive has stored it when there is one), for
 * `seconds` after a fifth of that unmeasured. P2: sends at a quarter of P1's rate, open loop, after
 * a lead-in as Stoa's has (lib/load.ts); the time from a send until the last of the 50 members has it.
 */
export type Transport = 'tcp' | 'bosh';

export interface PeerOutcome {
  transport: Transport;
  archive: boolean;
  idleRssMb: number | null;
  p1: { rate: number; delivered: number; cpuMsPerMessage: number | null; generatorMsPerMessage: number | null; maxRssMb: number | null };
  p2: { rate: number; sent: number; incomplete: number; p50: number; p90: number; p99: number; max: number };
}

const MEMBERS = 50;
const SENDERS = 4;
const IN_FLIGHT = 32;
const ROOM_NAME = 'bench';

export async function ejabberdRun(transport: Transport, archive: boolean, seconds: number, log: (line: string) => void, p2Rate?: number): Promise<PeerOutcome> {
  const server = new Ejabberd(archive);
  await server.start();
  const room = `${ROOM_NAME}@${server.muc}`;
  const pool = transport === 'bosh' ? new Pool(`http://127.0.0.1:${server.httpPort}`, { connections: MEMBERS * 2 + 8, pipelining: 1, headersTimeout: 0, bodyTimeout: 0 }) : null;
  let handler: (member: number, body: string, from: string) => void = () => undefined;
  const clients: RoomClient[] = [];
  try {
    await sleep(1000);
    const idle = server.usage();
    for (let i = 0; i < MEMBERS; i++) {
      const onBody = (body: string, from: string) => handler(i, body, from);
      clients.push(pool ? await boshClient(pool, server.domain, room, `m${i}`, onBody) : await tcpClient(server.tcpPort, server.domain, room, `m${i}`, onBody));
    }
    log(`ejabberd ${transport}${archive ? ' + archive' : ''}: ${MEMBERS} members in the room`);

    // P1: closed loop, each sender keeps its share of the messages in flight.
    let measuring = false;
    let done = 0;
    let delivered = 0;
    let running = true;
    const counters = Array.from({ length: SENDERS }, () => 0);
    handler = (member, body, from) => {
      if (!body.startsWith('p1 ')) return;
      if (measuring) delivered++;
      const s = Number(body.split(' ')[1]);
      // The sender's own copy is its acknowledgement: the room has taken the message.
      if (member === s && from.endsWith(`/m${s}`)) {
        if (measuring) done++;
        if (running) clients[s].say(`p1 ${s} ${counters[s]++}`);
      }
    };
    for (let s = 0; s < SENDERS; s++) for (let k = 0; k < IN_FLIGHT / SENDERS; k++) clients[s].say(`p1 ${s} ${counters[s]++}`);
    await sleep(Math.max(1000, (seconds * 1000) / 5));
    const cpu0 = server.usage()?.cpuMs ?? null;
    const generator0 = process.cpuUsage();
    measuring = true;
    let maxRss = 0;
    const t0 = performance.now();
    const sampler = setInterval(() => (maxRss = Math.max(maxRss, server.usage()?.rssMb ?? 0)), 500);
    await sleep(seconds * 1000);
    measuring = false;
    const elapsed = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    const cpu1 = server.usage()?.cpuMs ?? null;
    const generator = process.cpuUsage(generator0);
    running = false;
    await sleep(1000);
    const rate = done / elapsed;
    log(`ejabberd ${transport}${archive ? ' + archive' : ''} P1: ${Math.round(rate)} messages/s`);

    // P2: open loop at a quarter of that rate (or the rate asked for).
    const p2rate = p2Rate ?? Math.max(1, rate / 4);
    const sent = new Map<number, { t0: number; got: number }>();
    const lat = new Latencies();
    handler = (_member, body) => {
      const m = /^p2 (\d+)$/.exec(body);
      if (!m) return;
      const s = sent.get(Number(m[1]));
      if (s && ++s.got === MEMBERS) lat.add(performance.now() - s.t0);
    };
    await openLoop(p2rate, leadInSeconds(seconds), (k) => clients[k % SENDERS].say(`p2 lead-in ${k}`));
    const n = await openLoop(p2rate, seconds, (k) => {
      sent.set(k, { t0: performance.now(), got: 0 });
      clients[k % SENDERS].say(`p2 ${k}`);
    });
    // Until every message has reached every member (a loaded server with its archive can be
    // seconds behind), or for 30 s at the most: what is still missing then is counted.
    const waitUntil = performance.now() + 30_000;
    while (lat.count < n && performance.now() < waitUntil) await sleep(50);
    const s = lat.summary();
    return {
      transport,
      archive,
      idleRssMb: idle ? Math.round(idle.rssMb) : null,
      p1: { rate: Math.round(rate), delivered, cpuMsPerMessage: cpu0 !== null && cpu1 !== null && done > 0 ? Math.round(((cpu1 - cpu0) / done) * 1000) / 1000 : null, generatorMsPerMessage: done > 0 ? Math.round(((generator.user + generator.system) / 1000 / done) * 1000) / 1000 : null, maxRssMb: maxRss ? Math.round(maxRss) : null },
      p2: { rate: Math.round(p2rate), sent: n, incomplete: n - s.count, p50: s.p50, p90: s.p90, p99: s.p99, max: s.max },
    };
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await pool?.close();
    await server.stop();
  }
}
