import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { checkEvent } from '../../helpers/openapi.js';
import { createUser, startTestServer } from '../../helpers/server.js';

const LISTENER = fileURLToPath(new URL('../../fixtures/zulip-js-listen.js', import.meta.url));

t.test('zulip-js: callOnEachEvent receives messages, once each, in order', async (t) => {
  const ts = await startTestServer(t, { heartbeatSeconds: 2 });
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const child = spawn(process.execPath, [LISTENER, `http://localhost:${ts.port}`, ann.email, ann.apiKey, JSON.stringify(['message'])], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => void child.kill('SIGKILL'));
  const events: { id: number; type: string; message?: { id: number; content: string; sender_id: number } }[] = [];
  let buffered = '';
  let wake = () => {};
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) events.push(JSON.parse(line));
    wake();
  });
  const until = async (done: () => boolean) => {
    const deadline = Date.now() + 30_000;
    while (!done() && Date.now() < deadline) await new Promise<void>((r) => ((wake = r), setTimeout(r, 200)));
  };

  // zulip-js registers on its own; wait until its queue exists (a heartbeat proves it polls).
  await until(() => events.some((e) => e.type === 'heartbeat'));
  t.ok(events.some((e) => e.type === 'heartbeat'), 'zulip-js registered and long-polls (a heartbeat came)');

  const sent: number[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await ts.as(bob)('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'zulip-js events', content: `event ${i}` } });
    sent.push(res.body.id);
  }
  const direct = await ts.as(bob)('POST', '/messages', { params: { type: 'direct', to: [ann.userId], content: 'a direct one' } });
  sent.push(direct.body.id);
  const messages = () => events.filter((e) => e.type === 'message');
  await until(() => messages().length >= sent.length);

  t.same(messages().map((e) => e.message!.id), sent, 'every message, once, in the order sent');
  t.same(messages().map((e) => e.message!.content), ['event 0', 'event 1', 'event 2', 'event 3', 'event 4', 'a direct one'], 'with their content');
  const ids = events.map((e) => e.id);
  t.same(ids, [...ids].sort((a, b) => a - b), 'event ids increase');
  t.equal(new Set(ids).size, ids.length, 'no event twice');
  for (const event of messages()) t.doesNotThrow(() => checkEvent(event), `message event ${event.id} matches the reference schema`);
});
