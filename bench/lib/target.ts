import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pidusage from 'pidusage';
import { Api, type Creds } from './api.js';

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));
const CLI = fileURLToPath(new URL('../../src/cli/stoa.js', import.meta.url));
const LISTENING = /^Stoa listening on (http:\/\/\S+) /m;
const PACKAGE = fileURLToPath(new URL('../../../package.json', import.meta.url));

/**
 * What `npm start` sets in the server's environment beyond the caller's own: the leading
 * `NAME=${NAME:-value}` assignments of package.json's start script (MALLOC_ARENA_MAX, which the
 * systemd unit sets too). The bench's server starts with them and with nothing a self-hoster's
 * start lacks (test/bench/start-env.test.ts holds the script, the unit and this together).
 */
export function startEnvironment(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const script = (JSON.parse(readFileSync(PACKAGE, 'utf8')) as { scripts: { start: string } }).scripts.start;
  const set: Record<string, string> = {};
  for (const m of script.matchAll(/(?:^|\s)([A-Z_][A-Z0-9_]*)=\$\{\1:-([^}]*)\}(?=\s)/g)) if (env[m[1]] === undefined) set[m[1]] = m[2];
  return set;
}

/** What the bench knows of the server it drives. */
export interface Seeded {
  users: (Creds & { id: number })[];
  channels: { id: number; name: string; subscribers: number; members: number[] }[];
  topics: string[];
  messages: number;
}

export interface SeedSpec {
  users: number;
  channels: number;
  topics: number;
  messages: number;
}

/** A server process the bench can ask about: its resources, when it is its own. */
export interface Target {
  url: string;
  owner: Creds;
  seeded: Seeded;
  /** Resident memory and CPU (percent of one core since the last sample); null for a remote server. */
  usage(): Promise<{ rssMb: number; cpu: number } | null>;
  /** CPU time the server has used since it started, in ms (all threads, and its main thread); null for a remote server. */
  cpuTime(): Promise<CpuReading | null>;
  close(): Promise<void>;
}

/** Stoa from this tree, on a temporary data directory, run as `npm start` runs it (its environment included: `startEnvironment`). */
export class OwnServer implements Target {
  private child: ChildProcess | null = null;
  url = '';
  owner: Creds & { password?: string } = { email: '', apiKey: '' };
  seeded: Seeded = { users: [], channels: [], topics: [], messages: 0 };

  private constructor(
    readonly dataDir: string,
    private readonly env: Record<string, string>,
    private readonly nodeArgs: string[],
  ) {}

  /**
   * A first start creates the root realm and its owner; `stoa seed` then fills it with the
   * server stopped (the CLI writes the store directly, far faster than over HTTP).
   */
  static async create(spec: SeedSpec, env: Record<string, string> = {}, log: (line: string) => void = () => {}, nodeArgs: string[] = []): Promise<OwnServer> {
    const server = new OwnServer(mkdtempSync(join(tmpdir(), 'stoa-bench-')), env, nodeArgs);
    const out = await server.start();
    server.owner = { email: /owner email:\s+(\S+)/.exec(out)![1], apiKey: /owner API key:\s+(\S+)/.exec(out)![1], password: /owner password:\s+(\S+)/.exec(out)?.[1] };
    await server.stop();
    log(`seeding ${spec.users} users, ${spec.channels} channels, ${spec.messages} messages`);
    const seedFile = join(server.dataDir, 'bench-seed.json');
    await run(process.execPath, [CLI, 'seed', '--realm', '', '--users', String(spec.users), '--channels', String(spec.channels), '--topics', String(spec.topics), '--messages', String(spec.messages), '--out', seedFile], server.childEnv());
    server.seeded = JSON.parse(readFileSync(seedFile, 'utf8'));
    await server.start();
    return server;
  }

  private childEnv(): NodeJS.ProcessEnv {
    // No access lines: this process keeps the server's stdout, and a line per request would pile up here.
    return { ...process.env, ...startEnvironment(), STOA_DATA_DIR: this.dataDir, STOA_PORT: '0', STOA_LOG_LEVEL: 'warn', STOA_ACCESS_LOG: '0', ...this.env };
  }

  /** Starts the server; resolves with what it printed once it listens. */
  async start(): Promise<string> {
    const child = spawn(process.execPath, [...this.nodeArgs, MAIN], { env: this.childEnv(), stdio: ['ignore', 'pipe', 'inherit'] });
    this.child = child;
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk) => {
        out += chunk;
        if (LISTENING.test(out)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening: ${out}`)));
    });
    this.url = LISTENING.exec(out)![1];
    return out;
  }

  /** Stops and starts again; returns the milliseconds from spawn to listening. */
  async restart(): Promise<number> {
    await this.stop();
    const t0 = performance.now();
    await this.start();
    return performance.now() - t0;
  }

  async usage(): Promise<{ rssMb: number; cpu: number } | null> {
    if (!this.child?.pid) return null;
    const stat = await pidusage(this.child.pid);
    return { rssMb: stat.memory / 1048576, cpu: stat.cpu };
  }

  async cpuTime(): Promise<CpuReading | null> {
    return this.child?.pid ? processCpu(this.child.pid) : null;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    this.child = null;
    pidusage.clear();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** One reading of a server's CPU time: the whole process, its main thread, each other thread. */
export interface CpuReading {
  totalMs: number;
  mainMs: number;
  threadMs: Map<number, number>;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

/**
 * utime + stime of a process, of its main thread and of each of its other threads by id, from
 * /proc (Linux); null elsewhere.
 */
export function processCpu(pid: number): CpuReading | null {
  const ticks = (file: string) => {
    // The fields after the parenthesised command name: utime and stime are the 12th and 13th.
    const stat = readFileSync(file, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  };
  try {
    const threadMs = new Map<number, number>();
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      if (Number(tid) === pid) continue;
      try {
        threadMs.set(Number(tid), ticks(`/proc/${pid}/task/${tid}/stat`));
      } catch {
        // A thread that ended between the listing and the read.
      }
    }
    return { totalMs: ticks(`/proc/${pid}/stat`), mainMs: ticks(`/proc/${pid}/task/${pid}/stat`), threadMs };
  } catch {
    return null;
  }
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.slice(0, 2).join(' ')} exited with ${code}`))));
  });
}

/** A zuliprc's [api] section. */
export function readZuliprc(path: string): Creds & { site: string } {
  const text = readFileSync(path, 'utf8');
  const field = (name: string) => new RegExp(`^\\s*${name}\\s*=\\s*(.*?)\\s*$`, 'm').exec(text)?.[1] ?? '';
  return { email: field('email'), apiKey: field('key'), site: field('site') };
}

/**
 * Any Zulip-API server that is already running: its data is seeded over the API (users created
 * by the zuliprc's administrator, then logged in with POST /fetch_api_key), which is slower
 * than `stoa seed`, so keep --messages modest. Its memory and CPU are not ours to see.
 */
export class RemoteServer implements Target {
  seeded: Seeded = { users: [], channels: [], topics: [], messages: 0 };

  constructor(
    readonly url: string,
    readonly owner: Creds,
  ) {}

  async seed(spec: SeedSpec, log: (line: string) => void): Promise<void> {
    const api = new Api(this.url, 16);
    const password = `bench-${Math.random().toString(36).slice(2)}-pw`;
    const users: Seeded['users'] = [];
    log(`creating ${spec.users} users over the API`);
    for (let i = 0; i < spec.users; i++) {
      const email = `bench${i}@bench.invalid`;
      const created = await api.call(this.owner, 'POST', '/users', { email, password, full_name: `Bench User ${i}` });
      if (created.status !== 200 && created.body?.code !== 'BAD_REQUEST') throw new Error(`POST /users: ${JSON.stringify(created.body)}`);
      const key = await api.ok(null, 'POST', '/fetch_api_key', { username: email, password });
      users.push({ id: key.user_id, email, apiKey: key.api_key });
    }
    const channels: Seeded['channels'] = [];
    for (let c = 0; c < spec.channels; c++) {
      const name = `bench ${c}`;
      const members = c === 0 ? users.slice(0, 50) : users.filter((_, i) => i % 5 === c % 5);
      await api.ok(this.owner, 'POST', '/users/me/subscriptions', { subscriptions: [{ name }], principals: members.map((u) => u.id) });
      const id = (await api.ok(this.owner, 'GET', '/get_stream_id', { stream: name })).stream_id;
      channels.push({ id, name, subscribers: members.length, members: members.map((u) => u.id) });
    }
    const topics = Array.from({ length: spec.topics }, (_, i) => `topic ${i}`);
    log(`sending ${spec.messages} messages over the API`);
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < spec.messages) {
          const n = next++;
          const channel = channels[n % channels.length];
          const sender = users[n % Math.min(users.length, channel.subscribers || 1)];
          await api.ok(sender, 'POST', '/messages', { type: 'stream', to: channel.id, topic: topics[Math.floor(n / channels.length) % topics.length], content: `seed message ${n}` });
        }
      }),
    );
    await api.close();
    this.seeded = { users, channels, topics, messages: spec.messages };
  }

  async usage(): Promise<null> {
    return null;
  }

  async cpuTime(): Promise<null> {
    return null;
  }

  async close(): Promise<void> {}
}
