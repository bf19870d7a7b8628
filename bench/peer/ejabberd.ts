import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processCpu } from '../lib/target.js';

/**
 * ejabberd (Debian's package) started by the bench: its own configuration, spool and log in a
 * temporary directory, on 127.0.0.1 and free ports, run with `erl` as ejabberdctl runs it (no
 * system service, no other node touched). Anonymous SASL logins (authentication happens once
 * per connection, never on the message path); one multi-user chat service, whose rooms keep
 * their messages in ejabberd's archive (mod_mam) only when `archive` is set.
 */
export const EJABBERD_LIBS = '/usr/lib/x86_64-linux-gnu';
const ERL = '/usr/bin/erl';

export function ejabberdInstalled(): boolean {
  return existsSync(ERL) && existsSync('/usr/sbin/ejabberdctl');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export class Ejabberd {
  private child: ChildProcess | null = null;
  readonly dir = mkdtempSync(join(tmpdir(), 'stoa-bench-ejabberd-'));
  tcpPort = 0;
  httpPort = 0;
  readonly domain = 'localhost';
  readonly muc = 'conference.localhost';

  constructor(readonly archive: boolean) {}

  private config(): string {
    return `loglevel: warning
hosts:
  - ${this.domain}
listen:
  -
    port: ${this.tcpPort}
    ip: "127.0.0.1"
    module: ejabberd_c2s
    max_stanza_size: 262144
  -
    port: ${this.httpPort}
    ip: "127.0.0.1"
    module: ejabberd_http
    request_handlers:
      /bosh: mod_bosh
auth_method: anonymous
anonymous_protocol: sasl_anon
access_rules:
  c2s:
    allow: all
  local:
    allow: all
shaper_rules:
  c2s_shaper: none
modules:
  mod_bosh: {}
  mod_disco: {}
  mod_muc:
    host: "${this.muc}"
    access: all
    access_create: all
    max_users: 100000
    max_user_conferences: 1000
    history_size: 0
    default_room_options:
      mam: ${this.archive}
      persistent: ${this.archive}
${this.archive ? '  mod_mam:\n    default: always\n' : ''}`;
  }

  /** Starts it and resolves once both ports listen. */
  async start(): Promise<void> {
    this.tcpPort = await freePort();
    this.httpPort = await freePort();
    const configPath = join(this.dir, 'ejabberd.yml');
    writeFileSync(configPath, this.config());
    const node = `stoabench${process.pid}${Math.floor(Math.random() * 1e6)}`;
    const env = { ...process.env, EJABBERD_CONFIG_PATH: configPath, EJABBERD_LOG_PATH: join(this.dir, 'ejabberd.log'), ERL_LIBS: EJABBERD_LIBS, ERL_CRASH_DUMP: join(this.dir, 'erl_crash.dump') };
    // -sname needs epmd (started by erl if none runs); the node name is unique to this run.
    this.child = spawn(ERL, ['-sname', node, '-noinput', '+K', 'true', '+P', '250000', '-mnesia', 'dir', `"${join(this.dir, 'spool')}"`, '-s', 'ejabberd'], { env, cwd: this.dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    this.child.stderr!.on('data', (c) => (err += c));
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (this.child.exitCode !== null) throw new Error(`ejabberd exited (${this.child.exitCode}): ${err.slice(-500)}`);
      if ((await canConnect(this.tcpPort)) && (await canConnect(this.httpPort))) return;
      if (Date.now() > deadline) throw new Error(`ejabberd did not listen within 60 s: ${err.slice(-500)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Resident memory (MB) and CPU time (ms, all threads) of the Erlang VM. */
  usage(): { rssMb: number; cpuMs: number } | null {
    const pid = this.child?.pid;
    if (!pid) return null;
    try {
      const status = readStatus(pid);
      return { rssMb: status, cpuMs: processCpu(pid)?.totalMs ?? 0 };
    } catch {
      return null;
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function readStatus(pid: number): number {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(text)?.[1] ?? 0) / 1024;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
