import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { projectRoot } from '../../src/lib/config.js';
import { startTestServer } from '../helpers/server.js';

/**
 * The README's zulip-js example, run as written: the block is taken from README.md, saved as the
 * ES module it says it is, and run by node next to a data/zuliprc of a test server.
 */
t.test('README: the zulip-js example runs as written', async (t) => {
  const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
  const block = /```js\n([\s\S]*?import zulipInit from 'zulip-js';[\s\S]*?)```/.exec(readme)?.[1];
  t.ok(block, 'the README has the example');
  const ts = await startTestServer(t);
  const dir = mkdtempSync(join(tmpdir(), 'stoa-readme-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'data'));
  copyFileSync(join(ts.dataDir, 'zuliprc'), join(dir, 'data', 'zuliprc'));
  // `npm install zulip-js` in that folder, as the example says: here, the project's own copy.
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'example.mjs'), block!);
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(process.execPath, ['example.mjs'], { cwd: dir, timeout: 60_000 }, (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr })),
  );
  t.equal(code, 0, `node example.mjs exits 0 ${stderr}`);
  t.match(stdout, /result: 'success'/, 'and prints a successful answer');
  t.match(stdout, /email: 'owner@stoa\.invalid'/, 'the owner\'s profile');
});
