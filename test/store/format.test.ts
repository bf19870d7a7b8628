import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { open } from 'lmdb';
import { loadConfig } from '../../src/lib/config.js';
import { startServer } from '../../src/server.js';
import { Directory, directoryPath } from '../../src/store/directory.js';
import { ensureStoreFormat, STORE_FORMAT } from '../../src/store/format.js';
import { stoa, tempDir } from '../cli/run.js';
import { runToExit } from '../startup/spawn.js';

/**
 * The data format version: a new data directory records the current one, a start on an older
 * one copies the stores aside and upgrades them, and a newer one is refused by the server and
 * the CLI alike, with a message that says what to do.
 */
const config = (dataDir: string) => loadConfig({}, { port: 0, bind: '127.0.0.1', dataDir, shards: 1, logLevel: 'silent', externalHost: 'chat.example.org' });

/** Sets (or, with undefined, removes) the recorded format while no server runs. */
async function setFormat(dataDir: string, format: number | undefined): Promise<void> {
  const env = open({ path: directoryPath(dataDir), maxDbs: 4 });
  const meta = env.openDB({ name: 'meta' });
  await (format === undefined ? meta.remove('format') : meta.put('format', format));
  await env.close();
}

async function recorded(dataDir: string): Promise<number | undefined> {
  const directory = new Directory(dataDir);
  const format = directory.format();
  await directory.close();
  return format;
}

t.test('a new data directory records the current format', async (t) => {
  const dataDir = tempDir(t, 'stoa-format-');
  const server = await startServer(config(dataDir));
  t.same(server.notices, [], 'nothing to report');
  await server.close();
  t.equal(await recorded(dataDir), STORE_FORMAT, `format ${STORE_FORMAT}`);
});

t.test('an older data directory is copied aside, then upgraded', async (t) => {
  const dataDir = tempDir(t, 'stoa-format-');
  const first = await startServer(config(dataDir));
  const owner = first.bootstrap!.owner;
  await first.close();
  await setFormat(dataDir, undefined);

  const second = await startServer(config(dataDir));
  t.match(second.notices, [new RegExp(`^upgraded the data from format 1 to ${STORE_FORMAT} \\(1 -> 2: records the format version; 2 -> 3: stores read flips as per-user sets of ids\\); the stores as they were are in ${join(dataDir, 'upgrade-backups', 'format-1-')}`)], 'the start says what it did and where the copy is');
  const backups = readdirSync(join(dataDir, 'upgrade-backups'));
  t.equal(backups.length, 1, 'one copy');
  const copy = join(dataDir, 'upgrade-backups', backups[0]);
  t.ok(existsSync(join(copy, 'directory', 'data.mdb')) && existsSync(join(copy, 'shards', '0', 'data.mdb')), 'of the directory and every shard');
  t.match(readFileSync(join(copy, 'README'), 'utf8'), /To go back: stop the server/, 'with how to go back');
  const me = await fetch(`${second.url}/api/v1/users/me`, { headers: { authorization: `Basic ${Buffer.from(`${owner.email}:${owner.apiKey}`).toString('base64')}` } });
  t.equal(me.status, 200, 'the upgraded data serves as before');
  await second.close();
  t.equal(await recorded(dataDir), STORE_FORMAT, 'the new format is recorded');

  const third = await startServer(config(dataDir));
  t.same(third.notices, [], 'the next start has nothing to upgrade');
  await third.close();
});

t.test('upgrade steps run in order, after the copy', async (t) => {
  const dataDir = tempDir(t, 'stoa-format-');
  await (await startServer(config(dataDir))).close();
  const directory = new Directory(dataDir);
  t.teardown(() => directory.close());
  const seen: string[] = [];
  const steps = {
    [STORE_FORMAT]: { what: 'first step', run: async () => void seen.push(`step 1, copy made: ${existsSync(join(dataDir, 'upgrade-backups'))}`) },
    [STORE_FORMAT + 1]: { what: 'second step', run: async () => void seen.push(`step 2 on format ${directory.format()}`) },
  };
  const notices = await ensureStoreFormat(dataDir, directory, steps, STORE_FORMAT + 2);
  t.same(seen, ['step 1, copy made: true', `step 2 on format ${STORE_FORMAT + 1}`], 'each step sees the format its predecessor left');
  t.match(notices[0], `${STORE_FORMAT} -> ${STORE_FORMAT + 1}: first step; ${STORE_FORMAT + 1} -> ${STORE_FORMAT + 2}: second step`, 'both steps are reported');
  t.equal(directory.format(), STORE_FORMAT + 2, 'and the last one recorded');
});

t.test('a newer data directory is refused', async (t) => {
  const dataDir = tempDir(t, 'stoa-format-');
  await (await startServer(config(dataDir))).close();
  await setFormat(dataDir, STORE_FORMAT + 1);
  await t.rejects(startServer(config(dataDir)), new RegExp(`data format ${STORE_FORMAT + 1} is newer than this server's \\(${STORE_FORMAT}\\)`), 'startServer refuses it');

  const res = await runToExit({ STOA_DATA_DIR: dataDir, STOA_PORT: '0' });
  t.equal(res.code, 1, 'npm start: exit status 1');
  t.match(res.stderr, new RegExp(`^stoa: failed to start: ${join(dataDir, 'directory', 'data.mdb')}: data format ${STORE_FORMAT + 1} is newer than this server's \\(${STORE_FORMAT}\\): it was written by a newer Stoa\\. Run that version`), 'naming the file, both versions and what to do');
  t.notOk(existsSync(join(dataDir, 'stoa.pid')), 'the lock is released');

  const cli = await stoa(dataDir, ['user', 'create', '--realm', '', '--email', 'x@example.com', '--full-name', 'X']);
  t.equal(cli.code, 1, 'the CLI refuses to write it too');
  t.match(cli.stderr, /data format \d+ is newer than this server's/, 'with the same message');
  t.equal(await recorded(dataDir), STORE_FORMAT + 1, 'and nothing changed the recorded format');
});
