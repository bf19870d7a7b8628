import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { eventually } from '../api/bots/bot-server.js';

/**
 * The reference's Python bot frameworks against Stoa, unchanged: a `zulip_bots` bot
 * (incrementor: bot storage, replies, message edits) and `zulip_botserver` answering outgoing
 * webhooks (helloworld). They need a checkout of zulip/python-zulip-api, named by
 * STOA_PYTHON_ZULIP_API, and Debian's python3 with python3-requests, python3-distro,
 * python3-typing-extensions, python3-importlib-metadata, python3-html2text, python3-lxml,
 * python3-bs4 and python3-flask; without them it fails saying so (README: Bots).
 */
const checkout = process.env.STOA_PYTHON_ZULIP_API;
const python = process.env.STOA_PYTHON ?? '/usr/bin/python3';
const pythonPath = checkout ? ['zulip', 'zulip_bots', 'zulip_botserver'].map((d) => join(checkout, d)).join(':') : '';
const usable = checkout && spawnSync(python, ['-c', 'import zulip, zulip_bots.run, zulip_botserver.server'], { env: { ...process.env, PYTHONPATH: pythonPath } }).status === 0;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

function run(t: { teardown(fn: () => unknown): void }, args: string[], cwd: string) {
  const child = spawn(python, args, { cwd, env: { ...process.env, PYTHONPATH: pythonPath }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (c) => (log += c));
  child.stderr.on('data', (c) => (log += c));
  t.teardown(() => child.kill('SIGKILL'));
  return { child, log: () => log };
}

async function topicMessages(ts: TestServer, topic: string): Promise<any[]> {
  const res = await ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: 20, num_after: 0, narrow: [{ operator: 'topic', operand: topic }], apply_markdown: false } });
  return res.body.messages;
}

// Outside `npm test` (package.json's tap exclude): it needs a checkout that the repository cannot
// hold. Run by hand: STOA_PYTHON_ZULIP_API=<checkout> npm run test:external.
if (!usable) t.fail('set STOA_PYTHON_ZULIP_API to a python-zulip-api checkout (and install the python3-* packages)');
else t.test('zulip_bots and zulip_botserver run against Stoa', async (t) => {
  const ts = await startTestServer(t, { webhookAllowPrivateAddresses: true });
  const site = `http://${ts.server.config.externalHost}`;

  t.test('zulip_bots: incrementor keeps its count in bot storage and edits its reply', async (t) => {
    const created = await ts.request('POST', '/bots', { params: { full_name: 'Incrementor', short_name: 'incrementor' } });
    const email = (await ts.request('GET', `/users/${created.body.user_id}`)).body.user.email;
    await ts.request('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'general' }], principals: [email] } });
    const rc = join(ts.dataDir, 'incrementor.zuliprc');
    writeFileSync(rc, `[api]\nemail=${email}\nkey=${created.body.api_key}\nsite=${site}\n`);
    const bot = run(t, ['-m', 'zulip_bots.run', 'incrementor', '--config-file', rc], ts.dataDir);
    t.ok(await eventually(async () => (/starting message handling/.test(bot.log()) ? true : undefined)), 'the bot started');
    for (let i = 0; i < 3; i++) {
      await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'count', content: '@**Incrementor** count' } });
      await eventually(async () => ((await ts.as({ email, apiKey: created.body.api_key })('GET', '/bot_storage')).body.storage.number === String(i + 1) ? true : undefined));
    }
    const replies = (await topicMessages(ts, 'count')).filter((m) => m.sender_id === created.body.user_id);
    t.same(replies.map((m) => m.content), ['3'], 'one reply, edited up to 3');
    t.ok(replies[0].last_edit_timestamp, 'edited through PATCH /messages');
    const storage = (await ts.as({ email, apiKey: created.body.api_key })('GET', '/bot_storage')).body.storage;
    t.same([storage.number, storage.message_id], ['3', String(replies[0].id)], 'its state in bot storage, as zulip_bots encodes it');
  });

  t.test('zulip_botserver: helloworld answers outgoing webhooks', async (t) => {
    const port = await freePort();
    const created = await ts.request('POST', '/bots', { params: { full_name: 'Hello', short_name: 'hello', bot_type: 3, payload_url: JSON.stringify(`http://127.0.0.1:${port}/`) } });
    const reg = await ts.request('POST', '/register', { params: { fetch_event_types: ['realm_bot'] } });
    const bot = reg.body.realm_bots.find((b: any) => b.user_id === created.body.user_id);
    const rc = join(ts.dataDir, 'botserverrc');
    writeFileSync(rc, `[helloworld]\nemail=${bot.email}\nkey=${bot.api_key}\nsite=${site}\ntoken=${bot.services[0].token}\n`);
    const server = run(t, ['-m', 'zulip_botserver.server', '--config-file', rc, '--port', String(port)], ts.dataDir);
    t.ok(await eventually(async () => (/Running on/.test(server.log()) ? true : undefined)), 'the bot server started');
    await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'hello', content: '@**Hello** hi there' } });
    const reply = await eventually(async () => (await topicMessages(ts, 'hello')).find((m) => m.sender_id === created.body.user_id));
    t.equal(reply?.content, 'beep boop', 'helloworld\'s reply, in the topic');
  });
});
