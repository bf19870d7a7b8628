import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { field, http, tempDir } from '../../cli/run.js';
import { freePort, spawnServer } from '../../startup/spawn.js';
import { byId, page, problemOf } from './harness.js';

/**
 * `npm start` with no SMTP server configured: an invitation's mail is written to
 * <dataDir>/outbox and its link logged, so a self-hoster can hand it out. Invitations and
 * accounts made through them survive kill -9: each was committed before it was acknowledged.
 */
t.test('no SMTP server: the outbox and the log; kill -9 loses nothing', async (t) => {
  const dataDir = tempDir(t, 'stoa-invites-');
  const port = await freePort();
  const env = { STOA_PORT: String(port), STOA_DATA_DIR: dataDir, STOA_LOG_LEVEL: 'warn' };
  const first = await spawnServer(t, env);
  const host = `localhost:${port}`;
  const owner = { email: field(first.stdout(), 'owner email')!, apiKey: field(first.stdout(), 'owner API key')! };
  const api = (method: string, path: string, form?: Record<string, string>) => http(port, { method, path, host, auth: owner, form });

  const invited = await api('POST', '/invites', { invitee_emails: 'wren@example.net', stream_ids: '[]' });
  t.equal(invited.status, 200, 'an email invitation');
  const files = readdirSync(join(dataDir, 'outbox')).filter((f) => f.endsWith('.eml'));
  t.equal(files.length, 1, 'its mail is a file in <dataDir>/outbox');
  const mail = readFileSync(join(dataDir, 'outbox', files[0]), 'utf8').replace(/=\r?\n/g, '');
  const link = /http:\/\/\S+\/join\/[a-z2-7]{24}\//.exec(mail)?.[0];
  t.ok(link, 'with the link');
  t.match(mail, /To: wren@example\.net/, 'to the invitee');
  // The shard thread's log lines reach the process's stdout through the main thread, maybe
  // after the answer: wait for it a little.
  const logged = new RegExp(`no SMTP server configured: mail to wren@example.net written to ${join(dataDir, 'outbox')}.*Invitation link: ${link}`);
  for (let i = 0; i < 100 && !logged.test(first.stdout()); i++) await new Promise((r) => setTimeout(r, 100));
  t.match(first.stdout(), logged, 'and the log says where, with the link');

  const multi = await api('POST', '/invites/multiuse', { invite_as: '600' });
  const reusable = multi.body.invite_link as string;
  const joined = await page(link!, { full_name: 'Wren', password: 'wren-password' });
  t.equal(byId(joined.html, 'account-email'), 'wren@example.net', 'wren joins');
  t.equal((await first.stop('SIGKILL')).signal, 'SIGKILL', 'killed with SIGKILL right after');

  const second = await spawnServer(t, env);
  t.equal(problemOf((await page(link!)).html), 'used', 'the used invitation is still used');
  t.equal((await page(reusable)).status, 200, 'the reusable link still works');
  const listed = await api('GET', '/invites');
  t.match(listed.body.invites, [{ is_multiuse: true, invited_as: 600, link_url: reusable }], 'and is listed; the used one is not');
  const login = await http(port, { method: 'POST', path: '/fetch_api_key', host, form: { username: 'wren@example.net', password: 'wren-password' } });
  t.equal(login.status, 200, "wren's account and password survived");
  const guest = await page(reusable, { email: 'yara@example.net', full_name: 'Yara', password: 'yara-password' });
  t.equal(guest.status, 200, 'the link makes accounts after the restart');
  t.equal((await second.stop('SIGTERM')).code, 0, 'stops cleanly');
});
