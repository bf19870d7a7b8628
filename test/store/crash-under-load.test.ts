import t from 'tap';
import { field, http, tempDir } from '../cli/run.js';
import { spawnServer, type ServerProcess } from '../startup/spawn.js';

/**
 * kill -9 while sends are in flight, twice: every send the server acknowledged is there after
 * the restart, with its content, and nothing appears twice. (Sends cut off by the kill may or
 * may not have been stored; their clients were never told either way.)
 */
t.test('kill -9 under send load loses no acknowledged message', async (t) => {
  t.setTimeout(240_000);
  const dataDir = tempDir(t, 'stoa-crash-load-');
  const env = { STOA_PORT: '0', STOA_DATA_DIR: dataDir };
  let server: ServerProcess = await spawnServer(t, env);
  const owner = { email: field(server.stdout(), 'owner email')!, apiKey: field(server.stdout(), 'owner API key')! };
  const call = (s: ServerProcess, method: string, path: string, form?: Record<string, string>) => http(s.port, { method, path, host: `localhost:${s.port}`, auth: owner, form });
  const acked = new Map<number, string>();

  for (let cycle = 0; cycle < 2; cycle++) {
    let stop = false;
    const sender = async (k: number) => {
      for (let i = 0; !stop; i++) {
        const content = `cycle ${cycle} sender ${k} message ${i}`;
        try {
          const res = await call(server, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'crash', content });
          if (res.status === 200) acked.set(res.body.id, content);
          else throw new Error(`send refused: ${res.status} ${JSON.stringify(res.body)}`);
        } catch (err) {
          if (!stop) throw err;
        }
      }
    };
    const senders = Array.from({ length: 6 }, (_, k) => sender(k));
    const before = acked.size;
    while (acked.size < before + 60) await new Promise((r) => setTimeout(r, 20));
    // Killed with sends in flight: their answers never come.
    stop = true;
    t.equal((await server.stop('SIGKILL')).signal, 'SIGKILL', `cycle ${cycle}: killed under load`);
    await Promise.all(senders);
    server = await spawnServer(t, env);
    const page = await call(server, 'GET', `/messages?${new URLSearchParams({ anchor: 'newest', num_before: '5000', num_after: '0', narrow: JSON.stringify([['topic', 'crash']]), apply_markdown: 'false' })}`);
    const stored = new Map<number, string>(page.body.messages.map((m: { id: number; content: string }) => [m.id, m.content]));
    const missing = [...acked.keys()].filter((id) => stored.get(id) !== acked.get(id));
    t.same(missing, [], `cycle ${cycle}: all ${acked.size} acknowledged messages are there, with their content`);
    t.equal(new Set(page.body.messages.map((m: { content: string }) => m.content)).size, page.body.messages.length, 'none twice');
  }
  t.equal((await server.stop('SIGTERM')).code, 0, 'a clean stop at the end');
});
