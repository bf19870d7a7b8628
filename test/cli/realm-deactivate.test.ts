import t from 'tap';
import { field, http, serveDir, stoa, stoaOk, tempDir } from './run.js';

t.test('stoa realm deactivate / reactivate', async (t) => {
  const dir = tempDir(t);
  const out = await stoaOk(dir, ['realm', 'create', '--subdomain', 'acme', '--name', 'Acme', '--owner-email', 'boss@acme.test', '--password', 'boss-password-1']);
  const boss = { email: 'boss@acme.test', apiKey: field(out, 'owner API key')! };
  const beta = await stoaOk(dir, ['realm', 'create', '--subdomain', 'beta', '--name', 'Beta', '--owner-email', 'b@beta.test']);
  const betaOwner = { email: 'b@beta.test', apiKey: field(beta, 'owner API key')! };

  t.test('deactivate marks the realm, and repeating it is harmless', async (t) => {
    const res = await stoa(dir, ['realm', 'deactivate', '--realm', 'acme']);
    t.equal(res.code, 0, `exits 0 (stderr: ${res.stderr})`);
    t.equal(res.stdout, 'realm "acme" is now deactivated\n', 'says so');
    const again = await stoa(dir, ['realm', 'deactivate', '--realm', 'acme']);
    t.equal(again.code, 0, 'a second deactivate exits 0');
    t.equal(again.stdout, 'realm "acme" was already deactivated\n', 'and says nothing changed');
  });

  t.test('the server refuses the deactivated realm only (an API key: UNAUTHORIZED, saying why; a password login: REALM_DEACTIVATED)', async (t) => {
    const server = await serveDir(t, dir);
    const me = await http(server.port, { path: '/users/me', host: `acme.localhost:${server.port}`, auth: boss });
    t.equal(me.status, 401, 'status 401');
    t.equal(me.body.code, 'UNAUTHORIZED', 'code UNAUTHORIZED, as the reference answers an API key');
    t.equal(me.body.msg, 'This organization has been deactivated', "the reference's message");
    const login = await http(server.port, { method: 'POST', path: '/fetch_api_key', host: `acme.localhost:${server.port}`, form: { username: boss.email, password: 'boss-password-1' } });
    t.equal(login.body.code, 'REALM_DEACTIVATED', 'password login is refused too');
    const other = await http(server.port, { path: '/users/me', host: `beta.localhost:${server.port}`, auth: betaOwner });
    t.equal(other.status, 200, 'the other realm still works');
    await server.close();
  });

  t.test('reactivate restores access with the same credentials', async (t) => {
    const res = await stoa(dir, ['realm', 'reactivate', '--realm', 'acme']);
    t.equal(res.code, 0, `exits 0 (stderr: ${res.stderr})`);
    t.equal(res.stdout, 'realm "acme" is now active\n', 'says so');
    const again = await stoa(dir, ['realm', 'reactivate', '--realm', 'acme']);
    t.equal(again.stdout, 'realm "acme" was already active\n', 'a second reactivate changes nothing');
    const server = await serveDir(t, dir);
    const me = await http(server.port, { path: '/users/me', host: `acme.localhost:${server.port}`, auth: boss });
    t.equal(me.status, 200, 'the owner authenticates again');
    t.equal(me.body.email, boss.email, 'as themselves');
    await server.close();
  });

  t.test('errors', async (t) => {
    for (const cmd of ['deactivate', 'reactivate']) {
      const unknown = await stoa(dir, ['realm', cmd, '--realm', 'nope']);
      t.equal(unknown.code, 1, `${cmd} of an unknown realm exits 1`);
      t.equal(unknown.stderr, 'stoa: no realm with subdomain "nope" (see: stoa realm list)\n', `${cmd} names the unknown realm`);
      const missing = await stoa(dir, ['realm', cmd]);
      t.equal(missing.code, 1, `${cmd} without --realm exits 1`);
      t.match(missing.stderr, /required option '--realm <subdomain>' not specified/, `${cmd} asks for --realm`);
    }
  });
});
