import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig } from '../../src/lib/config.js';
import { startServer } from '../../src/server.js';
import { tempDir } from '../cli/run.js';

/**
 * The zuliprc files in the data directory follow the server's address: a start with another
 * externalHost (or scheme) rewrites their `site`, keeps the rest, and says so.
 */
t.test('a changed externalHost rewrites the zuliprc files\' site', async (t) => {
  const dataDir = tempDir(t, 'stoa-zuliprc-');
  const start = (externalHost: string, scheme: 'http' | 'https' = 'http') =>
    startServer(loadConfig({}, { port: 0, bind: '127.0.0.1', dataDir, shards: 1, logLevel: 'silent', externalHost, scheme }));
  const path = join(dataDir, 'zuliprc');

  const first = await start('old.example.org');
  const written = readFileSync(path, 'utf8');
  t.match(written, /^site=http:\/\/old\.example\.org$/m, 'the first start writes the site it answers at');
  t.same(first.notices, [], 'nothing to say on the first start');
  await first.close();

  const second = await start('chat.example.org', 'https');
  const rewritten = readFileSync(path, 'utf8');
  t.equal(rewritten, written.replace('site=http://old.example.org', 'site=https://chat.example.org'), 'the site is rewritten; email and key are kept');
  t.equal(statSync(path).mode & 0o777, 0o600, 'the file stays private');
  t.equal(second.notices.length, 1, 'one notice');
  t.match(second.notices[0], `${path}: site changed from http://old.example.org to https://chat.example.org`, 'naming the file and both sites');
  await second.close();

  const third = await start('chat.example.org', 'https');
  t.same(third.notices, [], 'an unchanged address rewrites nothing');
  await third.close();
});
