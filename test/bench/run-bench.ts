import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RUN = fileURLToPath(new URL('../../bench/run.js', import.meta.url));

/** Runs `npm run bench` with `args`, its report going to a temporary folder (`out`) removed at teardown. */
export async function runBench(t: { teardown(fn: () => unknown): void }, args: string[]): Promise<{ code: unknown; stdout: string; stderr: string; out: string }> {
  const out = mkdtempSync(join(tmpdir(), 'stoa-bench-report-'));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  const child = spawn(process.execPath, [RUN, ...args, '--out', out], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  return { code, stdout, stderr, out };
}
