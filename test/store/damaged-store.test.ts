import { cpSync, mkdtempSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { garble } from './garble.js';
import { stoa } from '../cli/run.js';
import { runToExit, spawnServer } from '../startup/spawn.js';

/**
 * A damaged or missing store at start: the server refuses with the file and the problem and a
 * non-zero exit, instead of a SIGBUS with an empty log, or writing an empty database over it.
 * `stoa check` reports the same, and more (it reads every table).
 */
t.test('damaged stores are reported at start, never replaced', async (t) => {
  const pristine = mkdtempSync(join(tmpdir(), 'stoa-damage-'));
  t.teardown(() => rmSync(pristine, { recursive: true, force: true }));
  const first = await spawnServer(t, { STOA_PORT: '0', STOA_DATA_DIR: pristine, STOA_SHARDS: '1' });
  t.equal((await first.stop('SIGTERM')).code, 0, 'a data directory made and stopped cleanly');
  const shardFile = (dir: string) => join(dir, 'shards', '0', 'data.mdb');
  const pageCount = statSync(shardFile(pristine)).size / 4096;

  const cases: { name: string; damage(dir: string): void; expect: RegExp; file: (dir: string) => string }[] = [
    { name: 'cut in half', damage: (d) => truncateSync(shardFile(d), Math.floor(pageCount / 2) * 4096), expect: /truncated/, file: shardFile },
    { name: 'truncated to 0 bytes', damage: (d) => truncateSync(shardFile(d), 0), expect: /empty \(0 bytes\)/, file: shardFile },
    { name: 'first pages garbled', damage: (d) => garble(shardFile(d), 0, 2), expect: /meta page is damaged/, file: shardFile },
    { name: 'pages inside garbled', damage: (d) => garble(shardFile(d), 2, pageCount - 2), expect: /MDB_|damaged|crashed/, file: shardFile },
    { name: 'shard folder removed', damage: (d) => rmSync(join(d, 'shards', '0'), { recursive: true }), expect: /missing: the realm directory places realm '' on shard 0/, file: shardFile },
    { name: 'realm directory removed', damage: (d) => rmSync(join(d, 'directory'), { recursive: true }), expect: /missing, while shards\/0 hold data/, file: (d) => join(d, 'directory', 'data.mdb') },
  ];
  for (const c of cases) {
    t.test(c.name, async (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'stoa-damage-'));
      t.teardown(() => rmSync(dir, { recursive: true, force: true }));
      cpSync(pristine, dir, { recursive: true });
      c.damage(dir);
      const sizeBefore = statOrNull(c.file(dir));
      const run = await runToExit({ STOA_PORT: '0', STOA_DATA_DIR: dir, STOA_SHARDS: '1' });
      t.equal(run.code, 1, 'exit status 1 (not a signal, not 0)');
      t.match(run.stderr, new RegExp(`stoa: failed to start: ${escape(c.file(dir))}: `), 'the message names the file');
      t.match(run.stderr, c.expect, 'and the problem');
      t.notMatch(run.stdout, /listening/, 'it never listened');
      t.equal(statOrNull(c.file(dir)), sizeBefore, 'the file was left as it was (not replaced by an empty database)');
      const check = await stoa(dir, ['check', dir]);
      t.equal(check.code, 1, 'stoa check fails too');
      t.ok(check.stderr.includes(c.file(dir)), `naming the file: ${check.stderr}`);
    });
  }

  t.test('stoa check passes a healthy data directory', async (t) => {
    const check = await stoa(pristine, ['check']);
    t.equal(check.code, 0, 'exit 0');
    t.match(check.stdout, /: ok \(2 stores, \d+ rows read\)/, 'says so');
  });
});


function statOrNull(file: string): number | null {
  try {
    return statSync(file).size;
  } catch {
    return null;
  }
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
