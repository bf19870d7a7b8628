import type { Measured } from '../lib/load.js';
import { OwnServer, type SeedSpec } from '../lib/target.js';
import { fanoutLatency, sendWithPollers, type Env, type Sizes } from '../scenarios.js';
import { ejabberdInstalled } from './ejabberd.js';
import { ejabberdRun, type PeerOutcome } from './scenarios.js';

/**
 * `--peer ejabberd`: Stoa's P1 and P2 and the same shape on ejabberd, one server at a time, in
 * one run, printed side by side (bench/README.md says what differs between the two).
 */
export interface PeerReport {
  stoa: { p1Rate: number; p1MsCpuPerSend: number | null; p1GeneratorMsPerSend: number | null; p2: Record<string, number>; p2AtBoshRate: Record<string, number> | null; idleRssMb: number | null };
  ejabberd: PeerOutcome[] | null;
  skipped?: string;
}

export async function peerComparison(sizes: Sizes, baseline: Measured, serverEnv: Record<string, string>, seed: SeedSpec, log: (line: string) => void): Promise<{ report: PeerReport; table: string }> {
  const ejabberd: PeerOutcome[] = [];
  const installed = ejabberdInstalled();
  if (!installed) log('ejabberd is not installed here (/usr/sbin/ejabberdctl, /usr/bin/erl): its columns are skipped');
  else {
    for (const [transport, archive] of [['tcp', false], ['bosh', false], ['tcp', true], ['bosh', true]] as const) {
      ejabberd.push(await ejabberdRun(transport, archive, sizes.seconds, log));
    }
  }
  const server = await OwnServer.create(seed, serverEnv, log);
  try {
    const env: Env = { target: server, sizes, baseline, log };
    const idle = await server.usage();
    const p1 = await sendWithPollers(env);
    const p2 = await fanoutLatency(env, p1.measured.rps);
    const bosh = ejabberd.find((e) => e.transport === 'bosh' && !e.archive);
    // At ejabberd's long-poll rate too, to compare latencies at the same load.
    const p2Bosh = bosh ? await fanoutLatency(env, bosh.p2.rate * 4) : null;
    const pick = (o: typeof p2) => ({ rate: o.details.rate as number, p50: o.details.p50 as number, p99: o.details.p99 as number, incomplete: o.details.incomplete as number });
    const report: PeerReport = {
      stoa: { p1Rate: Math.round(p1.measured.rps), p1MsCpuPerSend: (p1.details.msPerSend as number | undefined) ?? null, p1GeneratorMsPerSend: (p1.details.generatorMsPerSend as number | null | undefined) ?? null, p2: pick(p2), p2AtBoshRate: p2Bosh ? pick(p2Bosh) : null, idleRssMb: idle ? Math.round(idle.rssMb) : null },
      ejabberd: installed ? ejabberd : null,
      ...(installed ? {} : { skipped: 'ejabberd not installed' }),
    };
    return { report, table: table(report) };
  } finally {
    await server.close();
  }
}

function table(r: PeerReport): string {
  const cols: [string, string[]][] = [
    [
      'Stoa (HTTP long-poll, every message committed)',
      [
        `${r.stoa.p1Rate}`,
        r.stoa.p1MsCpuPerSend !== null ? `${r.stoa.p1MsCpuPerSend} ms` : 'n/a',
        r.stoa.p1GeneratorMsPerSend !== null ? `${r.stoa.p1GeneratorMsPerSend} ms` : 'n/a',
        `${r.stoa.p2.p50} / ${r.stoa.p2.p99} ms at ${r.stoa.p2.rate}/s${r.stoa.p2AtBoshRate ? `; ${r.stoa.p2AtBoshRate.p50} / ${r.stoa.p2AtBoshRate.p99} ms at ${r.stoa.p2AtBoshRate.rate}/s` : ''}`,
        r.stoa.idleRssMb !== null ? `${r.stoa.idleRssMb} MB` : 'n/a',
      ],
    ],
  ];
  for (const e of r.ejabberd ?? []) {
    cols.push([
      `ejabberd ${e.transport === 'tcp' ? 'TCP push' : 'BOSH long-poll'}${e.archive ? ' + archive' : ''}`,
      [`${e.p1.rate}`, e.p1.cpuMsPerMessage !== null ? `${e.p1.cpuMsPerMessage} ms` : 'n/a', e.p1.generatorMsPerMessage !== null ? `${e.p1.generatorMsPerMessage} ms` : 'n/a', `${e.p2.p50} / ${e.p2.p99} ms at ${e.p2.rate}/s${e.p2.incomplete ? ` (${e.p2.incomplete} incomplete)` : ''}`, e.idleRssMb !== null ? `${e.idleRssMb} MB` : 'n/a'],
    ]);
  }
  const rows = ['', 'P1 messages/s (50 deliveries each)', "server CPU per message (its own threads)", "the bench's clients' CPU per message (same two cores)", 'P2 send -> last of 50, p50 / p99', 'idle RSS'];
  const lines = rows.map((label, i) => [label, ...cols.map(([head, values]) => (i === 0 ? head : values[i - 1]))]);
  const widths = lines[0].map((_, c) => Math.max(...lines.map((l) => l[c].length)));
  const fmt = (l: string[]) => l.map((cell, c) => cell.padEnd(widths[c])).join(' | ');
  const out = [fmt(lines[0]), widths.map((w) => '-'.repeat(w)).join('-|-'), ...lines.slice(1).map(fmt)];
  const tcp = r.ejabberd?.find((e) => e.transport === 'tcp' && !e.archive);
  if (tcp && tcp.p1.rate > 0) out.push(`P1: Stoa x${Math.round((r.stoa.p1Rate / tcp.p1.rate) * 100) / 100} of ejabberd's TCP push (target: x2)`);
  const bosh = r.ejabberd?.find((e) => e.transport === 'bosh' && !e.archive);
  if (bosh && r.stoa.p2AtBoshRate) out.push(`P2 at ejabberd's long-poll rate (${bosh.p2.rate}/s): Stoa p99 ${r.stoa.p2AtBoshRate.p99} ms, ejabberd BOSH p99 ${bosh.p2.p99} ms (target: below)`);
  if (r.skipped) out.push(`(${r.skipped}: its columns are missing)`);
  return out.join('\n');
}
