import t from 'tap';
import { field, http, tempDir } from '../../cli/run.js';
import { spawnServer, type ServerProcess } from '../../startup/spawn.js';
import { botServer, eventually } from './bot-server.js';

/**
 * kill -9 after a message is sent and before its outgoing webhook is delivered: the delivery is
 * a job written with the message, so the restarted server delivers it, and the reply appears once.
 */
t.test('outgoing webhook delivery survives kill -9', async (t) => {
  const dataDir = tempDir(t, 'stoa-owh-crash-');
  const env = { STOA_PORT: '0', STOA_DATA_DIR: dataDir, STOA_WEBHOOK_ALLOW_PRIVATE_ADDRESSES: '1' };
  let first: ServerProcess | null = await spawnServer(t, env);
  const owner = { email: field(first.stdout(), 'owner email')!, apiKey: field(first.stdout(), 'owner API key')! };
  const call = (server: ServerProcess, method: string, path: string, form: Record<string, string> = {}) => {
    const query = method === 'GET' ? `?${new URLSearchParams(form)}` : '';
    return http(server.port, { method, path: path + query, host: `localhost:${server.port}`, auth: owner, form: query ? undefined : form });
  };

  // The first delivery hangs: the server is killed while the bot server holds it.
  let gotFirst: () => void = () => {};
  const firstArrived = new Promise<void>((resolve) => (gotFirst = resolve));
  const bots = await botServer(t, (n) => {
    if (n === 0) {
      gotFirst();
      return 'hang';
    }
    return { status: 200, body: JSON.stringify({ content: 'delivered after the crash' }) };
  });
  const created = await call(first, 'POST', '/bots', { full_name: 'Crash Bot', short_name: 'crash', bot_type: '3', payload_url: JSON.stringify(bots.url) });
  t.equal(created.status, 200, 'outgoing webhook bot created');
  const botId = created.body.user_id as number;
  const sent = await call(first, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'crash', content: '@**Crash Bot** are you there?' });
  t.equal(sent.status, 200, 'the message is sent');

  await firstArrived;
  const narrow = JSON.stringify([{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'crash' }]);
  const replies = async (server: ServerProcess) => {
    const res = await call(server, 'GET', '/messages', { anchor: 'newest', num_before: '20', num_after: '0', narrow, apply_markdown: 'false' });
    return (res.body.messages as { sender_id: number; content: string }[]).filter((m) => m.sender_id === botId);
  };
  t.same(await replies(first), [], 'no reply before the crash: the delivery is in flight');
  t.equal((await first.stop('SIGKILL')).signal, 'SIGKILL', 'killed after the send, before the delivery');
  first = null;

  const second = await spawnServer(t, env);
  const reply = await eventually(async () => ((await replies(second)).length > 0 ? replies(second) : undefined), 20_000);
  t.same(reply?.map((m) => m.content), ['delivered after the crash'], 'delivered after the restart');
  t.equal(bots.received.length, 2, 'the bot server got the delivery again');
  t.equal(bots.received[1].json.message.id, sent.body.id, 'for the same message');
  await new Promise((r) => setTimeout(r, 2000));
  t.equal((await replies(second)).length, 1, 'once');
  t.equal(bots.received.length, 2, 'and no further request');
});
