import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import * as hdr from 'hdr-histogram-js';
import { basicAuth, form, type Creds } from './api.js';
import type { CpuReading, Target } from './target.js';

/** Throughput and latency of one measured run. */
export interface Measured {
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  errors: number;
  requests: number;
}

export interface LoadSpec {
  url: string;
  creds?: Creds;
  method: 'GET' | 'POST';
  path: string;
  params?: Record<string, unknown>;
  connections: number;
  seconds: number;
  /** A Host header other than the URL's (an organization of a cluster, through its proxy). */
  host?: string;
  /** Called after the warm-up, as the measured run starts (the server's CPU time is read there). */
  onStart?: () => Promise<void> | void;
}

/** Drives one request shape as hard as `connections` keep-alive clients can (autocannon). */
export async function hammer(spec: LoadSpec): Promise<Measured> {
  const headers: Record<string, string> = {};
  if (spec.creds) headers.authorization = basicAuth(spec.creds);
  if (spec.host) headers.host = spec.host;
  let path = spec.path;
  let body: string | undefined;
  if (spec.method === 'GET') {
    if (spec.params) path += `?${form(spec.params)}`;
  } else {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = form(spec.params ?? {});
  }
  // An unmeasured warm-up first (a fifth of the run, at least a second): without it the first
  // scenario of a run pays for JIT compilation that later ones, and the warm baseline, do not.
  // It is a run of its own, so that the server's CPU time can be read between the two.
  const options: autocannon.Options = { url: spec.url + path, method: spec.method, headers, body, connections: spec.connections, duration: spec.seconds };
  await autocannon({ ...options, duration: Math.max(1, Math.round(spec.seconds / 5)) });
  await spec.onStart?.();
  const result = await autocannon(options);
  return {
    rps: result.requests.total / spec.seconds,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    requests: result.requests.total,
  };
}

/** Latencies recorded one by one (microsecond resolution). */
export class Latencies {
  private readonly h = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: 3 });

  /** A latency in milliseconds. */
  add(ms: number): void {
    this.h.recordValue(Math.max(1, Math.round(ms * 1000)));
  }

  get count(): number {
    return this.h.totalCount;
  }

  summary(): { count: number; mean: number; p50: number; p90: number; p99: number; max: number } {
    const ms = (us: number) => Math.round(us) / 1000;
    return { count: this.h.totalCount, mean: ms(this.h.mean), p50: ms(this.h.getValueAtPercentile(50)), p90: ms(this.h.getValueAtPercentile(90)), p99: ms(this.h.getValueAtPercentile(99)), max: ms(this.h.maxValue) };
  }
}

/**
 * The server's own CPU time over the measured part of a run, in ms: all threads, the main thread,
 * and the others (the shard threads, and V8's and libuv's helpers). Unlike throughput, this
 * hardly depends on what else runs on the machine, so it is what comparisons of cost rest on.
 */
export interface CpuSpent {
  totalMs: number;
  mainMs: number;
  otherMs: number;
  /**
   * The busiest of the other threads: the shard thread of a one-shard server (the rest of
   * otherMs is V8's collector and compiler threads and libuv's pool, where LMDB commits).
   */
  busiestOtherMs: number;
  seconds: number;
}

/** A server's CPU time between two readings of `Target.cpuTime`; null if either is missing. */
export function cpuBetween(from: CpuReading | null, to: CpuReading | null, seconds: number): CpuSpent | null {
  if (!from || !to) return null;
  return { totalMs: to.totalMs - from.totalMs, mainMs: to.mainMs - from.mainMs, otherMs: to.totalMs - to.mainMs - (from.totalMs - from.mainMs), busiestOtherMs: busiestOther(from.threadMs, to.threadMs), seconds };
}

/** The most CPU time any thread but the main one spent between two readings. */
function busiestOther(from: Map<number, number>, to: Map<number, number>): number {
  let most = 0;
  for (const [tid, ms] of to) most = Math.max(most, ms - (from.get(tid) ?? 0));
  return most;
}

/**
 * Samples the target's memory and CPU while `fn` runs. `fn` calls `mark` when its measured part
 * starts (after a warm-up); CPU time is counted from there (from the start if it never does).
 */
export async function sampled<T>(target: Target, fn: (mark: () => Promise<void>) => Promise<T>): Promise<{ value: T; maxRssMb: number | null; avgCpu: number | null; cpu: CpuSpent | null }> {
  const rss: number[] = [];
  const cpu: number[] = [];
  let from = await target.cpuTime();
  let t0 = performance.now();
  const mark = async () => {
    from = await target.cpuTime();
    t0 = performance.now();
  };
  const sample = async () => {
    const u = await target.usage().catch(() => null);
    if (u) {
      rss.push(u.rssMb);
      cpu.push(u.cpu);
    }
  };
  await sample();
  const timer = setInterval(() => void sample(), 500);
  try {
    const value = await fn(mark);
    const to = await target.cpuTime();
    const seconds = (performance.now() - t0) / 1000;
    await sample();
    const spent = cpuBetween(from, to, seconds);
    return { value, maxRssMb: rss.length ? Math.round(Math.max(...rss)) : null, avgCpu: cpu.length ? Math.round(cpu.reduce((a, b) => a + b, 0) / cpu.length) : null, cpu: spent };
  } finally {
    clearInterval(timer);
  }
}

/** The bare Koa app (baseline.ts) in a child process, as the server under test runs in its own. */
export async function startBaseline(): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('../baseline.js', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      const m = /listening on (\d+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`baseline exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An open loop: `send(k)` for k = 0, 1, ... on schedule, `rate` a second for `seconds`, whether
 * or not earlier sends have been answered. Resolves with the number sent.
 */
export async function openLoop(rate: number, seconds: number, send: (k: number) => void): Promise<number> {
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    const due = Math.floor(((performance.now() - start) / 1000) * rate);
    while (n < due) send(n++);
    await sleep(2);
  }
  return n;
}

/**
 * P2's lead-in, for every server the bench measures: a fifth of the run's length at the same
 * rate, sent and delivered as the measured sends are but not timed. Without it the first second
 * of Stoa's P2 (50 queues just registered, the garbage of the run before being collected) had
 * a p50 of 27 ms against 7 ms after it, and set P2's p99 on a quiet machine; ejabberd's members
 * had been in the room since its P1.
 */
export const leadInSeconds = (seconds: number): number => seconds / 5;
