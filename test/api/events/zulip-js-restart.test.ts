import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { field, http, tempDir } from '../../cli/run.js';
import { checkEvent } from '../../helpers/openapi.js';
import { freePort, spawnServer, type ServerProcess } from '../../startup/spawn.js';

const LISTENER = fileURLToPath(new URL('../../fixtures/zulip-js-listen.js', import.meta.url));

interface Event {
  [key: string]: unknown;
  id: number;
  type: string;
  op?: string;
  flag?: string;
  message?: { id: number; content: string };
  message_id?: number;
}

/**
 * zulip-js's own loop, callOnEachEvent, through every kind of change a client follows and through
 * both kinds of restart. zulip-js never registers again once it has a queue (it retries the same
 * queue_id forever), so it only keeps working if the queue outlives the process.
 */
t.test('zulip-js: callOnEachEvent stays on one queue through changes, SIGTERM and kill -9', async (t) => {
  const dataDir = tempDir(t, 'stoa-zjs-');
  const port = await freePort();
  const env = { STOA_PORT: String(port), STOA_DATA_DIR: dataDir, STOA_HEARTBEAT_SECONDS: '2', STOA_SHARDS: '1' };
  let server: ServerProcess = await spawnServer(t, env);
  const owner = { email: field(server.stdout(), 'owner email')!, apiKey: field(server.stdout(), 'owner API key')! };
  const call = async (auth: typeof owner, method: string, path: string, form: Record<string, string> = {}) => {
    const query = method === 'GET' || method === 'DELETE' ? `?${new URLSearchParams(form)}` : '';
    const res = await http(port, { method, path: path + query, host: `localhost:${port}`, auth, form: query ? undefined : form });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  await call(owner, 'POST', '/users', { email: 'bob@example.com', password: 'a-long-password-1', full_name: 'Bob' });
  const key = await http(port, { method: 'POST', path: '/fetch_api_key', host: `localhost:${port}`, form: { username: 'bob@example.com', password: 'a-long-password-1' } });
  const bob = { email: 'bob@example.com', apiKey: key.body.api_key as string };
  const ownerId = (await call(owner, 'GET', '/users/me')).user_id as number;
  const bobId = (await call(bob, 'GET', '/users/me')).user_id as number;

  const types = ['message', 'update_message', 'reaction', 'update_message_flags', 'subscription'];
  const child = spawn(process.execPath, [LISTENER, `http://localhost:${port}`, owner.email, owner.apiKey, JSON.stringify(types)], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => void child.kill('SIGKILL'));
  let errors = 0;
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString().split('zulip-js: Error').length - 1));
  const events: Event[] = [];
  let buffered = '';
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) events.push(JSON.parse(line));
  });
  const until = async (what: string, done: () => boolean) => {
    const deadline = Date.now() + 30_000;
    while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    t.ok(done(), what);
  };
  const sendAsBob = async (content: string) => (await call(bob, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'zulip-js', content })).id as number;
  const got = (pred: (e: Event) => boolean) => () => events.some(pred);

  // zulip-js registers by itself; its first heartbeat shows the loop is polling.
  await until('zulip-js registered and polls', got((e) => e.type === 'heartbeat'));

  const id = await sendAsBob('before any restart');
  await until('message', got((e) => e.type === 'message' && e.message!.id === id));
  await call(bob, 'PATCH', `/messages/${id}`, { content: 'edited' });
  await until('update_message', got((e) => e.type === 'update_message' && e.message_id === id));
  await call(bob, 'POST', `/messages/${id}/reactions`, { emoji_name: 'octopus' });
  await until('reaction', got((e) => e.type === 'reaction' && e.op === 'add'));
  await call(owner, 'POST', '/messages/flags', { messages: JSON.stringify([id]), op: 'add', flag: 'starred' });
  await until('update_message_flags (starred)', got((e) => e.type === 'update_message_flags' && e.flag === 'starred'));
  await call(owner, 'POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'zjs' }]), principals: JSON.stringify([ownerId, bobId]) });
  await until('subscription add', got((e) => e.type === 'subscription' && e.op === 'add'));
  await call(bob, 'DELETE', '/users/me/subscriptions', { subscriptions: JSON.stringify(['zjs']) });
  await until('subscription peer_remove', got((e) => e.type === 'subscription' && e.op === 'peer_remove'));

  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    const stopped = await server.stop(signal);
    t.ok(signal === 'SIGTERM' ? stopped.code === 0 : stopped.signal === 'SIGKILL', `${signal}: stopped`);
    // Long enough for zulip-js to fail a poll or two against the closed port.
    await new Promise((r) => setTimeout(r, 1500));
    server = await spawnServer(t, env);
    const after = await sendAsBob(`after ${signal}`);
    await until(`${signal}: the next message reaches the same loop`, got((e) => e.type === 'message' && e.message!.id === after));
    await call(owner, 'POST', '/messages/flags', { messages: JSON.stringify([after]), op: 'add', flag: 'read' });
    await until(`${signal}: and the flag change after it`, got((e) => e.type === 'update_message_flags' && e.flag === 'read' && JSON.stringify(e).includes(String(after))));
  }

  t.ok(errors > 0, `zulip-js met the stopped server (${errors} errors logged) and carried on`);
  const ids = events.map((e) => e.id);
  t.same(ids, [...ids].sort((a, b) => a - b), 'event ids increase across both restarts');
  t.equal(new Set(ids).size, ids.length, 'no event twice');
  const messages = events.filter((e) => e.type === 'message').map((e) => e.message!.content);
  t.same(messages, ['before any restart', 'after SIGTERM', 'after SIGKILL'], 'each message once, in order');
  for (const event of events) t.doesNotThrow(() => checkEvent(event), `${event.type} ${event.id} matches the reference`);
});
