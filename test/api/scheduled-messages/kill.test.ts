import t from 'tap';
import { field, http, tempDir } from '../../cli/run.js';
import { freePort, spawnServer, type ServerProcess } from '../../startup/spawn.js';

/**
 * Scheduled messages through kill -9 and SIGTERM of a real server process (`node dist/src/main.js`):
 * due while the server runs and killed just after, due while it is down after kill -9 or
 * SIGTERM. Each is sent exactly once, and the ones due while it was down as soon as it is back.
 */
const now = () => Math.floor(Date.now() / 1000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const untilSecond = async (second: number) => {
  while (Date.now() < second * 1000) await sleep(100);
};

t.test('scheduled messages are sent exactly once across kill -9 and SIGTERM', async (t) => {
  const dataDir = tempDir(t, 'stoa-sched-kill-');
  const port = await freePort();
  const env = { STOA_PORT: String(port), STOA_DATA_DIR: dataDir, STOA_SHARDS: '1' };
  let server: ServerProcess = await spawnServer(t, env);
  const owner = { email: field(server.stdout(), 'owner email')!, apiKey: field(server.stdout(), 'owner API key')! };
  const call = async (method: string, path: string, form: Record<string, string> = {}) => {
    const query = method === 'GET' || method === 'DELETE' ? `?${new URLSearchParams(form)}` : '';
    const res = await http(port, { method, path: path + query, host: `localhost:${port}`, auth: owner, form: query ? undefined : form });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const schedule = async (content: string, at: number) =>
    (await call('POST', '/scheduled_messages', { type: 'stream', to: '1', topic: 'kill', content, scheduled_delivery_timestamp: String(at) })).scheduled_message_id as number;
  /** How often each content was sent to the topic. */
  const sentCounts = async () => {
    const narrow = JSON.stringify([{ operator: 'topic', operand: 'kill' }]);
    const body = await call('GET', '/messages', { anchor: 'newest', num_before: '1000', num_after: '0', narrow, apply_markdown: 'false' });
    const counts = new Map<string, number>();
    for (const m of body.messages as { content: string }[]) counts.set(m.content, (counts.get(m.content) ?? 0) + 1);
    return counts;
  };
  const pendingIds = async () => ((await call('GET', '/scheduled_messages')).scheduled_messages as { scheduled_message_id: number }[]).map((m) => m.scheduled_message_id);
  const waitSent = async (contents: string[], seconds = 20) => {
    const deadline = Date.now() + seconds * 1000;
    for (;;) {
      const counts = await sentCounts();
      if (contents.every((c) => counts.has(c)) || Date.now() > deadline) return counts;
      await sleep(200);
    }
  };
  const restart = async (signal: 'SIGKILL' | 'SIGTERM') => {
    const stopped = await server.stop(signal);
    t.ok(signal === 'SIGKILL' ? stopped.signal === 'SIGKILL' : stopped.code === 0, `${signal}: stopped`);
  };
  const all: string[] = [];

  // 1. Due while the server runs; kill -9 right after they are sent.
  const at1 = now() + 4;
  const running = ['due while running 1', 'due while running 2', 'due while running 3'];
  for (const c of running) await schedule(c, at1);
  all.push(...running);
  let counts = await waitSent(running);
  t.same(running.map((c) => counts.get(c)), [1, 1, 1], 'sent once each while running');
  await restart('SIGKILL');
  server = await spawnServer(t, env);

  // 2. Due while the server is down after kill -9: 20 of them, and one far in the future.
  const at2 = now() + 4;
  const whileKilled = Array.from({ length: 20 }, (_, i) => `due after kill -9 #${i}`);
  for (const c of whileKilled) await schedule(c, at2);
  const future = await schedule('not due yet', now() + 3600);
  all.push(...whileKilled);
  // A reminder, sent by the Notification Bot to the owner, goes the same way.
  const target = (await call('POST', '/messages', { type: 'stream', to: '1', topic: 'remind me', content: 'the reminded message' })).id as number;
  await call('POST', '/reminders', { message_id: String(target), scheduled_delivery_timestamp: String(at2), note: 'through kill -9' });
  await restart('SIGKILL');
  await untilSecond(at2 + 2);
  server = await spawnServer(t, env);
  const back = Date.now();
  counts = await waitSent(whileKilled);
  t.same(whileKilled.map((c) => counts.get(c)), whileKilled.map(() => 1), 'each overdue message sent once after the restart');
  const reminded = async () => {
    const body = await call('GET', '/messages', { anchor: 'newest', num_before: '100', num_after: '0', apply_markdown: 'false', narrow: JSON.stringify([{ operator: 'sender', operand: 'notification-bot@zulip.com' }]) });
    return (body.messages as { content: string }[]).filter((m) => m.content.includes('through kill -9')).length;
  };
  for (let i = 0; i < 50 && (await reminded()) === 0; i++) await sleep(200);
  t.equal(await reminded(), 1, 'the reminder too, once');
  t.ok(Date.now() - back < 10_000, `within ${Date.now() - back} ms of coming back`);

  // 3. Due while the server is down after SIGTERM.
  const at3 = now() + 3;
  const whileStopped = ['due after SIGTERM 1', 'due after SIGTERM 2'];
  for (const c of whileStopped) await schedule(c, at3);
  all.push(...whileStopped);
  await restart('SIGTERM');
  await untilSecond(at3 + 2);
  server = await spawnServer(t, env);
  counts = await waitSent(whileStopped);
  t.same(whileStopped.map((c) => counts.get(c)), [1, 1], 'each sent once after a graceful stop');

  // 4. kill -9 once more, after everything was sent: nothing is sent again.
  await restart('SIGKILL');
  server = await spawnServer(t, env);
  await sleep(3000);
  counts = await sentCounts();
  t.same(all.map((c) => counts.get(c)), all.map(() => 1), `all ${all.length} sent exactly once in the end`);
  t.notOk(counts.has('not due yet'), 'the one not due was not sent');
  t.equal(await reminded(), 1, 'the reminder was not sent again');
  t.same((await call('GET', '/reminders')).reminders, [], 'and is no longer pending');
  t.same(await pendingIds(), [future], 'and is the only one still pending');
  await server.stop('SIGTERM');
});
