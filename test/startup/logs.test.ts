import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { field, http, tempDir } from '../cli/run.js';
import { spawnServer } from './spawn.js';

/**
 * What a running server writes on stdout for an operator: one access line per request (method,
 * route template, status, time, user id, client address) and audit lines for logins, failed
 * logins, account and role changes, invitations and settings changes; none of them holding a
 * secret. Through a server started as `npm start` starts it, with the default log level.
 */
interface Line {
  kind?: string;
  [key: string]: unknown;
}

t.test('access and audit lines', async (t) => {
  const dataDir = tempDir(t, 'stoa-logs-');
  const server = await spawnServer(t, { STOA_PORT: '0', STOA_DATA_DIR: dataDir });
  const host = `localhost:${server.port}`;
  const out = server.stdout();
  const owner = { email: field(out, 'owner email')!, apiKey: field(out, 'owner API key')! };
  const password = field(out, 'owner password')!;
  const ownerId = (await http(server.port, { path: '/users/me', host, auth: owner })).body.user_id as number;

  await http(server.port, { method: 'POST', path: '/fetch_api_key', host, form: { username: owner.email, password: 'wrong-password' } });
  await http(server.port, { method: 'POST', path: '/fetch_api_key', host, form: { username: owner.email, password } });
  const created = await http(server.port, { method: 'POST', path: '/users', host, auth: owner, form: { email: 'newcomer@example.com', password: 'newcomer-secret-1', full_name: 'New Comer' } });
  await http(server.port, { method: 'PATCH', path: `/users/${created.body.user_id}`, host, auth: owner, form: { role: '200' } });
  await http(server.port, { method: 'PATCH', path: '/realm', host, auth: owner, form: { name: 'Renamed' } });
  const link = await http(server.port, { method: 'POST', path: '/invites/multiuse', host, auth: owner, form: { invite_as: '400' } });
  const key = /\/join\/([^/]+)\//.exec(link.body.invite_link)![1];
  await fetch(`http://127.0.0.1:${server.port}/join/${key}/`, { headers: { host } });
  await http(server.port, { method: 'DELETE', path: `/users/${created.body.user_id}`, host, auth: owner });
  // The owner's address changes: the link, with no mail server, is in the outbox.
  await http(server.port, { method: 'PATCH', path: '/settings', host, auth: owner, form: { email: 'boss@example.com' } });
  const outbox = join(dataDir, 'outbox');
  // The mailer writes `<name>.eml.tmp` and renames it, so only finished `.eml` files are read,
  // and a link is waited for: the mail is written after the request is answered.
  const inOutbox = async (pattern: RegExp): Promise<string> => {
    for (const until = Date.now() + 30_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
      for (const f of readdirSync(outbox).filter((name) => name.endsWith('.eml'))) {
        const found = pattern.exec(readFileSync(join(outbox, f), 'utf8').replace(/=\r?\n/g, ''))?.[1];
        if (found) return found;
      }
    }
    throw new Error(`no mail in the outbox matches ${pattern}`);
  };
  const changeKey = await inOutbox(/\/accounts\/confirm_new_email\/([A-Za-z0-9_-]{43})/);
  await fetch(`http://127.0.0.1:${server.port}/accounts/confirm_new_email/`, { method: 'POST', headers: { host, 'content-type': 'application/x-www-form-urlencoded' }, body: `key=${changeKey}` });
  // And a password reset, asked for and used (its link, too, is in the outbox).
  const form = { host, 'content-type': 'application/x-www-form-urlencoded' };
  await fetch(`http://127.0.0.1:${server.port}/accounts/password/reset/`, { method: 'POST', headers: form, body: 'email=boss%40example.com' });
  const resetToken = await inOutbox(/\/accounts\/password\/reset\/([A-Za-z0-9_-]+)\//);
  await fetch(`http://127.0.0.1:${server.port}/accounts/password/reset/${resetToken}/`, { method: 'POST', headers: form, body: 'new_password=a-new-password-1&new_password_confirm=a-new-password-1' });

  const lines = (): Line[] =>
    server
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Line);
  // The last request's line is written once its answer has gone: wait for it.
  const deadline = Date.now() + 30_000;
  const written = () => lines().some((l) => l.kind === 'audit' && l.event === 'password_reset.done') && lines().some((l) => l.kind === 'access' && l.route === '/accounts/password/reset/{token}/');
  while (!written() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const all = lines();
  const access = all.filter((l) => l.kind === 'access');
  const audit = all.filter((l) => l.kind === 'audit');

  t.test('one access line per request', async (t) => {
    const me = access.find((l) => l.route === '/api/v1/users/me');
    t.match(me, { method: 'GET', route: '/api/v1/users/me', status: 200, user: ownerId, client: '127.0.0.1', proto: 'http' }, 'method, route, status, user and client');
    t.type(me?.ms, 'number', 'and the time it took');
    t.match(access.find((l) => l.route === '/api/v1/users/{user_id_or_email}'), { method: 'PATCH', status: 200, user: ownerId }, 'a route with a parameter is logged by its template');
    t.match(access.find((l) => l.route === '/join/{key}/'), { method: 'GET', status: 200, user: null }, 'and a page, without its key');
    t.match(access.filter((l) => l.route === '/api/v1/fetch_api_key').map((l) => l.status), [401, 200], 'a refused request is logged with its status');
  });

  t.test('audit lines', async (t) => {
    t.match(audit.find((l) => l.event === 'login' && l.outcome === 'refused'), { username: owner.email, code: 'AUTHENTICATION_FAILED', client: '127.0.0.1' }, 'a failed login');
    t.match(audit.find((l) => l.event === 'login' && l.outcome === 'ok'), { username: owner.email }, 'a login');
    t.match(audit.find((l) => l.event === 'account.create'), { actor: ownerId, email: 'newcomer@example.com' }, 'an account made');
    t.match(audit.find((l) => l.event === 'account.update'), { actor: ownerId, target: String(created.body.user_id), role: '200', changed: ['role'] }, 'a role change, with the role');
    t.match(audit.find((l) => l.event === 'realm.settings'), { actor: ownerId, changed: ['name'] }, 'a settings change, naming the setting');
    t.match(audit.find((l) => l.event === 'invitation.create_link'), { actor: ownerId, invite_as: '400' }, 'an invitation');
    t.match(audit.find((l) => l.event === 'account.deactivate'), { actor: ownerId, target: String(created.body.user_id) }, 'a deactivation');
    t.match(audit.find((l) => l.event === 'account.settings' && (l.changed as string[]).includes('email')), { actor: ownerId, outcome: 'ok' }, 'an address change asked for');
    t.match(audit.find((l) => l.event === 'password_reset.request'), { email: 'boss@example.com', outcome: 'ok' }, 'a password reset asked for');
    t.match(audit.find((l) => l.event === 'password_reset.done'), { target: ownerId, outcome: 'ok' }, 'and done, naming the account');
    t.match(audit.find((l) => l.event === 'account.email'), { actor: ownerId, target: ownerId, old: owner.email, email: 'boss@example.com', outcome: 'ok' }, 'and made, with both addresses');
    t.match(access.find((l) => l.route === '/accounts/confirm_new_email/'), { method: 'POST', status: 200, user: ownerId }, 'its page logged by its route');
  });

  t.test('no secret in any line', async (t) => {
    const text = server.stdout().split('\n').filter((l) => l.startsWith('{')).join('\n');
    for (const [what, secret] of [['the API key', owner.apiKey], ['the owner password', password], ['the wrong password', 'wrong-password'], ['a new password', 'newcomer-secret-1'], ['an invitation key', key], ['an address change key', changeKey]] as const) {
      t.notOk(text.includes(secret), `not ${what}`);
    }
  });
});
