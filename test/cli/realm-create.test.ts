import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { field, stoa, stoaOk, tempDir } from './run.js';

/** The [api] section of a zuliprc as a map. */
function zuliprc(path: string): Record<string, string> {
  const text = readFileSync(path, 'utf8');
  const lines = text.trim().split('\n');
  const out: Record<string, string> = { section: lines[0] };
  for (const line of lines.slice(1)) {
    const eq = line.indexOf('=');
    out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

t.test('stoa realm create', async (t) => {
  t.test('creates the realm and writes the owner\'s zuliprc', async (t) => {
    const dir = tempDir(t);
    const res = await stoa(dir, ['realm', 'create', '--subdomain', 'acme', '--name', 'Acme Inc', '--owner-email', 'boss@acme.test', '--owner-name', 'Bo Ss']);
    t.equal(res.code, 0, `exits 0 (stderr: ${res.stderr})`);
    t.match(res.stdout, /Created organization "Acme Inc" at http:\/\/acme\.localhost:9991/, 'names the realm and its URL');
    t.equal(field(res.stdout, 'owner email'), 'boss@acme.test', 'prints the owner email');
    t.match(field(res.stdout, 'owner password'), /^[A-Za-z0-9]{12,}$/, 'prints a generated password');
    const key = field(res.stdout, 'owner API key');
    t.match(key, /^[A-Za-z0-9]{32}$/, 'prints a 32-character API key');
    const path = join(dir, 'acme.zuliprc');
    t.equal(field(res.stdout, 'zuliprc'), path, 'prints the zuliprc path, <data dir>/<subdomain>.zuliprc');
    const rc = zuliprc(path);
    t.equal(rc.section, '[api]', 'the zuliprc has an [api] section');
    t.equal(rc.email, 'boss@acme.test', 'zuliprc email is the owner');
    t.equal(rc.key, key, 'zuliprc key is the printed API key');
    t.equal(rc.site, 'http://acme.localhost:9991', 'zuliprc site is http://<subdomain>.<external host>');
    t.equal(statSync(path).mode & 0o777, 0o600, 'the zuliprc is readable by its owner only');
  });

  t.test('uses the configured external host and the given password', async (t) => {
    const dir = tempDir(t);
    const res = await stoa(dir, ['realm', 'create', '--subdomain', 'beta', '--name', 'Beta', '--owner-email', 'b@beta.test', '--password', 'correct horse battery'], {
      STOA_EXTERNAL_HOST: 'chat.example.com',
    });
    t.equal(res.code, 0, `exits 0 (stderr: ${res.stderr})`);
    t.match(res.stdout, /owner password: correct horse battery$/m, 'the given password is printed as given');
    t.equal(zuliprc(join(dir, 'beta.zuliprc')).site, 'http://beta.chat.example.com', 'site follows STOA_EXTERNAL_HOST');
  });

  t.test("--subdomain '' makes the root realm, whose zuliprc is <data dir>/zuliprc", async (t) => {
    const dir = tempDir(t);
    const out = await stoaOk(dir, ['realm', 'create', '--subdomain', '', '--name', 'Root', '--owner-email', 'root@example.com']);
    t.equal(field(out, 'zuliprc'), join(dir, 'zuliprc'), 'the root realm writes the plain zuliprc');
    t.equal(zuliprc(join(dir, 'zuliprc')).site, 'http://localhost:9991', 'site is the external host itself');
  });

  t.test('refuses to guess realm URLs when the port is 0 and no external host is set', async (t) => {
    const dir = tempDir(t);
    const res = await stoa(dir, ['realm', 'create', '--subdomain', 'acme', '--name', 'Acme', '--owner-email', 'a@acme.test'], { STOA_PORT: '0' });
    t.equal(res.code, 1, 'exits 1');
    t.match(res.stderr, /^stoa: the port is 0 and externalHost is not set/, 'says why, in one line');
    const ok = await stoa(dir, ['realm', 'create', '--subdomain', 'acme', '--name', 'Acme', '--owner-email', 'a@acme.test'], { STOA_PORT: '0', STOA_EXTERNAL_HOST: 'chat.test' });
    t.equal(ok.code, 0, 'an external host makes the URL known');
  });

  t.test('--help describes the options', async (t) => {
    const out = await stoaOk(tempDir(t), ['realm', 'create', '--help']);
    for (const opt of ['--subdomain', '--name', '--owner-email', '--owner-name', '--password']) t.match(out, opt, `help lists ${opt}`);
  });
});
