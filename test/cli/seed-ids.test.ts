import t from 'tap';
import { http, serveDir, stoaOk, tempDir } from './run.js';

/**
 * Message ids are unique and increasing server-wide, also when written with no server running:
 * a command that opens one shard starts above every shard's mark, not its own.
 */
t.test('stoa seed on two realms of two shards: ids never repeat across shards', async (t) => {
  const dir = tempDir(t);
  const realms = ['', 'acme', 'beta', 'gamma'];
  for (const sub of realms) await stoaOk(dir, ['realm', 'create', '--subdomain', sub, '--name', `R${sub}`, '--owner-email', `o@${sub || 'root'}.test`]);
  const rows: { subdomain: string; shard: number }[] = JSON.parse(await stoaOk(dir, ['realm', 'list', '--json']));
  const shardOf = new Map(rows.map((r) => [r.subdomain, r.shard]));
  // Two realms on different shards (placement hashes the subdomain; four names reach both of two).
  const first = realms[0];
  const second = realms.find((sub) => shardOf.get(sub) !== shardOf.get(first));
  t.ok(second !== undefined, `two realms on two shards (${JSON.stringify(rows)})`);
  if (second === undefined) return;

  const seeded: { realm: string; users: { email: string; apiKey: string }[] }[] = [];
  for (const sub of [first, second]) {
    const out = await stoaOk(dir, ['seed', '--realm', sub, '--users', '3', '--channels', '1', '--messages', '20']);
    seeded.push({ realm: sub, users: JSON.parse(out).users });
  }

  const server = await serveDir(t, dir);
  const ids: number[][] = [];
  for (const { realm, users } of seeded) {
    const host = `${realm === '' ? '' : `${realm}.`}localhost:${server.port}`;
    const auth = { email: users[0].email, apiKey: users[0].apiKey };
    const res = await http(server.port, { path: '/messages?anchor=newest&num_before=100&num_after=0&narrow=[]', host, auth });
    t.equal(res.status, 200, `${realm || 'root'}: messages read`);
    ids.push(res.body.messages.map((m: { id: number }) => m.id));
  }
  t.ok(ids[0].length > 0 && ids[1].length > 0, 'both realms have messages');
  t.ok(Math.min(...ids[1]) > Math.max(...ids[0]), `the second seed's ids (${Math.min(...ids[1])}..) come after the first's (..${Math.max(...ids[0])})`);
});
