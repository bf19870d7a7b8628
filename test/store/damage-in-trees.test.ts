import { cpSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { garble } from './garble.js';
import { http, stoa, stoaOk, tempDir } from '../cli/run.js';
import { spawnServer, type ServerProcess } from '../startup/spawn.js';

/**
 * Damage inside a store's trees, past what the start reads: pages garbled in the middle of a
 * shard's data.mdb. LMDB has no checksums; such a page is met as an error, as a range read that
 * ends early without one, or as a crash of the reader. Every read that meets it must fail
 * loudly (503 STORAGE_DAMAGED, the table logged once), never answer short as if complete (a
 * channel narrow once answered 200 with 401 of its 1,000 messages), never take the server down;
 * and `stoa check` must report it without crashing.
 */
t.test('reads that meet damage fail loudly, never short', async (t) => {
  t.setTimeout(300_000);
  const pristine = tempDir(t, 'stoa-trees-');
  const first = await spawnServer(t, { STOA_PORT: '0', STOA_DATA_DIR: pristine, STOA_SHARDS: '1' });
  t.equal((await first.stop('SIGTERM')).code, 0, 'a data directory made');
  const keysFile = join(pristine, 'keys.json');
  await stoaOk(pristine, ['seed', '--realm', '', '--users', '12', '--channels', '3', '--messages', '3000', '--out', keysFile], { STOA_SHARDS: '1' });
  const user = JSON.parse(readFileSync(keysFile, 'utf8')).users[0] as { email: string; apiKey: string };

  const narrows = [[], [['channel', 'bench 0']], [['channel', 'bench 1']], [['channel', 'bench 2']], [['channel', 'bench 0'], ['topic', 'topic 1']], [['is', 'dm']], [['sender', user.email]], [['is', 'unread']], [['search', 'bench']]];
  const answers = async (server: ServerProcess) => {
    const out: { status: number; count?: number; code?: string }[] = [];
    for (const narrow of narrows) {
      const res = await http(server.port, { path: `/messages?${new URLSearchParams({ anchor: 'newest', num_before: '5000', num_after: '0', narrow: JSON.stringify(narrow) })}`, host: `localhost:${server.port}`, auth: user });
      out.push({ status: res.status, count: res.body.messages?.length, code: res.body.code });
    }
    const register = await http(server.port, { method: 'POST', path: '/register', host: `localhost:${server.port}`, auth: user });
    out.push({ status: register.status, count: register.body.unread_msgs?.count, code: register.body.code });
    return out;
  };
  const env = (dir: string) => ({ STOA_PORT: '0', STOA_DATA_DIR: dir, STOA_SHARDS: '1', STOA_LOG_LEVEL: 'info' });
  const whole = await spawnServer(t, env(pristine));
  const baseline = await answers(whole);
  t.ok(baseline.every((a) => a.status === 200), 'every read answers on the whole store');
  t.equal((await whole.stop('SIGTERM')).code, 0, 'stops');

  const file = (dir: string) => join(dir, 'shards', '0', 'data.mdb');
  const pages = statSync(file(pristine)).size / 4096;
  // Garbled regions, in turn, until one leaves the tables the start reads alone (a start that
  // meets damage is refused: damaged-store.test.ts).
  let tried = 0;
  for (let at = 0.3; at < 0.95; at += 0.05) {
    const dir = tempDir(t, 'stoa-trees-damaged-');
    cpSync(pristine, dir, { recursive: true });
    garble(file(dir), Math.floor(pages * at), 8);
    tried++;
    let server: ServerProcess;
    try {
      server = await spawnServer(t, env(dir));
    } catch {
      continue;
    }
    // The check of every table after start: once it has run, a damaged table is known.
    while (!/storage check after start/.test(server.stdout())) {
      if (server.child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    if (!/storage check after start: damage found/.test(server.stdout())) {
      // Only free pages were garbled.
      await server.stop('SIGTERM');
      continue;
    }
    t.pass(`the check after start found the damage (8 pages at ${Math.round(at * 100)}% of the file)`);
    const damaged = await answers(server);
    t.equal(server.child.exitCode, null, 'the server is still running');
    damaged.forEach((a, i) => {
      const what = i < narrows.length ? `narrow ${JSON.stringify(narrows[i])}` : 'POST /register';
      if (a.status === 200) t.equal(a.count, baseline[i].count, `${what}: 200, and whole (${a.count} of ${baseline[i].count})`);
      else t.same(a, { status: 503, count: undefined, code: 'STORAGE_DAMAGED' }, `${what}: 503 STORAGE_DAMAGED`);
    });
    t.ok(damaged.some((a) => a.status === 503), 'some reads met the damage');
    // GET /users answers from memory (GET /users/me would not: its max_message_id reads the
    // message indexes, which the garbled pages may have hit).
    const people = await http(server.port, { path: '/users', host: `localhost:${server.port}`, auth: user });
    t.equal(people.status, 200, `what does not touch it still answers${people.status === 200 ? '' : `: ${JSON.stringify(people)}`}`);
    const logged = server.stdout().split('\n').filter((l) => l.includes('"msg":"storage damage:')).map((l) => JSON.parse(l).table as string);
    t.ok(logged.length > 0, `the damage is logged with its table (${[...new Set(logged)].join(', ')})`);
    t.equal(new Set(logged).size, logged.length, 'once per table');
    t.notMatch(server.stdout(), /"msg":"unhandled error in operation"/, 'no generic 500');
    t.equal((await server.stop('SIGTERM')).code, 0, 'and stops cleanly');

    const check = await stoa(dir, ['check'], { STOA_SHARDS: '1' });
    t.equal(check.code, 1, 'stoa check reports it (exit 1), without crashing');
    t.match(check.stderr, /data\.mdb \(table \w+\): |data\.mdb: damaged: reading it crashed the reader/, `naming the file and the table: ${check.stderr.split('\n').slice(0, 4).join(' | ')}`);
    return;
  }
  t.fail(`every one of ${tried} damaged stores was refused at start; or held nothing; none tested the reads`);
});
