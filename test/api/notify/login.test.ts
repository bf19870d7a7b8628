import t from 'tap';
import { loadConfig } from '../../../src/lib/config.js';
import { startServer } from '../../../src/server.js';
import { createUser, startTestServer } from '../../helpers/server.js';
import { startSmtpSink } from '../../helpers/smtp-sink.js';
import { editRealms } from '../users/restart.js';

/**
 * The new-login email (the reference's email_on_new_login): a password login (POST
 * /fetch_api_key) tells the person, unless they turned enable_login_emails off or the account
 * is brand new (signing up logs in). Accounts are aged by editing the store of a stopped server.
 */
t.test('new-login emails', async (t) => {
  const sink = await startSmtpSink(t);
  const email = { from: null, smtp: { host: '127.0.0.1', port: sink.port } };
  const ts = await startTestServer(t, { email });
  const lou = await createUser(ts, 'lou@example.com', 'Lou Login');
  const off = await createUser(ts, 'off@example.com', 'Off Login');
  t.equal((await ts.as(off)('PATCH', '/settings', { params: { enable_login_emails: false } })).status, 200, 'one turns login emails off');
  t.equal((await ts.request('POST', '/fetch_api_key', { params: { username: lou.email, password: lou.password }, auth: null })).status, 200, 'a login right after signing up');

  // Age the accounts: stop, move date_joined an hour back, start again on the same port.
  const config = ts.server.config;
  await ts.server.close();
  await editRealms((realm) => {
    for (const user of realm.users.values()) user.dateJoined -= 3600;
  })(config);
  const server = await startServer(loadConfig({}, { port: ts.port, bind: '127.0.0.1', dataDir: ts.dataDir, shards: config.shards, logLevel: 'silent', email }));
  t.teardown(() => server.close());

  const res = await ts.request('POST', '/fetch_api_key', { params: { username: lou.email, password: lou.password }, auth: null });
  t.equal(res.status, 200, 'a login an hour after signing up');
  const [mail] = await sink.waitFor(lou.email);
  t.match(mail.parsed.subject, /^New login from .+ on .+$/, 'the reference\'s subject');
  t.match(mail.parsed.text, /We noticed a recent login for the following Zulip account\./, 'what it says');
  t.match(mail.parsed.text, /IP address: 127\.0\.0\.1/, 'from where');
  t.match(mail.header('list-unsubscribe') ?? '', /\/accounts\/unsubscribe\/login\/[0-9a-f]{24}>$/, 'its own kind of unsubscribe link');
  t.ok(mail.parsed.html, 'an HTML part too');
  t.equal((await ts.request('POST', '/fetch_api_key', { params: { username: off.email, password: off.password }, auth: null })).status, 200, 'the other logs in');
  const wrong = await ts.request('POST', '/fetch_api_key', { params: { username: lou.email, password: 'not the password' }, auth: null });
  t.equal(wrong.status, 401, 'a failed login');
  // A sentinel: a second successful login of Lou's, whose email comes after anything above.
  await ts.request('POST', '/fetch_api_key', { params: { username: lou.email, password: lou.password }, auth: null });
  await sink.waitFor(lou.email, 2);
  t.same(sink.to(off.email), [], 'nothing for the one who turned them off');
  t.equal(sink.to(lou.email).length, 2, 'and nothing for the failed login');
  t.equal(sink.to(lou.email).filter((m) => m.parsed.subject?.startsWith('New login')).length, 2, 'two logins, two emails');
});
