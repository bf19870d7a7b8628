import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { spawnServer } from '../startup/spawn.js';
import { CLI, cleanEnv, field, stoa, tempDir } from './run.js';

/**
 * `stoa backup` against a server that deletes attachments while it runs: every backup must hold
 * the file of every attachment its stores record (`stoa check` verifies each one). The stores
 * were copied first and the files after, so a file deleted in between was missing from the
 * backup while the check called it ok. And a backup that is killed leaves nothing that passes
 * for a backup.
 */
t.test('backups while attachments are deleted', async (t) => {
  t.setTimeout(300_000);
  const dataDir = tempDir(t, 'stoa-backup-race-');
  const backups = tempDir(t, 'stoa-backups-race-');
  const server = await spawnServer(t, { STOA_PORT: '0', STOA_DATA_DIR: dataDir, STOA_SHARDS: '1' });
  const owner = { email: field(server.stdout(), 'owner email')!, apiKey: field(server.stdout(), 'owner API key')! };
  const auth = `Basic ${Buffer.from(`${owner.email}:${owner.apiKey}`).toString('base64')}`;
  const api = (method: string, path: string, body?: FormData) => fetch(`http://127.0.0.1:${server.port}/api/v1${path}`, { method, headers: { authorization: auth, host: `localhost:${server.port}` }, body });

  const files = 300;
  for (let i = 0; i < files; i++) {
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(16 * 1024, i % 251)]), `file-${i}.bin`);
    const res = await api('POST', '/user_uploads', form);
    if (res.status !== 200) throw new Error(`upload ${i}: ${res.status} ${await res.text()}`);
  }
  const ids = ((await (await api('GET', '/attachments')).json()) as { attachments: { id: number }[] }).attachments.map((a) => a.id);
  t.equal(ids.length, files, `${files} attachments`);

  t.test('a backup killed with SIGKILL leaves a copy that never checks out, and the next backup removes it', async (t) => {
    const dest = join(backups, 'killed');
    const child = spawn(process.execPath, [CLI, 'backup', dest], { env: cleanEnv({ STOA_DATA_DIR: dataDir }), stdio: 'ignore' });
    const partial = `${dest}.partial-${child.pid}`;
    while (!existsSync(partial) && child.exitCode === null) await new Promise((r) => setTimeout(r, 2));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    t.ok(existsSync(partial), 'the interrupted copy is there');
    const check = await stoa(dataDir, ['check', partial]);
    t.equal(check.code, 1, 'stoa check does not call it ok');
    t.match(check.stderr, /interrupted backup/, `and says what it is: ${check.stderr.trim()}`);
    const again = await stoa(dataDir, ['backup', dest]);
    t.equal(again.code, 0, `the next backup to the same place succeeds${again.stderr ? `: ${again.stderr}` : ''}`);
    t.notOk(existsSync(partial), 'and removed the abandoned copy');
  });

  t.test('a backup stopped with SIGTERM removes its copy', async (t) => {
    const dest = join(backups, 'stopped');
    const child = spawn(process.execPath, [CLI, 'backup', dest], { env: cleanEnv({ STOA_DATA_DIR: dataDir }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (c) => (stderr += c));
    const partial = `${dest}.partial-${child.pid}`;
    while (!existsSync(partial) && child.exitCode === null) await new Promise((r) => setTimeout(r, 2));
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    if (code === 0) return t.pass('the backup finished before the signal (nothing to test this time)');
    t.equal(code, 143, 'exit status 143');
    t.notOk(existsSync(partial), 'the copy is gone');
    t.notOk(existsSync(dest), 'and no backup is there');
    t.equal(stderr.trim().split('\n').length, 1, `one line: ${stderr.trim()}`);
  });

  t.test('backups taken while attachments are deleted hold every file their stores record', async (t) => {
    let deleting = true;
    let deleted = 0;
    const deleter = (async () => {
      // A third is kept for the last test.
      for (const id of ids.slice(0, (ids.length * 2) / 3)) {
        if (!deleting) break;
        const res = await api('DELETE', `/attachments/${id}`);
        if (res.status !== 200) throw new Error(`delete ${id}: ${res.status}`);
        deleted++;
        // Spread over the backups: some while each runs, some left for the next.
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    for (let i = 0; i < 5 && deleted < (ids.length * 2) / 3; i++) {
      const dest = join(backups, `race-${i}`);
      const before = deleted;
      const made = await stoa(dataDir, ['backup', dest]);
      t.equal(made.code, 0, `backup ${i} succeeds${made.stderr ? `: ${made.stderr}` : ''}`);
      t.equal(made.stderr, '', 'and prints no error');
      t.ok(deleted > before, `attachments were deleted while it ran (${deleted - before})`);
      const check = await stoa(dataDir, ['check', dest]);
      t.equal(check.code, 0, `stoa check passes it: every attachment it records has its file${check.stderr ? `: ${check.stderr}` : ''}`);
    }
    deleting = false;
    await deleter;
    t.notOk(readdirSync(backups).some((name) => name.includes('.partial-')), 'no partial copies are left');
  });

  t.test('stoa check finds an attachment whose file is gone', async (t) => {
    const left = ((await (await api('GET', '/attachments')).json()) as { attachments: { id: number; path_id: string }[] }).attachments;
    t.ok(left.length > 0, `attachments are left (${left.length})`);
    const dest = join(backups, 'final');
    t.equal((await stoa(dataDir, ['backup', dest])).code, 0, 'a backup of them');
    rmSync(join(dest, 'uploads', ...left[0].path_id.split('/')));
    const check = await stoa(dataDir, ['check', dest]);
    t.equal(check.code, 1, 'exit status 1 once a file is gone');
    t.match(check.stderr, new RegExp(`the file of attachment ${left[0].id} \\(uploads/.*\\) is missing`), `names the attachment and its file: ${check.stderr.trim()}`);
  });
});
