import { execFile } from 'node:child_process';
import t from 'tap';

/**
 * lib/start-tiers.ts: what runs while the tiers are held stays in the interpreter; what runs
 * after `release` is compiled by Sparkplug and TurboFan as before; an operator's own tier flags
 * are left alone. V8's traces say what it compiled: lines naming a function, whenever their
 * buffer is flushed, so each function here runs only on one side of the release.
 */

const MODULE = new URL('../../src/lib/start-tiers.js', import.meta.url).href;

const SCRIPT = `
const { holdCompilingTiers } = await import(${JSON.stringify(MODULE)});
const release = holdCompilingTiers();
const spin = async (fn) => { for (let k = 0; k < 40; k++) { for (let i = 0; i < 2000; i++) fn(1000); await new Promise((r) => setTimeout(r, 5)); } };
function hotWhileHeld(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * 7) % 1000003; return s; }
function hotAfterRelease(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * 7) % 1000003; return s; }
await spin(hotWhileHeld);
release();
release();
await spin(hotAfterRelease);
console.log('sums', hotWhileHeld(1000), hotAfterRelease(1000));
`;

function run(flags: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [...flags, '--trace-opt', '--trace-baseline-batch-compilation', '--input-type=module', '-e', SCRIPT], { maxBuffer: 64 << 20 }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    ),
  );
}

const turbofanned = (out: string, name: string) => new RegExp(`completed optimizing .*<JSFunction ${name} `).test(out);
const baselined = (out: string, name: string) => new RegExp(`Enqueued SFI ${name} `).test(out);

t.test('held for the start, every tier after the release', async (t) => {
  const out = await run([]);
  t.match(out, /sums (\d+) \1\n/, 'the same results on both sides');
  t.notOk(turbofanned(out, 'hotWhileHeld'), 'no TurboFan while held');
  t.notOk(baselined(out, 'hotWhileHeld'), 'no Sparkplug while held');
  t.ok(turbofanned(out, 'hotAfterRelease'), 'TurboFan after the release');
  t.ok(baselined(out, 'hotAfterRelease'), 'Sparkplug after the release');
});

t.test("an operator's own tier flags are left as given", async (t) => {
  const noOpt = await run(['--no-opt']);
  t.notOk(turbofanned(noOpt, 'hotAfterRelease'), '--no-opt: no TurboFan after the release either');
  t.ok(baselined(noOpt, 'hotWhileHeld'), '--no-opt: Sparkplug was never held');
  const noSparkplug = await run(['--no-sparkplug']);
  t.notOk(baselined(noSparkplug, 'hotAfterRelease'), '--no-sparkplug: no Sparkplug after the release');
  t.ok(turbofanned(noSparkplug, 'hotWhileHeld'), '--no-sparkplug: TurboFan was never held');
  const jitless = await run(['--jitless']);
  t.match(jitless, /sums (\d+) \1\n/, '--jitless: runs, in the interpreter');
  t.notOk(turbofanned(jitless, 'hotAfterRelease') || baselined(jitless, 'hotAfterRelease'), '--jitless: nothing compiled');
});
