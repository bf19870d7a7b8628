import t, { type Test } from 'tap';
import { loadConfig } from '../../../src/lib/config.js';
import { startServer } from '../../../src/server.js';
import { Shard } from '../../../src/shard/shard.js';
import type { EmailChangeRecord } from '../../../src/api/email-change/tokens.js';
import { browse, json, logIn } from '../../helpers/browser-http.js';
import { createUser, startTestServer, type Credentials, type TestServer } from '../../helpers/server.js';
import { Inbox, type Mail } from '../invites/harness.js';
import { listen } from '../streams/queues.js';

/**
 * Changing one's address, as the reference does it: PATCH /settings {email} checks the request
 * and mails a link to the new address (here to a real SMTP listener); the link's page shows a
 * button, whose POST makes the change, tells everyone who can see the user, and mails the old
 * address. Every refusal with the reference's message; single use, replaced links, expiry (after
 * a restart, which a waiting link survives); the per-user limit; and nobody else learns the link.
 */
const LINK = /https?:\/\/[^\s"<>]+\/accounts\/confirm_new_email\/([A-Za-z0-9_-]{43})/;

interface Ctx {
  ts: TestServer;
  inbox: Inbox;
}

/** The mails to `address`, once there are at least `count`. */
async function mailsTo(inbox: Inbox, address: string, count: number): Promise<Mail[]> {
  const deadline = Date.now() + 30_000;
  while (inbox.to(address).length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return inbox.to(address);
}

/** Asks for a change and returns the key its mail holds. */
async function ask(c: Ctx, who: Credentials, email: string): Promise<string> {
  const before = c.inbox.to(email).length;
  const res = await c.ts.as(who)('PATCH', '/settings', { params: { email } });
  if (res.status !== 200) throw new Error(`PATCH /settings failed: ${JSON.stringify(res.body)}`);
  const mails = await mailsTo(c.inbox, email, before + 1);
  const key = LINK.exec(mails[before]?.text ?? '')?.[1];
  if (!key) throw new Error(`no link in the mail to ${email}`);
  return key;
}

const open = (c: Ctx, key: string) => browse(c.ts, 'GET', `/accounts/confirm_new_email/${key}`);
const confirm = (c: Ctx, key: string) => browse(c.ts, 'POST', '/accounts/confirm_new_email/', { form: { key } });

async function refused(t: Test, c: Ctx, who: Credentials, email: string, msg: string, what: string): Promise<void> {
  const res = await c.ts.as(who)('PATCH', '/settings', { params: { email } });
  t.same([res.status, res.body.result, res.body.msg, res.body.code], [400, 'error', msg, 'BAD_REQUEST'], what);
}

t.test('changing one\'s email address', async (t) => {
  const inbox = new Inbox();
  await inbox.start();
  t.teardown(() => inbox.close());
  const defaults = loadConfig({});
  const ts = await startTestServer(t, {
    email: { from: 'Stoa Test <noreply@stoa.test>', smtp: { host: '127.0.0.1', port: inbox.port } },
    rateLimits: { ...defaults.rateLimits, enabled: true, perIp: [[60, 10_000]], perUser: [[60, 10_000]] },
  });
  const c: Ctx = { ts, inbox };
  const alice = await createUser(ts, 'alice@example.com', 'Alice');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const carol = await createUser(ts, 'carol@example.com', 'Carol');
  const dave = await createUser(ts, 'dave@example.com', 'Dave');
  const erin = await createUser(ts, 'erin@example.com', 'Erin');
  const frank = await createUser(ts, 'frank@example.com', 'Frank');
  const gone = await createUser(ts, 'gone@example.com', 'Gone');
  // alice's credentials once her address has changed.
  const moved = { email: 'alice@example.org', apiKey: alice.apiKey };
  let aliceNow: Credentials = alice;
  const admin = await createUser(ts, 'admin@example.com', 'Admin');
  t.equal((await ts.request('PATCH', `/users/${admin.userId}`, { params: { role: 200 } })).status, 200, 'an administrator');
  t.equal((await ts.request('DELETE', `/users/${gone.userId}`)).status, 200, 'a deactivated account');
  const realmName = (await ts.request('GET', '/server_settings', { auth: null })).body.realm_name as string;
  const host = ts.server.config.externalHost;
  const setRealm = async (params: Record<string, unknown>) => t.equal((await ts.request('PATCH', '/realm', { params })).status, 200, `realm: ${JSON.stringify(params)}`);

  t.test('refusals, with the reference\'s messages, and no mail', async (t) => {
    const mails = inbox.mails.length;
    await refused(t, c, alice, 'not an address', 'Invalid address.', 'a malformed address');
    await refused(t, c, alice, '', 'Invalid address.', 'an empty one');
    await refused(t, c, alice, 'bob@example.com', 'Already has an account.', 'an address in use');
    await refused(t, c, alice, 'BOB@example.com', 'Already has an account.', 'in other letters too');
    await refused(t, c, alice, 'Alice@example.com', 'Already has an account.', 'one\'s own in other letters, as the reference counts it');
    await refused(t, c, alice, 'gone@example.com', 'Account has been deactivated.', 'a deactivated account\'s address');
    await refused(t, c, alice, 'alice@mailinator.com', 'Please use your real email address.', 'a disposable address (disallow_disposable_email_addresses)');
    await setRealm({ email_changes_disabled: true });
    await refused(t, c, alice, 'alice@example.org', 'Email address changes are disabled in this organization.', 'email_changes_disabled binds members');
    const byAdmin = await ts.as(admin)('PATCH', '/settings', { params: { email: 'admin2@example.com' } });
    t.equal(byAdmin.status, 200, 'but not administrators');
    t.equal((await mailsTo(inbox, 'admin2@example.com', 1)).length, 1, 'who get the link');
    await setRealm({ email_changes_disabled: false });
    t.equal((await ts.request('POST', '/realm/domains', { params: { domain: 'example.com', allow_subdomains: false } })).status, 200, 'a realm domain');
    await setRealm({ emails_restricted_to_domains: true });
    await refused(t, c, alice, 'alice@example.org', 'Outside your domain.', 'emails_restricted_to_domains: another domain');
    await refused(t, c, alice, 'alice+chat@example.com', 'Email addresses containing + are not allowed.', 'and no +');
    await setRealm({ emails_restricted_to_domains: false });
    const bot = await ts.request('POST', '/bots', { params: { full_name: 'Helper', short_name: 'helper', bot_type: 1 } });
    const botCreds = { email: (await ts.request('GET', `/users/${bot.body.user_id}`)).body.user.email as string, apiKey: bot.body.api_key as string };
    await refused(t, c, botCreds, 'bot@example.com', 'This endpoint does not accept bot requests.', 'bots');
    const same = await ts.as(alice)('PATCH', '/settings', { params: { email: ' alice@example.com ' } });
    t.same(same.body, { result: 'success', msg: '' }, 'the same address (trimmed): nothing to do');
    t.equal(inbox.mails.length, mails + 1, 'no mail but the administrator\'s');
    t.equal((await ts.as(alice)('GET', '/users/me')).body.email, 'alice@example.com', 'the address is as it was');
  });

  let aliceKey = '';
  t.test('a request: a link mailed to the new address, nothing changed yet', async (t) => {
    const others = await listen(ts.as(bob), { event_types: ['realm_user'] });
    const res = await ts.as(alice)('PATCH', '/settings', { params: { email: 'alice@example.org' } });
    t.same(res.body, { result: 'success', msg: '' }, 'the reference\'s answer: success, nothing more');
    const [mail] = await mailsTo(inbox, 'alice@example.org', 1);
    t.match(mail.text, /^Subject: Verify your new email address for /m, 'the reference\'s subject');
    t.match(mail.text, new RegExp(`from alice@example\\.com to alice@example\\.org`), 'naming both addresses');
    const link = LINK.exec(mail.text);
    t.ok(link, 'with a link');
    t.equal(new URL(link![0]).host, host, 'on the realm\'s URL');
    aliceKey = link![1];
    t.same(inbox.to('alice@example.com'), [], 'the old address gets nothing yet');
    t.equal((await ts.as(alice)('GET', '/users/me')).body.email, 'alice@example.com', 'the address is unchanged');
    const seen = (await ts.as(bob)('GET', `/users/${alice.userId}`)).body.user;
    t.equal(seen.email, 'alice@example.com', 'others see the old one');
    t.notOk(JSON.stringify(seen).includes('example.org'), 'and nothing of the new');
    t.same(await others.drain(t), [], 'and hear nothing');
  });

  t.test('the link: a page with a button, then the change', async (t) => {
    const others = await listen(ts.as(bob), { event_types: ['realm_user'] });
    const own = await listen((method, path, opts) => ts.as(aliceNow)(method, path, opts), { event_types: ['realm_user'] });
    const jar = await logIn(ts, 'alice@example.com', alice.password);
    const queue = (await ts.as(alice)('POST', '/register', { params: { event_types: ['realm_user'] } })).body;
    const poll = (who: Credentials) => ts.as(who)('GET', '/events', { params: { queue_id: queue.queue_id, last_event_id: queue.last_event_id, dont_block: true }, unchecked: true });
    t.equal((await poll(alice)).status, 200, 'a long-poll with the old address before the change');
    const page = await open(c, aliceKey);
    t.equal(page.status, 200, 'GET: a page');
    t.match(page.headers['content-type'], /^text\/html/, 'in HTML');
    t.match(page.text, /<form method="post" action="\/accounts\/confirm_new_email\/">/, 'with a form that posts');
    t.match(page.text, new RegExp(`<input type="hidden" name="key" value="${aliceKey}">`), 'the key');
    t.match(page.text, /<b id="new-email">alice@example\.org<\/b>/, 'naming the new address');
    t.equal((await open(c, aliceKey)).status, 200, 'opening it again does not use it up (mail scanners open links)');
    t.equal((await ts.as(alice)('GET', '/users/me')).body.email, 'alice@example.com', 'opening it changes nothing');

    const done = await confirm(c, aliceKey);
    t.equal(done.status, 200, 'POST: done');
    t.match(done.text, /Email changed!/, 'the reference\'s heading');
    t.match(done.text, /has changed from <b>alice@example\.com<\/b> to <b id="new-email">alice@example\.org<\/b>/, 'from the old address to the new');

    aliceNow = moved;
    const me = await ts.as(moved)('GET', '/users/me');
    t.equal(me.status, 200, 'the API key works with the new address');
    t.equal(me.body.email, 'alice@example.org', 'which is the account\'s');
    t.equal(me.body.delivery_email, 'alice@example.org', 'and its delivery address');
    t.equal((await ts.as(alice)('GET', '/users/me', { unchecked: true })).status, 401, 'the old address does not authenticate');
    const login = await ts.request('POST', '/fetch_api_key', { auth: null, params: { username: 'alice@example.org', password: alice.password } });
    t.equal(login.body.api_key, alice.apiKey, 'the password logs in with the new address, to the same key');
    const old = await ts.request('POST', '/fetch_api_key', { auth: null, params: { username: 'alice@example.com', password: alice.password }, unchecked: true });
    t.equal(old.status, 401, 'not with the old one');
    t.equal((await poll(alice)).status, 401, 'the old address no longer polls its queue, wherever the poll is answered');
    t.equal((await poll(moved)).status, 200, 'the new one does, the same queue');
    const session = await json(ts, jar, 'GET', '/users/me');
    t.equal(session.json?.email, 'alice@example.org', 'a browser session from before keeps working, as the reference\'s');

    const expected = (person: Record<string, unknown>) => ({ type: 'realm_user', op: 'update', person });
    const events = await others.drain(t);
    t.match(events, [
      expected({ user_id: alice.userId, delivery_email: 'alice@example.org' }),
      expected({ user_id: alice.userId, avatar_source: 'G', avatar_url: /^https:\/\/secure\.gravatar\.com\/avatar\// }),
      expected({ user_id: alice.userId, new_email: 'alice@example.org' }),
    ], 'another user hears of it as the reference tells: delivery_email, the Gravatar made from it, new_email');
    t.equal(events.length, 3, 'and nothing more');
    t.same((await own.drain(t)).map((e) => Object.keys(e.person).sort().join()), events.map((e) => Object.keys(e.person).sort().join()), 'the user\'s own clients too');
    t.equal((await ts.as(bob)('GET', `/users/${alice.userId}`)).body.user.email, 'alice@example.org', 'others see the new address');

    const [notice] = await mailsTo(inbox, 'alice@example.com', 1);
    t.match(notice.text, new RegExp(`^Subject: Zulip email changed for ${realmName}`, 'm'), 'the old address is told, with the reference\'s subject');
    t.match(notice.text, /was recently changed to alice@example\.org/, 'naming the new one');
    t.notOk(LINK.test(notice.text), 'and no link');

    const again = await confirm(c, aliceKey);
    t.equal(again.status, 404, 'the link works once');
    t.match(again.text, /The confirmation link has expired or been deactivated\./, 'then says so, as the reference does');
    t.match((await open(c, aliceKey)).text, /has expired or been deactivated/, 'opening it too');
  });

  t.test('the limit: the reference\'s 2 an hour per user', async (t) => {
    // alice has asked once this hour (refusals do not count).
    await ask(c, moved, 'alice@example.net');
    const third = await ts.as(moved)('PATCH', '/settings', { params: { email: 'alice@example.edu' } });
    t.equal(third.status, 429, 'the third request in an hour: 429');
    t.equal(third.body.code, 'RATE_LIMIT_HIT', 'RATE_LIMIT_HIT');
    t.match(String(third.headers['retry-after']), /^\d+$/, 'with Retry-After');
    t.same(inbox.to('alice@example.edu'), [], 'and no mail');
    const other = await ts.as(bob)('PATCH', '/settings', { params: { email: 'bob@example.org' } });
    t.equal(other.status, 200, 'another user has their own allowance');
  });

  t.test('a newer request replaces the older; refused links; checks made again', async (t) => {
    const first = await ask(c, carol, 'carol@example.org');
    const second = await ask(c, carol, 'carol@example.net');
    t.match((await open(c, first)).text, /has expired or been deactivated/, 'the first link stops working once a second is asked for');
    t.equal((await confirm(c, first)).status, 404, 'and cannot be used');
    t.equal((await confirm(c, second)).status, 200, 'the second works');
    t.equal((await ts.as({ email: 'carol@example.net', apiKey: carol.apiKey })('GET', '/users/me')).body.email, 'carol@example.net', 'to its address');

    const malformed = await confirm(c, 'not-a-key');
    t.equal(malformed.status, 404, 'a malformed key: 404');
    t.match(malformed.text, /The confirmation link is malformed\./, 'the reference\'s words');
    const unknown = await open(c, 'A'.repeat(43));
    t.equal(unknown.status, 404, 'a made-up one: 404');
    t.match(unknown.text, /Whoops\. We couldn\S+t find your confirmation link in the system\./, 'not found, in the reference\'s words');
    const missing = await browse(ts, 'POST', '/accounts/confirm_new_email/', { form: {} });
    t.equal(missing.status, 400, 'no key at all: 400');
    t.match(missing.headers['content-type'], /^text\/html/, 'a page too');

    const taken = await ask(c, dave, 'dave@example.org');
    t.equal((await ts.request('POST', '/users', { params: { email: 'dave@example.org', password: 'a-long-password-2', full_name: 'Other Dave' } })).status, 200, 'meanwhile, someone takes the address');
    const late = await confirm(c, taken);
    t.equal(late.status, 400, 'the link is refused');
    t.match(late.text, /Already has an account\./, 'with the reference\'s message');
    t.equal((await ts.as(dave)('GET', '/users/me')).body.email, 'dave@example.com', 'nothing changed');

    const locked = await ask(c, erin, 'erin@example.org');
    await setRealm({ email_changes_disabled: true });
    const off = await confirm(c, locked);
    t.equal(off.status, 400, 'changes turned off meanwhile: refused');
    t.match(off.text, /Email address changes are disabled in this organization\./, 'saying so');
    await setRealm({ email_changes_disabled: false });
    t.equal((await confirm(c, locked)).status, 200, 'a refused link stays usable: on again, it works');

    const bobKey = LINK.exec(inbox.to('bob@example.org')[0].text)![1];
    t.equal((await ts.request('DELETE', `/users/${bob.userId}`)).status, 200, 'bob is deactivated with a link waiting');
    const deactivated = await confirm(c, bobKey);
    t.equal(deactivated.status, 401, 'his link: 401');
    t.match(deactivated.text, /Account is deactivated/, 'the reference\'s page');
    t.equal((await ts.request('POST', `/users/${bob.userId}/reactivate`)).status, 200, 'reactivated');
  });

  t.test('nobody else learns or uses the link', async (t) => {
    const watcher = await listen(ts.as(dave), { event_types: ['realm_user'] });
    const erinNow = { email: 'erin@example.org', apiKey: erin.apiKey };
    const key = await ask(c, erinNow, 'erin@example.net');
    const everywhere = JSON.stringify(inbox.mails.filter((m) => !m.to.includes('erin@example.net')));
    t.notOk(everywhere.includes(key), 'the key is in no other mail');
    t.notOk(JSON.stringify(await watcher.drain(t)).includes(key), 'nor in anyone\'s events');
    const daveJar = await logIn(ts, 'dave@example.com', dave.password);
    const guess = await browse(ts, 'POST', '/accounts/confirm_new_email/', { jar: daveJar, form: { key: key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A') } });
    t.equal(guess.status, 404, 'a near guess from another user\'s browser does not work');
    const daveMe = await ts.as(dave)('GET', '/users/me');
    t.equal(daveMe.body.email, 'dave@example.com', 'and changed nothing of theirs');
    t.equal((await ts.as(erinNow)('GET', '/users/me')).body.email, 'erin@example.org', 'nor of erin\'s');
    t.notOk(JSON.stringify((await ts.as(dave)('GET', '/users')).body).includes('erin@example.net'), 'the waiting address is shown to nobody');
  });

  t.test('a link expires after a day, and a waiting one outlives a restart', async (t) => {
    const fresh = await ask(c, dave, 'dave@example.net');
    const stale = await ask(c, frank, 'frank@example.org');
    const config = ts.server.config;
    await ts.server.close();
    // Offline, as an operator's tools would: frank's link is made a day and a second old.
    let rows = '';
    for (let index = 0; index < config.shards; index++) {
      const shard = Shard.open(index, config);
      const batch = shard.batch();
      for (const { key, value } of shard.store.emailChanges.getRange({})) {
        const row = value as EmailChangeRecord;
        rows += JSON.stringify([key, row]);
        if (row.newEmail === 'frank@example.org') batch.put(shard.store.emailChanges, key as [number, string], { ...row, createdAt: row.createdAt - 86_401, expiresAt: row.expiresAt - 86_401 });
      }
      await batch.commit();
      await shard.close();
    }
    t.match(rows, /frank@example\.org/, 'the store holds the waiting changes');
    t.notOk(rows.includes(stale) || rows.includes(fresh), 'but not their keys');
    const server = await startServer({ ...config, port: ts.port });
    t.teardown(() => server.close());
    const expired = await confirm(c, stale);
    t.equal(expired.status, 404, 'an expired link: 404');
    t.match(expired.text, /has expired or been deactivated/, 'saying so');
    t.equal((await confirm(c, fresh)).status, 200, 'a waiting link still works after the restart');
    const me = await browse(ts, 'GET', '/api/v1/users/me', { headers: { authorization: `Basic ${Buffer.from(`dave@example.net:${dave.apiKey}`).toString('base64')}` } });
    t.equal(me.json?.email, 'dave@example.net', 'and changed the address');
  });
});
