import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import t from 'tap';
import { createResetToken, doResetPassword, lookupResetToken } from '../../../src/api/password-reset/tokens.js';
import { loadConfig } from '../../../src/lib/config.js';
import { inProcessShard } from '../../helpers/shard.js';
import { createUser, startTestServer, type TestServer } from '../../helpers/server.js';

/**
 * "Forgot your password?": the form at /accounts/password/reset/, the same answer for every
 * address, the link by mail (here, with no mail server, in the outbox), single use, a limit per
 * address, and the new password working where the old one did.
 */
interface Page {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  html: string;
}

function page(ts: TestServer, path: string, form?: Record<string, string>): Promise<Page> {
  const body = form ? Buffer.from(new URLSearchParams(form).toString()) : undefined;
  const headers: Record<string, string> = { host: ts.server.config.externalHost };
  if (body) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    headers['content-length'] = String(body.length);
  }
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port: ts.port, method: form ? 'POST' : 'GET', path, headers, agent: false }, (res) => {
      let html = '';
      res.on('data', (c) => (html += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, html }));
    })
      .on('error', reject)
      .end(body);
  });
}

/** The outbox's mails to an address, oldest first, once `count` have arrived. */
async function mailsTo(ts: TestServer, address: string, count: number): Promise<string[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    let files: string[] = [];
    try {
      files = readdirSync(join(ts.dataDir, 'outbox')).filter((f) => f.endsWith('.eml')).sort();
    } catch {
      // no outbox yet
    }
    const mails = files.map((f) => readFileSync(join(ts.dataDir, 'outbox', f), 'utf8').replace(/=\r?\n/g, '').replace(/=3D/g, '=')).filter((m) => new RegExp(`^To: ${address}$`, 'mi').test(m));
    if (mails.length >= count || Date.now() > deadline) return mails;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const linkIn = (mail: string) => /https?:\/\/\S+\/accounts\/password\/reset\/[A-Za-z0-9_-]{43}\//.exec(mail)?.[0];

t.test('password reset', async (t) => {
  const defaults = loadConfig({});
  const ts = await startTestServer(t, { rateLimits: { ...defaults.rateLimits, enabled: true, perIp: [[60, 1000]], perUser: [[60, 1000]] } });
  const member = await createUser(ts, 'forgetful@example.com', 'Forgetful', 'old-password-1');
  const path = (link: string) => new URL(link).pathname;

  t.test('the form', async (t) => {
    const res = await page(ts, '/accounts/password/reset/');
    t.equal(res.status, 200, 'GET /accounts/password/reset/');
    t.match(res.headers['content-type'], /^text\/html/, 'a page');
    t.match(res.html, /<form method="post" action="\/accounts\/password\/reset\/">/, 'that posts back');
    t.match(res.html, /<input id="email" name="email" type="email"/, 'asking for an address');
    t.equal((await page(ts, '/accounts/password/reset')).status, 200, 'without the trailing slash too');
  });

  let link = '';
  t.test('a request: the same page for every address, and a mail to it', async (t) => {
    const known = await page(ts, '/accounts/password/reset/', { email: 'Forgetful@Example.com' });
    const unknown = await page(ts, '/accounts/password/reset/', { email: 'nobody@example.com' });
    t.equal(known.status, 200, 'an address with an account: 200');
    t.equal(unknown.status, 200, 'an address without: 200');
    t.equal(known.html, unknown.html, 'the very same page');
    t.match(known.html, /Check your email/, 'telling to check the mail');
    const [mail] = await mailsTo(ts, 'forgetful@example.com', 1);
    link = linkIn(mail) ?? '';
    t.ok(link.startsWith(`http://${ts.server.config.externalHost}/accounts/password/reset/`), 'the account\'s mail holds a link on the realm\'s URL');
    t.match(mail, /Subject: Password reset request for /, 'the reference\'s subject');
    const [none] = await mailsTo(ts, 'nobody@example.com', 1);
    t.match(none, /You do not have an account in that organization\./, 'an address without an account is told so, in its own mailbox');
    t.notOk(linkIn(none), 'with no link');
    const bad = await page(ts, '/accounts/password/reset/', { email: 'not an address' });
    t.equal(bad.status, 400, 'a malformed address: the form again');
    t.match(bad.html, /Please enter a valid email address\./, 'saying so');
  });

  t.test('the link', async (t) => {
    const form = await page(ts, path(link));
    t.equal(form.status, 200, 'opens a form');
    t.match(form.html, /<b id="account-email">forgetful@example\.com<\/b>/, 'for the account');
    t.equal((await page(ts, path(link))).status, 200, 'opening it again does not use it up (mail scanners open links)');
    const mismatch = await page(ts, path(link), { new_password: 'new-password-1', new_password_confirm: 'new-password-2' });
    t.equal(mismatch.status, 400, 'two different passwords: refused');
    t.match(mismatch.html, /do not match/, 'saying so');
    const short = await page(ts, path(link), { new_password: 'abc', new_password_confirm: 'abc' });
    t.match(short.html, /too weak/, 'a short one: refused');
    const done = await page(ts, path(link), { new_password: 'new-password-1', new_password_confirm: 'new-password-1' });
    t.equal(done.status, 200, 'a good one: done');
    t.match(done.html, /Your password has been changed/, 'saying so');
    const login = await ts.request('POST', '/fetch_api_key', { auth: null, params: { username: member.email, password: 'new-password-1' } });
    t.equal(login.status, 200, 'the new password logs in');
    t.equal(login.body.api_key, member.apiKey, 'to the same account');
    const old = await ts.request('POST', '/fetch_api_key', { auth: null, params: { username: member.email, password: 'old-password-1' }, unchecked: true });
    t.equal(old.status, 401, 'the old one does not');
    const again = await page(ts, path(link), { new_password: 'newer-password-1', new_password_confirm: 'newer-password-1' });
    t.equal(again.status, 404, 'the link works once');
    t.match(again.html, /This link does not work/, 'and then says it does not');
    t.equal((await page(ts, '/accounts/password/reset/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/')).status, 404, 'a made-up link does not work');
  });

  t.test('the limit per address, the same for every address', async (t) => {
    // forgetful@ has had one request this hour: one more, then the limit (the reference's 2 an hour).
    await page(ts, '/accounts/password/reset/', { email: 'forgetful@example.com' });
    const limited = await page(ts, '/accounts/password/reset/', { email: 'forgetful@example.com' });
    t.equal(limited.status, 429, 'the third request in an hour: 429');
    t.match(limited.html, /Too many requests/, 'a page that says so');
    t.match(String(limited.headers['retry-after']), /^\d+$/, 'with Retry-After');
    await page(ts, '/accounts/password/reset/', { email: 'nobody@example.com' });
    const unknown = await page(ts, '/accounts/password/reset/', { email: 'nobody@example.com' });
    t.equal(unknown.status, 429, 'an address without an account is limited alike');
    t.equal(unknown.html, limited.html, 'with the same page');
  });

});

t.test('a link expires, and one for a changed account stops working', async (t) => {
  const s = await inProcessShard(t);
  const user = await s.member('expiring');
  const { token, expiresAt } = await createResetToken(s.shard, s.realm, user);
  t.equal(expiresAt - Math.floor(Date.now() / 1000), s.shard.config.passwordResetValidityMinutes * 60, 'valid for passwordResetValidityMinutes');
  t.equal(lookupResetToken(s.shard, s.realm, token)?.id, user.id, 'it finds its account');
  const stored = [...s.shard.store.passwordResets.getRange({})];
  t.equal(stored.length, 1, 'one row');
  t.notOk(JSON.stringify(stored).includes(token), 'which does not hold the token itself');
  const [{ key, value }] = stored;
  await s.shard.store.passwordResets.put(key, { ...(value as object), expiresAt: Math.floor(Date.now() / 1000) - 1 });
  t.equal(lookupResetToken(s.shard, s.realm, token), null, 'once expired, it finds nothing');
  const fresh = await createResetToken(s.shard, s.realm, user);
  t.equal([...s.shard.store.passwordResets.getRange({})].length, 1, 'making a new link sweeps the expired one');
  const other = await createResetToken(s.shard, s.realm, user);
  t.ok(await doResetPassword(s.shard, s.realm, fresh.token, 'brand-new-password'), 'using one link');
  t.equal(lookupResetToken(s.shard, s.realm, other.token), null, 'ends the account\'s other links');
  t.same([...s.shard.store.passwordResets.getRange({})], [], 'and leaves no row');
  const last = await createResetToken(s.shard, s.realm, user);
  user.isActive = false;
  t.equal(lookupResetToken(s.shard, s.realm, last.token), null, 'a deactivated account\'s link does not work');
});
