import t from 'tap';
import { field, http, serveDir, stoa, stoaOk, tempDir } from './run.js';

const ROLES = { owner: 100, admin: 200, moderator: 300, member: 400, guest: 600 } as const;

t.test('stoa user create', async (t) => {
  const dir = tempDir(t);
  await stoaOk(dir, ['realm', 'create', '--subdomain', 'acme', '--name', 'Acme', '--owner-email', 'boss@acme.test']);
  await stoaOk(dir, ['realm', 'create', '--subdomain', '', '--name', 'Root', '--owner-email', 'root@example.com']);

  const created: { email: string; apiKey: string; role: number; host: string; password?: string }[] = [];

  for (const [name, role] of Object.entries(ROLES)) {
    t.test(`creates a user with --role ${name}`, async (t) => {
      const email = `${name}@acme.test`;
      const res = await stoa(dir, ['user', 'create', '--realm', 'acme', '--email', email, '--full-name', `The ${name}`, '--role', name]);
      t.equal(res.code, 0, `exits 0 (stderr: ${res.stderr})`);
      t.match(res.stdout, new RegExp(`^Created ${name} ${email} \\(user id \\d+\\) in realm "acme"`), 'says what was created');
      const apiKey = field(res.stdout, 'API key')!;
      t.match(apiKey, /^[A-Za-z0-9]{32}$/, 'prints the API key');
      const password = field(res.stdout, 'password');
      t.match(password, /^[A-Za-z0-9]{12,}$/, 'prints the generated password');
      created.push({ email, apiKey, role, host: 'acme.localhost', password });
    });
  }

  t.test('defaults to member, and prints no password when one is given', async (t) => {
    const res = await stoa(dir, ['user', 'create', '--realm', 'acme', '--email', 'pat@acme.test', '--full-name', 'Pat', '--password', 'pat-password-1']);
    t.equal(res.code, 0, `exits 0 (stderr: ${res.stderr})`);
    t.match(res.stdout, /^Created member pat@acme\.test/, 'the role is member');
    t.equal(field(res.stdout, 'password'), undefined, 'the given password is not echoed');
    created.push({ email: 'pat@acme.test', apiKey: field(res.stdout, 'API key')!, role: 400, host: 'acme.localhost', password: 'pat-password-1' });
  });

  t.test("--realm '' names the root realm", async (t) => {
    const res = await stoa(dir, ['user', 'create', '--realm', '', '--email', 'rooty@example.com', '--full-name', 'Rooty']);
    t.equal(res.code, 0, `exits 0 (stderr: ${res.stderr})`);
    t.match(res.stdout, /in the root realm/, 'says the root realm');
    created.push({ email: 'rooty@example.com', apiKey: field(res.stdout, 'API key')!, role: 400, host: 'localhost' });
  });

  t.test('the server authenticates every created user with their role, in their realm only', async (t) => {
    const server = await serveDir(t, dir);
    for (const user of created) {
      const host = `${user.host}:${server.port}`;
      const me = await http(server.port, { path: '/users/me', host, auth: user });
      t.equal(me.status, 200, `${user.email} authenticates at ${user.host}`);
      t.equal(me.body.email, user.email, `${user.email}: /users/me is theirs`);
      t.equal(me.body.role, user.role, `${user.email}: role ${user.role}`);
      const other = user.host === 'localhost' ? `acme.localhost:${server.port}` : `localhost:${server.port}`;
      const elsewhere = await http(server.port, { path: '/users/me', host: other, auth: user });
      t.equal(elsewhere.status, 401, `${user.email}: the key does not work in the other realm`);
      t.same([elsewhere.body.code, elsewhere.body.msg], ['UNAUTHORIZED', 'Invalid API key'], `${user.email}: an invalid key elsewhere`);
      if (user.password) {
        const login = await http(server.port, { method: 'POST', path: '/fetch_api_key', host, form: { username: user.email, password: user.password } });
        t.equal(login.status, 200, `${user.email}: the printed password logs in`);
        t.equal(login.body.api_key, user.apiKey, `${user.email}: and yields the printed API key`);
      }
    }
  });
});
