import t from 'tap';
import { stoa, stoaOk, tempDir } from './run.js';

t.test('stoa user create: errors', async (t) => {
  const dir = tempDir(t);
  await stoaOk(dir, ['realm', 'create', '--subdomain', 'acme', '--name', 'Acme', '--owner-email', 'boss@acme.test']);
  await stoaOk(dir, ['user', 'create', '--realm', 'acme', '--email', 'al@acme.test', '--full-name', 'Al']);

  const users = async () => JSON.parse(await stoaOk(dir, ['realm', 'list', '--json']))[0].users;

  const cases: [string, string[], RegExp][] = [
    ['an unknown realm', ['--realm', 'nope', '--email', 'x@acme.test', '--full-name', 'X'], /^stoa: no realm with subdomain "nope" \(see: stoa realm list\)\n$/],
    ["the root realm when there is none", ['--realm', '', '--email', 'x@acme.test', '--full-name', 'X'], /^stoa: no root realm \(see: stoa realm list\)\n$/],
    ['a duplicate email', ['--realm', 'acme', '--email', 'al@acme.test', '--full-name', 'Al 2'], /^stoa: Email 'al@acme\.test' already in use\n$/],
    ['a duplicate email in another case', ['--realm', 'acme', '--email', 'AL@Acme.test', '--full-name', 'Al 2'], /^stoa: Email 'AL@Acme\.test' already in use\n$/],
    ['the owner\'s email', ['--realm', 'acme', '--email', 'boss@acme.test', '--full-name', 'B'], /already in use/],
    ['an invalid role', ['--realm', 'acme', '--email', 'x@acme.test', '--full-name', 'X', '--role', 'boss'], /^stoa: invalid role "boss": use one of owner, admin, moderator, member, guest\n$/],
    ['a numeric role', ['--realm', 'acme', '--email', 'x@acme.test', '--full-name', 'X', '--role', '100'], /^stoa: invalid role "100"/],
    ['an invalid email', ['--realm', 'acme', '--email', 'nobody', '--full-name', 'X'], /^stoa: Invalid email 'nobody'\n$/],
    ['an empty full name', ['--realm', 'acme', '--email', 'x@acme.test', '--full-name', ' '], /^stoa: Name too short!\n$/],
    ['a missing --realm', ['--email', 'x@acme.test', '--full-name', 'X'], /required option '--realm <subdomain>' not specified/],
    ['a missing --full-name', ['--realm', 'acme', '--email', 'x@acme.test'], /required option '--full-name <full name>' not specified/],
  ];
  for (const [what, args, message] of cases) {
    t.test(`refuses ${what}`, async (t) => {
      const res = await stoa(dir, ['user', 'create', ...args]);
      t.equal(res.code, 1, 'exits 1');
      t.match(res.stderr, message, 'prints a clear message');
      t.equal(res.stdout, '', 'prints no credentials');
    });
  }

  t.test('the refused commands added no user', async (t) => {
    t.equal(await users(), 2, 'the realm still has its owner and one user');
  });
});
