import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { spawnServer } from '../startup/spawn.js';
import { field, http, stoa, tempDir } from './run.js';

/**
 * `stoa backup` while the server runs, `stoa restore` with it stopped, `stoa check` on both:
 * the restored server has what was there at the backup, uploads and credentials included, and
 * nothing written after it.
 */
t.test('backup, restore, check', async (t) => {
  t.setTimeout(240_000);
  const dataDir = tempDir(t, 'stoa-backup-data-');
  const backups = tempDir(t, 'stoa-backups-');
  const env = { STOA_PORT: '0', STOA_DATA_DIR: dataDir };
  let server = await spawnServer(t, env);
  const owner = { email: field(server.stdout(), 'owner email')!, apiKey: field(server.stdout(), 'owner API key')! };
  const call = (method: string, path: string, form?: Record<string, string>) => http(server.port, { method, path, host: `localhost:${server.port}`, auth: owner, form });
  const send = async (content: string) => (await call('POST', '/messages', { type: 'stream', to: 'general', topic: 'backup', content })).body.id as number;
  const topic = async () => {
    const res = await call('GET', `/messages?${new URLSearchParams({ anchor: 'newest', num_before: '100', num_after: '0', narrow: JSON.stringify([['topic', 'backup']]), apply_markdown: 'false' })}`);
    return res.body.messages.map((m: { content: string }) => m.content) as string[];
  };
  await send('before the backup');
  // A data export: its archive lives beside the stores too.
  await call('POST', '/export/realm');
  let exportUrl: string | null = null;
  for (let i = 0; i < 200 && !exportUrl; i++) {
    exportUrl = (await call('GET', '/export/realm')).body.exports[0]?.export_url ?? null;
    if (!exportUrl) await new Promise((r) => setTimeout(r, 50));
  }
  t.ok(exportUrl, 'a data export is made');
  const exportPath = new URL(exportUrl!).pathname;
  // An uploaded file: its bytes live beside the stores.
  mkdirSync(join(dataDir, 'uploads', 'manual'), { recursive: true });
  writeFileSync(join(dataDir, 'uploads', 'manual', 'note.txt'), 'kept');

  const target = join(backups, 'one');
  const made = await stoa(dataDir, ['backup', target]);
  t.equal(made.code, 0, `stoa backup succeeds while the server runs${made.stderr ? `: ${made.stderr}` : ''}`);
  t.match(made.stdout, /Backed up .* stores .*compacted/, 'and says what it copied');
  const manifest = JSON.parse(readFileSync(join(target, 'stoa-backup.json'), 'utf8'));
  t.equal(manifest.format, 1, 'a manifest, written last');
  t.ok(manifest.stores.some((s: { file: string }) => s.file === 'directory/data.mdb'), 'the realm directory is in it');
  t.ok(existsSync(join(target, 'zuliprc')), 'the zuliprc too');
  t.equal(readFileSync(join(target, 'uploads', 'manual', 'note.txt'), 'utf8'), 'kept', 'and the uploaded files');
  t.notOk(readdirSync(join(target, 'directory')).includes('lock.mdb'), 'no LMDB lock files');
  t.equal((await stoa(dataDir, ['check', target])).code, 0, 'stoa check passes the backup');
  t.equal((await stoa(dataDir, ['check'])).code, 0, 'and the live data directory');

  const notEmpty = await stoa(dataDir, ['backup', target]);
  t.equal(notEmpty.code, 1, 'a backup never writes into a non-empty directory');
  t.match(notEmpty.stderr, /not empty/, 'says why');

  await send('after the backup');
  const running = await stoa(dataDir, ['restore', target]);
  t.equal(running.code, 1, 'restore refuses while the server runs');
  t.match(running.stderr, /server is running/, 'says why');
  t.equal((await server.stop('SIGTERM')).code, 0, 'the server stops');

  const occupied = await stoa(dataDir, ['restore', target]);
  t.equal(occupied.code, 1, 'restore refuses a data directory that holds data');
  t.match(occupied.stderr, /--force/, 'and names --force');
  const forced = await stoa(dataDir, ['restore', '--force', target]);
  t.equal(forced.code, 0, `restore --force succeeds${forced.stderr ? `: ${forced.stderr}` : ''}`);
  const aside = readdirSync(dataDir).find((name) => name.startsWith('replaced-'));
  t.ok(aside && existsSync(join(dataDir, aside, 'directory', 'data.mdb')), 'what was there is moved aside, not deleted');

  server = await spawnServer(t, env);
  t.same(await topic(), ['before the backup'], 'the restored server has what was there at the backup, and not what came after');
  t.equal((await call('GET', '/users/me')).status, 200, 'the same credentials work');
  t.equal((await fetch(`http://127.0.0.1:${server.port}${exportPath}`)).status, 200, 'the data export still downloads');
  t.equal((await server.stop('SIGTERM')).code, 0, 'stops');

  const fresh = tempDir(t, 'stoa-backup-fresh-');
  rmSync(fresh, { recursive: true });
  t.equal((await stoa(fresh, ['restore', target])).code, 0, 'restore into a new data directory');
  const third = await spawnServer(t, { ...env, STOA_DATA_DIR: fresh });
  t.equal(third.stdout().includes('Created organization'), false, 'the server starts on it as on its own data, creating nothing');
  t.equal((await third.stop('SIGTERM')).code, 0, 'and stops');

  const partial = join(backups, 'partial');
  mkdirSync(join(partial, 'directory'), { recursive: true });
  const refused = await stoa(fresh, ['restore', '--force', partial]);
  t.equal(refused.code, 1, 'an interrupted backup (no manifest) is refused');
  t.match(refused.stderr, /not a complete Stoa backup/, 'says why');
});
