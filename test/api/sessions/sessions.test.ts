import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';
import { browse, Jar, json, logIn } from '../../helpers/browser-http.js';
import { uploadFiles } from '../../helpers/upload.js';
import { loadConfig } from '../../../src/lib/config.js';
import { startServer } from '../../../src/server.js';
import { editRealms } from '../users/restart.js';

/**
 * Browser sessions: the login and logout pages, the /json/ twin of /api/v1 with its CSRF rule,
 * upload links opened with the session, and sessions that outlive a restart but not a logout,
 * a password change or a deactivation.
 */
t.test('browser sessions', async (t) => {
  const ts = await startTestServer(t, { fetchApiKeyRateLimit: { failures: 3, windowSeconds: 60 } });
  const host = ts.server.config.externalHost;
  const origin = `http://${host}`;
  const alice = await createUser(ts, 'alice@example.com', 'Alice', 'alice-password-1');
  await createUser(ts, 'bob@example.com', 'Bob', 'bob-password-1');
  // Carol's attempts meet the per-account limit; names nobody has would meet the address's
  // (test/api/server/address-limits.test.ts), which would refuse this address's later logins.
  await createUser(ts, 'carol@example.com', 'Carol', 'carol-password-1');

  t.test('the pages a newcomer opens', async (t) => {
    const home = await browse(ts, 'GET', '/');
    t.equal(home.status, 302, '/ without a session: a redirect');
    t.equal(home.headers.location, '/login/', 'to the login page');
    const page = await browse(ts, 'GET', '/login/');
    t.equal(page.status, 200, 'the login page');
    t.match(page.headers['content-type'], /^text\/html/, 'is HTML');
    t.match(page.text, /<form method="post" action="\/login\/">/, 'with its form');
    t.match(page.text, /href="\/accounts\/password\/reset\/"/, 'and a link for a forgotten password');
    const signup = await browse(ts, 'GET', '/accounts/home/');
    t.equal(signup.status, 200, '/accounts/home/ answers');
    t.match(signup.text, /open by invitation/, 'and says how to join');
    const noSlash = await browse(ts, 'GET', '/login');
    t.equal(noSlash.status, 200, '/login without its slash too');
  });

  t.test('a wrong password, then the right one', async (t) => {
    const jar = new Jar();
    const wrong = await browse(ts, 'POST', '/login/', { jar, form: { username: 'alice@example.com', password: 'nope' }, headers: { origin } });
    t.equal(wrong.status, 401, 'refused');
    t.match(wrong.headers['content-type'], /^text\/html/, 'as a page, not JSON');
    t.match(wrong.text, /Incorrect email or password\./, 'saying why');
    t.match(wrong.text, /value="alice@example.com"/, 'keeping the address typed');
    t.same(wrong.setCookies, [], 'and setting no cookie');
    const unknown = await browse(ts, 'POST', '/login/', { form: { username: 'nobody@example.com', password: 'nope' }, headers: { origin } });
    t.match(unknown.text, /Incorrect email or password\./, 'an unknown address reads the same');

    const ok = await browse(ts, 'POST', '/login/', { jar, form: { username: 'alice@example.com', password: 'alice-password-1', next: '/#narrow/channel/1' }, headers: { origin } });
    t.equal(ok.status, 302, 'the right password: a redirect');
    t.equal(ok.headers.location, '/#narrow/channel/1', 'to where the person was going');
    const session = ok.setCookies.find((c) => c.startsWith('sessionid='))!;
    const csrf = ok.setCookies.find((c) => c.startsWith('csrftoken='))!;
    t.match(session, /; HttpOnly/, 'the session cookie is HttpOnly');
    t.match(session, /; SameSite=Lax/, 'and SameSite');
    t.notMatch(session, /; Secure/, 'not Secure over http');
    t.notMatch(csrf, /HttpOnly/, 'the CSRF cookie is readable by the page');
    t.match(csrf, /; SameSite=Lax/, 'and SameSite');

    const away = await browse(ts, 'POST', '/login/', { form: { username: 'alice@example.com', password: 'alice-password-1', next: '//evil.example/' }, headers: { origin } });
    t.equal(away.headers.location, '/', 'a next naming another site is not followed');
    const again = await browse(ts, 'GET', '/login/', { jar });
    t.equal(again.status, 302, 'the login page with a live session moves on');
  });

  t.test('/json/ with the session, and its CSRF rule', async (t) => {
    const jar = await logIn(ts, 'alice@example.com', 'alice-password-1');
    const me = await json(ts, jar, 'GET', '/users/me');
    t.equal(me.status, 200, 'GET /json/users/me with the cookie');
    t.equal(me.json.email, 'alice@example.com', 'is the session’s user');

    const sent = await json(ts, jar, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'csrf', content: 'with a token' });
    t.equal(sent.status, 200, 'a write with the CSRF token passes');

    const missing = await json(ts, jar, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'csrf', content: 'no token' }, { csrf: false });
    t.equal(missing.status, 403, 'a write without the token: 403');
    t.same(missing.json, { result: 'error', msg: 'CSRF error: CSRF token missing.', code: 'CSRF_FAILED', reason: 'CSRF token missing.' }, 'the reference’s CSRF error');
    const wrong = await json(ts, jar, 'PATCH', '/settings', { full_name: 'Mallory' }, { csrf: 'x'.repeat(43) });
    t.equal(wrong.status, 403, 'a wrong token: 403');
    t.equal(wrong.json.reason, "CSRF token from the 'X-Csrftoken' HTTP header incorrect.", 'with Django’s reason');
    const cross = await json(ts, jar, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'csrf', content: 'cross' }, { headers: { origin: 'http://evil.example' } });
    t.equal(cross.status, 403, 'a write from another site, even with the token: 403');
    t.match(cross.json.msg, /Origin checking failed - http:\/\/evil\.example/, 'Origin checking failed');
    const history = await ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'topic', operand: 'csrf' }] } });
    t.same(history.body.messages.map((m: any) => m.content), ['<p>with a token</p>'], 'only the write with its token happened');
    t.equal((await ts.request('GET', `/users/${alice.userId}`)).body.user.full_name, 'Alice', 'the name is unchanged');

    const none = await json(ts, new Jar(), 'GET', '/users/me');
    t.equal(none.status, 401, '/json/ without a session: 401');
    t.equal(none.headers['www-authenticate'], 'Session realm="zulip"', 'with the session challenge, not Basic (no browser prompt)');
    const basic = await browse(ts, 'GET', '/json/users/me', { headers: { authorization: `Basic ${Buffer.from(`${alice.email}:${alice.apiKey}`).toString('base64')}`, accept: 'application/json' } });
    t.equal(basic.status, 401, '/json/ does not take HTTP Basic, as the reference');
    const api = await browse(ts, 'GET', '/api/v1/users/me', { jar, headers: { accept: 'application/json' } });
    t.equal(api.status, 401, '/api/v1 does not take the cookie');
    t.equal((await ts.as(alice)('GET', '/users/me')).status, 200, 'API keys work as before');
    const post405 = await json(ts, jar, 'PUT', '/users/me');
    t.equal(post405.status, 405, 'a wrong method on /json/ is 405, as on /api/v1');
  });

  t.test('an upload link opens with the session', async (t) => {
    const up = await uploadFiles(ts, [{ filename: 'notes.txt', content: 'secret notes', contentType: 'text/plain' }], { auth: alice });
    const path = up.body.url as string;
    const jar = await logIn(ts, 'alice@example.com', 'alice-password-1');
    const file = await browse(ts, 'GET', path, { jar });
    t.equal(file.status, 200, 'the file, with the cookie');
    t.equal(file.text, 'secret notes', 'its bytes');
    const out = await browse(ts, 'GET', path);
    t.equal(out.status, 302, 'logged out, a browser is sent to log in');
    t.equal(out.headers.location, `/login/?next=${encodeURIComponent(path)}`, 'and back to the file after');
    t.equal(out.headers['www-authenticate'], undefined, 'no Basic prompt');
    const bobJar = await logIn(ts, 'bob@example.com', 'bob-password-1');
    const other = await browse(ts, 'GET', path, { jar: bobJar });
    t.equal(other.status, 403, 'another user’s session does not open a file they cannot see');
  });

  t.test('logout ends the session, even for a copy of the cookie', async (t) => {
    const jar = await logIn(ts, 'bob@example.com', 'bob-password-1');
    const stolen = new Jar();
    for (const [k, v] of jar.cookies) stolen.cookies.set(k, v);
    const page = await browse(ts, 'GET', '/accounts/logout/', { jar });
    t.equal(page.status, 200, 'the logout page');
    const token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(page.text)?.[1];
    t.equal(token, jar.cookies.get('csrftoken'), 'carries the CSRF token');
    const forged = await browse(ts, 'POST', '/accounts/logout/', { jar, form: {} });
    t.equal(forged.status, 403, 'a logout without the token is refused');
    t.match(forged.text, /could not be verified/, 'on a page');
    t.equal((await json(ts, jar, 'GET', '/users/me')).status, 200, 'and the session lives on');
    const out = await browse(ts, 'POST', '/accounts/logout/', { jar, form: { csrfmiddlewaretoken: token! }, headers: { origin } });
    t.equal(out.status, 302, 'logout: a redirect');
    t.equal(out.headers.location, '/login/', 'to the login page');
    t.equal(jar.cookies.size, 0, 'both cookies cleared');
    t.equal((await json(ts, stolen, 'GET', '/users/me')).status, 401, 'a copy of the old cookie no longer works');

    // `/` checks the session itself: a dead cookie goes to the login page without the app.
    const live = await logIn(ts, 'bob@example.com', 'bob-password-1');
    const app = await browse(ts, 'GET', '/', { jar: live });
    t.equal(app.status, 200, '/ with a live session: the app');
    t.match(app.text, /src="\/static\/web\/app-/, 'its page, naming its script');
    const dead = await browse(ts, 'GET', '/', { jar: stolen });
    t.equal(dead.status, 302, '/ with the logged-out cookie: a redirect');
    t.equal(dead.headers.location, '/login/', 'to the login page');
    t.equal(dead.text, '', 'with nothing of the app');
    t.ok(dead.setCookies.some((c) => /^sessionid=;.*Max-Age=0/.test(c)), 'and the dead cookie cleared');
    const made = new Jar();
    made.cookies.set('sessionid', `${alice.userId}.${'A'.repeat(43)}`);
    t.equal((await browse(ts, 'GET', '/', { jar: made })).headers.location, '/login/', 'a made-up cookie too');
    t.equal((await browse(ts, 'GET', '/')).headers.location, '/login/', 'and no cookie');
  });

  t.test('a password change ends the other sessions, not its own', async (t) => {
    const here = await logIn(ts, 'bob@example.com', 'bob-password-1');
    const there = await logIn(ts, 'bob@example.com', 'bob-password-1');
    const changed = await json(ts, here, 'PATCH', '/settings', { old_password: 'bob-password-1', new_password: 'bob-password-2' });
    t.equal(changed.status, 200, 'changed through /json/');
    t.equal((await json(ts, here, 'GET', '/users/me')).status, 200, 'the session that changed it lives');
    t.equal((await json(ts, there, 'GET', '/users/me')).status, 401, 'the other one has ended');
  });

  t.test('the rate limit, on the page', async (t) => {
    for (let i = 0; i < 3; i++) await browse(ts, 'POST', '/login/', { form: { username: 'carol@example.com', password: 'wrong' }, headers: { origin } });
    const limited = await browse(ts, 'POST', '/login/', { form: { username: 'carol@example.com', password: 'wrong' }, headers: { origin } });
    t.equal(limited.status, 429, '429');
    t.match(limited.headers['content-type'], /^text\/html/, 'as a page');
    t.match(limited.text, /making too many attempts to sign in\. Try again in \d+ seconds or contact your organization administrator for help\./, 'saying how long to wait');
    t.ok(Number(limited.headers['retry-after']) > 0, 'and Retry-After');
  });

  t.test('login CSRF: another site cannot log the browser in', async (t) => {
    const res = await browse(ts, 'POST', '/login/', { form: { username: 'alice@example.com', password: 'alice-password-1' }, headers: { origin: 'http://evil.example' } });
    t.equal(res.status, 403, 'refused');
    t.same(res.setCookies, [], 'no session');
  });

  t.test('a deactivated account', async (t) => {
    const dave = await createUser(ts, 'dave@example.com', 'Dave', 'dave-password-1');
    const jar = await logIn(ts, 'dave@example.com', 'dave-password-1');
    t.equal((await ts.request('DELETE', `/users/${dave.userId}`)).status, 200, 'deactivated by the owner');
    t.equal((await json(ts, jar, 'GET', '/users/me')).status, 401, 'the session has ended');
    const page = await browse(ts, 'POST', '/login/', { form: { username: 'dave@example.com', password: 'dave-password-1' }, headers: { origin } });
    t.equal(page.status, 403, 'logging in again: 403');
    t.match(page.text, /Your account dave@example.com has been deactivated\. Please contact your organization administrator to reactivate it\./, 'with the reference’s words');
  });

  t.test('sessions survive a restart; a deactivated organization says so', async (t) => {
    const jar = await logIn(ts, 'alice@example.com', 'alice-password-1');
    // Stopped and started on the same store, as restart() does, but twice.
    const config = ts.server.config;
    const reopen = () => startServer(loadConfig({}, { port: ts.port, bind: '127.0.0.1', dataDir: ts.dataDir, shards: config.shards, logLevel: 'silent' }));
    await ts.server.close();
    const again = await reopen();
    const me = await json(ts, jar, 'GET', '/users/me');
    t.equal(me.status, 200, 'the session works after a restart');
    await again.close();
    await editRealms((realm) => void (realm.realm.deactivated = true))(config);
    const last = await reopen();
    t.teardown(() => last.close());
    const page = await browse(ts, 'GET', '/login/');
    t.equal(page.status, 403, 'the login page of a deactivated organization');
    t.match(page.text, /This organization has been deactivated\./, 'says so');
    const post = await browse(ts, 'POST', '/login/', { form: { username: 'alice@example.com', password: 'alice-password-1' }, headers: { origin } });
    t.match(post.text, /This organization has been deactivated\./, 'and so does a login');
    t.equal((await json(ts, jar, 'GET', '/users/me')).json.code, 'REALM_DEACTIVATED', 'the session answers REALM_DEACTIVATED');
  });
});
