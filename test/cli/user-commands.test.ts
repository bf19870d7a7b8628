import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { field, http, serveDir, stoa, stoaOk, tempDir } from './run.js';

/**
 * `stoa user list|create|set-role|deactivate|reactivate|reset-password|unlock|set-email` while a
 * server runs: through its admin socket, with the effects visible over HTTP at once (the server
 * holds the realms in memory, so a change beside it would be lost); and without a server, on the
 * stores. `stoa realm list` shows the running server's URLs, and `realm create` is served at once.
 */
t.test('stoa user commands through a running server', async (t) => {
  const dir = tempDir(t);
  const made = await stoaOk(dir, ['realm', 'create', '--subdomain', '', '--name', 'Root', '--owner-email', 'owner@example.com', '--password', 'owner-password-1']);
  const owner = { email: 'owner@example.com', apiKey: field(made, 'owner API key')! };
  const server = await serveDir(t, dir);
  const host = server.config.externalHost;
  const api = (path: string, opts: Parameters<typeof http>[1] extends infer O ? Partial<O> : never = {}) => http(server.port, { path, host, ...opts });

  const created = await stoaOk(dir, ['user', 'create', '--realm', '', '--email', 'alice@example.com', '--full-name', 'Alice', '--password', 'alice-password-1']);
  const alice = { email: 'alice@example.com', apiKey: field(created, 'API key')! };
  const aliceId = Number(/user id (\d+)/.exec(created)![1]);
  t.equal((await api('/users/me', { auth: alice })).status, 200, 'user create: the new account works at once');

  t.test('list', async (t) => {
    const text = await stoaOk(dir, ['user', 'list', '--realm', '']);
    t.match(text, /^ID\s+EMAIL\s+NAME\s+ROLE\s+STATUS$/m, 'a table');
    t.match(text, new RegExp(`^${aliceId}\\s+alice@example\\.com\\s+Alice\\s+member\\s+active$`, 'm'), 'with the new member');
    const json = JSON.parse(await stoaOk(dir, ['user', 'list', '--realm', '', '--json']));
    t.match(json.find((u: { email: string }) => u.email === 'owner@example.com'), { role: 'owner', active: true, bot: false }, '--json: the owner');
    t.notOk(json.some((u: { email: string }) => u.email.startsWith('notification-bot')), 'system bots are left out');
  });

  t.test('set-role', async (t) => {
    t.equal(await stoaOk(dir, ['user', 'set-role', '--realm', '', '--user', 'alice@example.com', '--role', 'admin']), 'alice@example.com is now admin\n', 'says what it did');
    t.equal((await api(`/users/${aliceId}`, { auth: owner })).body.user.role, 200, 'the server sees the new role');
    const last = await stoa(dir, ['user', 'set-role', '--realm', '', '--user', 'owner@example.com', '--role', 'member']);
    t.equal(last.code, 1, 'the only owner keeps the role');
    t.match(last.stderr, /^stoa: owner@example\.com is the only owner: make another owner first\n$/, 'saying why');
    const bad = await stoa(dir, ['user', 'set-role', '--realm', '', '--user', 'alice@example.com', '--role', 'king']);
    t.match(bad.stderr, /invalid role "king": use one of owner, admin, moderator, member, guest/, 'an unknown role is named');
    const nobody = await stoa(dir, ['user', 'set-role', '--realm', '', '--user', 'nobody@example.com', '--role', 'member']);
    t.match(nobody.stderr, /no user nobody@example\.com in this realm/, 'and an unknown user');
  });

  t.test('deactivate and reactivate', async (t) => {
    t.equal(await stoaOk(dir, ['user', 'deactivate', '--realm', '', '--user', String(aliceId)]), 'alice@example.com is now deactivated\n', 'deactivate (by id)');
    t.equal((await api('/users/me', { auth: alice })).body.code, 'USER_DEACTIVATED', 'the API key stops working at once');
    t.equal(await stoaOk(dir, ['user', 'deactivate', '--realm', '', '--user', 'alice@example.com']), 'alice@example.com was already deactivated\n', 'a repeat says so');
    t.equal(await stoaOk(dir, ['user', 'reactivate', '--realm', '', '--user', 'alice@example.com']), 'alice@example.com is now active\n', 'reactivate');
    t.equal((await api('/users/me', { auth: alice })).status, 200, 'the key works again');
  });

  t.test('unlock', async (t) => {
    for (let i = 0; i < 5; i++) await api('/fetch_api_key', { method: 'POST', form: { username: 'alice@example.com', password: 'wrong' } });
    const locked = await api('/fetch_api_key', { method: 'POST', form: { username: 'alice@example.com', password: 'alice-password-1' } });
    t.equal(locked.body.code, 'RATE_LIMIT_HIT', 'five failures lock the account out, right password or not');
    t.equal(await stoaOk(dir, ['user', 'unlock', '--realm', '', '--user', 'alice@example.com']), 'alice@example.com may log in again: the failed-login limit is cleared\n', 'unlock says so');
    t.equal((await api('/fetch_api_key', { method: 'POST', form: { username: 'alice@example.com', password: 'alice-password-1' } })).status, 200, 'and the password logs in');
  });

  t.test('reset-password', async (t) => {
    const out = await stoaOk(dir, ['user', 'reset-password', '--realm', '', '--user', 'alice@example.com']);
    t.match(out, /^One-time password reset link for alice@example\.com, valid until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC:\n {2}http:\/\/\S+\/accounts\/password\/reset\/[A-Za-z0-9_-]{43}\/\n$/, 'prints a link');
    const link = new URL(/(http\S+)/.exec(out)![1]);
    t.equal(link.host, host, 'on the server\'s own URL');
    const form = new URLSearchParams({ new_password: 'reset-password-9', new_password_confirm: 'reset-password-9' }).toString();
    const done = await fetch(`http://127.0.0.1:${server.port}${link.pathname}`, { method: 'POST', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    t.match(await done.text(), /Your password has been changed/, 'the link sets a new password');
    t.equal((await api('/fetch_api_key', { method: 'POST', form: { username: 'alice@example.com', password: 'reset-password-9' } })).status, 200, 'which logs in');
  });

  t.test('set-email', async (t) => {
    const queue = await api('/register', { method: 'POST', auth: alice, form: { event_types: '["realm_user"]' } });
    const out = await stoaOk(dir, ['user', 'set-email', '--realm', '', '--user', 'owner@example.com', '--new-email', 'boss@example.org']);
    t.equal(out, `owner@example.com is now boss@example.org\n  ${join(dir, 'zuliprc')} updated\n`, 'says so, and that the zuliprc followed');
    t.match(readFileSync(join(dir, 'zuliprc'), 'utf8'), /^email=boss@example\.org$/m, 'the zuliprc has the new address');
    const boss = { email: 'boss@example.org', apiKey: owner.apiKey };
    t.equal((await api('/users/me', { auth: boss })).body.email, 'boss@example.org', 'the new address authenticates');
    t.equal((await api('/users/me', { auth: owner })).status, 401, 'the old one does not');
    const events = await api(`/events?queue_id=${encodeURIComponent(queue.body.queue_id)}&last_event_id=-1&dont_block=true`, { auth: alice });
    const people = (events.body.events as { type: string; person?: Record<string, unknown> }[]).filter((e) => e.type === 'realm_user').map((e) => e.person);
    const ownerId = (await api('/users/me', { auth: boss })).body.user_id;
    t.same(people, [{ user_id: ownerId, delivery_email: 'boss@example.org' }, { user_id: ownerId, new_email: 'boss@example.org' }], 'other users\' clients hear of it as the reference tells them');
    const taken = await stoa(dir, ['user', 'set-email', '--realm', '', '--user', 'boss@example.org', '--new-email', 'alice@example.com']);
    t.match(taken.stderr, /alice@example\.com is already the address of user/, 'an address in use is refused');
  });

  t.test('realm list and realm create', async (t) => {
    const rows = JSON.parse(await stoaOk(dir, ['realm', 'list', '--json']));
    t.equal(rows[0].url, `http://${host}`, `realm list shows the running server's URL (port ${server.port}), not this shell's STOA_PORT`);
    const beta = await stoaOk(dir, ['realm', 'create', '--subdomain', 'beta', '--name', 'Beta', '--owner-email', 'b@beta.test']);
    t.match(beta, new RegExp(`Created organization "Beta" at http://beta\\.${host.replace(/\./g, '\\.')}`), 'realm create through the server');
    const settings = await http(server.port, { path: '/server_settings', host: `beta.${host}` });
    t.equal(settings.body.realm_name, 'Beta', 'which serves it at once');
    t.equal(await stoaOk(dir, ['realm', 'deactivate', '--realm', 'beta']), 'realm "beta" is now deactivated\n', 'realm deactivate through the server');
  });

  t.test('without a server', async (t) => {
    await server.close();
    const list = JSON.parse(await stoaOk(dir, ['user', 'list', '--realm', '', '--json']));
    t.ok(list.some((u: { email: string }) => u.email === 'boss@example.org'), 'list reads the stores');
    t.match(await stoaOk(dir, ['user', 'unlock', '--realm', '', '--user', 'alice@example.com']), /^No server is running: alice@example\.com has no failed-login limit to clear/, 'unlock says there is nothing to clear');
    t.equal(await stoaOk(dir, ['user', 'set-role', '--realm', '', '--user', 'alice@example.com', '--role', 'moderator']), 'alice@example.com is now moderator\n', 'writes work on the stores');
  });
});
