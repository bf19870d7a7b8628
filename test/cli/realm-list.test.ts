import { existsSync, readdirSync } from 'node:fs';
import t from 'tap';
import { serveDir, stoa, stoaOk, tempDir } from './run.js';

t.test('stoa realm list', async (t) => {
  t.test('on an empty data directory says so and creates nothing', async (t) => {
    const dir = tempDir(t);
    const res = await stoa(dir, ['realm', 'list']);
    t.equal(res.code, 0, 'exits 0');
    t.match(res.stdout, /^No realms in .* yet \(the server creates the root realm on its first start\)\.\n$/, 'says there are no realms');
    t.same(JSON.parse(await stoaOk(dir, ['realm', 'list', '--json'])), [], '--json prints an empty list');
    t.same(readdirSync(dir), [], 'the data directory is left empty');
  });

  t.test('lists subdomain, name, id, shard, URL, active users and status', async (t) => {
    const dir = tempDir(t);
    await stoaOk(dir, ['realm', 'create', '--subdomain', '', '--name', 'Root Org', '--owner-email', 'root@example.com']);
    await stoaOk(dir, ['realm', 'create', '--subdomain', 'acme', '--name', 'Acme Inc', '--owner-email', 'boss@acme.test']);
    await stoaOk(dir, ['user', 'create', '--realm', 'acme', '--email', 'al@acme.test', '--full-name', 'Al']);
    await stoaOk(dir, ['user', 'create', '--realm', 'acme', '--email', 'bo@acme.test', '--full-name', 'Bo', '--role', 'guest']);
    await stoaOk(dir, ['realm', 'deactivate', '--realm', 'acme']);

    const rows = JSON.parse(await stoaOk(dir, ['realm', 'list', '--json']));
    t.equal(rows.length, 2, 'two realms');
    const [root, acme] = rows;
    t.match(root, { subdomain: '', name: 'Root Org', id: 1, url: 'http://localhost:9991', users: 1, deactivated: false }, 'the root realm');
    t.match(acme, { subdomain: 'acme', name: 'Acme Inc', id: 2, url: 'http://acme.localhost:9991', users: 3, deactivated: true }, 'the acme realm');
    for (const row of rows) t.ok(Number.isInteger(row.shard) && row.shard >= 0 && row.shard < 2, `${row.name}: a shard of the 2 configured`);

    const table = await stoaOk(dir, ['realm', 'list']);
    const lines = table.trim().split('\n');
    t.match(lines[0], /^SUBDOMAIN\s+NAME\s+ID\s+SHARD\s+URL\s+USERS\s+STATUS$/, 'a header row');
    t.match(lines[1], new RegExp(`^''\\s+Root Org\\s+1\\s+${root.shard}\\s+http://localhost:9991\\s+1\\s+active$`), "the root realm's row shows '' as its subdomain");
    t.match(lines[2], new RegExp(`^acme\\s+Acme Inc\\s+2\\s+${acme.shard}\\s+http://acme\\.localhost:9991\\s+3\\s+deactivated$`), "acme's row");
    const urls = JSON.parse(await stoaOk(dir, ['realm', 'list', '--json'], { STOA_EXTERNAL_HOST: 'chat.example.com' })).map((r: { url: string }) => r.url);
    t.same(urls, ['http://chat.example.com', 'http://acme.chat.example.com'], 'URLs follow the external host');
  });

  t.test('runs while the server runs, and sees its changes', async (t) => {
    const dir = tempDir(t);
    const server = await serveDir(t, dir);
    const rows = JSON.parse(await stoaOk(dir, ['realm', 'list', '--json']));
    t.equal(rows.length, 1, 'the bootstrap root realm is listed');
    t.equal(rows[0].users, 1, 'with its owner');
    t.equal(rows[0].name, server.bootstrap!.realm.name, 'by its name');
    t.ok(existsSync(`${dir}/stoa.pid`), 'the server still holds its lock');
  });
});
