import t from 'tap';
import { field, http, tempDir } from '../../cli/run.js';
import { startTestServer } from '../../helpers/server.js';
import { spawnServer, type ServerProcess } from '../../startup/spawn.js';
import { startGroupWorld } from './world.js';

/** Groups, their members, subgroups, settings and deactivation survive a restart, graceful or not. */
t.test('user groups survive a restart', async (t) => {
  const w = await startGroupWorld(t);
  const { owner, hamlet, othello } = w.root;
  const inner = await w.create(owner, 'inner', { members: [othello.userId] });
  const outer = await w.create(hamlet, 'outer', { members: [hamlet.userId], subgroups: [inner], can_mention_group: { direct_members: [othello.userId], direct_subgroups: [inner] } });
  await w.ok(owner, 'POST', `/user_groups/${outer}/members`, { add: [w.moderator.userId] });
  const gone = await w.create(owner, 'gone');
  await w.ok(owner, 'POST', `/user_groups/${gone}/deactivate`);
  await w.ok(owner, 'PATCH', '/realm', { can_create_groups: { new: outer } });
  const list = async () => (await w.ok(owner, 'GET', '/user_groups', { include_deactivated_groups: true })).user_groups;
  const before = await list();

  // Graceful stop, then a start on the same data.
  await w.ts.close();
  const second = await startTestServer(t, {}, { dataDir: w.ts.dataDir });
  w.ts.request = second.request;
  t.same(await list(), before, 'every group as it was');
  t.same((await w.ok(owner, 'GET', `/user_groups/${outer}/members`)).members, [hamlet.userId, othello.userId, w.moderator.userId].sort((a, b) => a - b), 'recursive members');
  t.equal((await w.fails(w.root.admin, 'POST', '/user_groups/create', { name: 'x', description: '', members: [] })).msg, 'Insufficient permission', 'the realm setting still names outer: the administrator is not in it');
  t.ok(await w.create(othello, 'by-othello'), 'othello is, through inner');
  t.ok(await w.create(hamlet, 'new-after-restart'), 'a member of outer may create groups');
  const ids = (await list()).map((g: { id: number }) => g.id);
  t.equal(new Set(ids).size, ids.length, 'new ids do not collide with old ones');
  const system = (await list()).find((g: { name: string }) => g.name === 'role:members');
  t.equal(system.can_mention_group, w.system['role:nobody'], 'system group settings stay role:nobody');
});

t.test('user groups survive kill -9', async (t) => {
  const dataDir = tempDir(t, 'stoa-groups-crash-');
  const env = { STOA_PORT: '0', STOA_DATA_DIR: dataDir };
  const first = await spawnServer(t, env);
  const owner = { email: field(first.stdout(), 'owner email')!, apiKey: field(first.stdout(), 'owner API key')! };
  const call = async (server: ServerProcess, method: string, path: string, form: Record<string, string> = {}) => {
    const query = method === 'GET' ? `?${new URLSearchParams(form)}` : '';
    const res = await http(server.port, { method, path: path + query, host: `localhost:${server.port}`, auth: owner, form: query ? undefined : form });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const me = (await call(first, 'GET', '/users/me')).user_id as number;
  const a = (await call(first, 'POST', '/user_groups/create', { name: 'a', description: 'A', members: JSON.stringify([me]) })).group_id as number;
  const b = (await call(first, 'POST', '/user_groups/create', { name: 'b', description: 'B', members: '[]', subgroups: JSON.stringify([a]) })).group_id as number;
  await call(first, 'PATCH', `/user_groups/${b}`, { description: 'B2', can_mention_group: JSON.stringify({ new: a }) });
  await call(first, 'POST', `/user_groups/${a}/members`, { delete: JSON.stringify([me]) });
  const list = (server: ServerProcess) => call(server, 'GET', '/user_groups', { include_deactivated_groups: 'true' }).then((body) => body.user_groups);
  const before = await list(first);
  t.equal((await first.stop('SIGKILL')).signal, 'SIGKILL', 'killed, with no chance to save');

  const second = await spawnServer(t, env);
  t.same(await list(second), before, 'every acknowledged change is there');
  t.match(before.find((g: { id: number }) => g.id === b), { description: 'B2', can_mention_group: a, direct_subgroup_ids: [a] });
  t.same(before.find((g: { id: number }) => g.id === a).members, [], 'the removal too');
  await second.stop('SIGTERM');
});
