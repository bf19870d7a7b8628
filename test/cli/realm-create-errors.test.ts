import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { stoa, stoaOk, tempDir } from './run.js';

const create = (dir: string, ...extra: string[]) => stoa(dir, ['realm', 'create', ...extra]);

t.test('stoa realm create: errors', async (t) => {
  const dir = tempDir(t);
  await stoaOk(dir, ['realm', 'create', '--subdomain', 'acme', '--name', 'Acme', '--owner-email', 'boss@acme.test']);

  /** What the data directory holds, to check that a refused command wrote nothing. */
  const realms = async () => JSON.parse(await stoaOk(dir, ['realm', 'list', '--json'])).map((r: { subdomain: string }) => r.subdomain);

  const cases: [string, string[], RegExp][] = [
    ['an upper-case subdomain', ['--subdomain', 'Beta', '--name', 'B', '--owner-email', 'b@b.test'], /^stoa: invalid subdomain "Beta": use lower-case letters, digits and inner hyphens\n$/],
    ['a subdomain with a trailing hyphen', ['--subdomain', 'beta-', '--name', 'B', '--owner-email', 'b@b.test'], /^stoa: invalid subdomain "beta-"/],
    ['a subdomain with a dot', ['--subdomain', 'a.b', '--name', 'B', '--owner-email', 'b@b.test'], /^stoa: invalid subdomain "a\.b"/],
    ['a subdomain already in use', ['--subdomain', 'acme', '--name', 'Other', '--owner-email', 'o@o.test'], /^stoa: subdomain "acme" is already in use\n$/],
    ['an invalid owner email', ['--subdomain', 'gamma', '--name', 'G', '--owner-email', 'not-an-email'], /^stoa: Invalid email 'not-an-email'\n$/],
    ['an empty realm name', ['--subdomain', 'delta', '--name', '  ', '--owner-email', 'd@d.test'], /^stoa: The organization name must be 1 to 40 characters\n$/],
    ['a realm name over 40 characters', ['--subdomain', 'delta', '--name', 'x'.repeat(41), '--owner-email', 'd@d.test'], /^stoa: The organization name must be 1 to 40 characters\n$/],
    ['an empty owner name', ['--subdomain', 'eps', '--name', 'E', '--owner-email', 'e@e.test', '--owner-name', ' '], /^stoa: Name too short!\n$/],
    ['a missing --subdomain', ['--name', 'X', '--owner-email', 'x@x.test'], /required option '--subdomain <subdomain>' not specified/],
    ['a missing --owner-email', ['--subdomain', 'zeta', '--name', 'Z'], /required option '--owner-email <email>' not specified/],
  ];
  for (const [what, args, message] of cases) {
    t.test(`refuses ${what}`, async (t) => {
      const res = await create(dir, ...args);
      t.equal(res.code, 1, 'exits 1');
      t.match(res.stderr, message, 'prints a clear message');
      t.equal(res.stdout, '', 'prints no credentials');
    });
  }

  t.test('the refused commands added no realm', async (t) => {
    t.same(await realms(), ['acme'], 'only the first realm is listed');
  });

  t.test('a refused realm leaves no zuliprc and does not burn its subdomain', async (t) => {
    t.notOk(existsSync(join(dir, 'gamma.zuliprc')), 'no zuliprc for the refused realm');
    const res = await create(dir, '--subdomain', 'gamma', '--name', 'G', '--owner-email', 'g@gamma.test');
    t.equal(res.code, 0, `the subdomain can be created once the input is right (stderr: ${res.stderr})`);
    t.same(await realms(), ['acme', 'gamma'], 'both realms are listed');
  });

  t.test('a bad config stops the command and names the option', async (t) => {
    const res = await stoa(dir, ['realm', 'list'], { STOA_SHARDS: 'many' });
    t.equal(res.code, 2, 'exits 2, as the server does for a bad config');
    t.match(res.stderr, /^stoa: STOA_SHARDS must be a non-negative integer, got "many"\n$/, 'names the variable');
  });
});
