import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { field, http, tempDir } from '../cli/run.js';
import { spawnServer } from './spawn.js';

t.test('npm start: a second start reuses the data', async (t) => {
  const dataDir = tempDir(t, 'stoa-start-');
  const first = await spawnServer(t, { STOA_PORT: '0', STOA_DATA_DIR: dataDir });
  const owner = { email: field(first.stdout(), 'owner email')!, apiKey: field(first.stdout(), 'owner API key')! };
  const zuliprc = readFileSync(join(dataDir, 'zuliprc'), 'utf8');
  t.equal((await first.stop('SIGTERM')).code, 0, 'the first server stops cleanly');

  const second = await spawnServer(t, { STOA_PORT: '0', STOA_DATA_DIR: dataDir });
  const out = second.stdout();
  t.notMatch(out, /Created organization/, 'no new organization is created');
  t.notMatch(out, /owner (email|password|API key):/, 'no credentials are printed');
  t.match(out, /^Stoa listening on /m, 'it only says where it listens');
  // Port 0 picked another port, so the realm's URL moved: the zuliprc follows it, and says so.
  t.equal(readFileSync(join(dataDir, 'zuliprc'), 'utf8'), zuliprc.replace(/^site=.*$/m, `site=http://localhost:${second.port}`), 'the zuliprc keeps its credentials, with the new port in its site');
  t.match(second.stderr(), /zuliprc: site changed from http:\/\/localhost:\d+ to http:\/\/localhost:\d+/, 'and the start says it rewrote it');

  const me = await http(second.port, { path: '/users/me', host: `localhost:${second.port}`, auth: owner });
  t.equal(me.status, 200, 'the old API key still works');
  t.equal(me.body.email, owner.email, 'for the same owner');
  t.equal((await second.stop('SIGTERM')).code, 0, 'the second server stops cleanly');
});
