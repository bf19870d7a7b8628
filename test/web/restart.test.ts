import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig, resolveConfig } from '../../src/lib/config.js';
import { Shard } from '../../src/shard/shard.js';
import { browserMissing, launch, logInAs, person } from './harness.js';
import { api, freePort, kill9, spawnServer, type Spawned } from './spawn.js';

/**
 * The server killed with SIGKILL in the middle of a conversation and started again: both pages
 * catch up with nothing lost and nothing doubled, and what was being typed is still there. The
 * first time the event queues survive (they are durable); the second time they are gone (as
 * after an expiry), so the pages get BAD_EVENT_QUEUE_ID, register again and fetch what they show.
 */
t.test('the web app across a killed and restarted server', { skip: browserMissing }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-web-restart-'));
  const port = await freePort();
  let server: Spawned = await spawnServer(dataDir, port);
  t.teardown(async () => {
    await kill9(server);
    rmSync(dataDir, { recursive: true, force: true });
  });
  const base = server.url;
  const owner = server.owner!;
  t.ok(owner?.password, 'the first start printed the owner’s password');
  for (const [email, name] of [['alice@example.com', 'Alice'], ['bob@example.com', 'Bob']]) {
    const made = await api(base, owner, 'POST', '/users', { email, password: `${name.toLowerCase()}-password-1`, full_name: name });
    t.equal(made.result, 'success', `${name} created`);
  }
  const browser = await launch(t);
  const a = await person(browser);
  const b = await person(browser);
  await logInAs(a.page, base, 'alice@example.com', 'alice-password-1');
  await logInAs(b.page, base, 'bob@example.com', 'bob-password-1');
  const topic = `${base}/#narrow/channel/1-general/topic/standup`;
  await a.page.goto(topic);
  await b.page.goto(topic);

  const say = (text: string) => api(base, owner, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'standup', content: text });
  /** Every message text of the open view, in order. */
  const shown = (page: typeof a.page) => page.locator('article.message .content').allTextContents();
  const waitFor = (page: typeof a.page, text: string) => page.locator('article.message .content', { hasText: text }).first().waitFor({ timeout: 60_000 });
  const live = (page: typeof a.page) => page.waitForFunction(() => document.querySelector('.top .status')?.textContent === '', undefined, { timeout: 60_000 });

  await say('one before the kill');
  await waitFor(a.page, 'one before the kill');
  await waitFor(b.page, 'one before the kill');

  t.test('killed, started again: the queues carry what happened', async (t) => {
    await kill9(server);
    await a.page.fill('#compose-box', 'typed while the server was down');
    await b.page.waitForSelector('.top .status.offline', { timeout: 60_000 });
    t.pass('Bob’s page says it is reconnecting');
    server = await spawnServer(dataDir, port);
    t.equal(server.owner, null, 'the second start creates nothing');
    await say('two after the restart');
    await waitFor(a.page, 'two after the restart');
    await waitFor(b.page, 'two after the restart');
    await live(a.page);
    t.equal(await a.page.inputValue('#compose-box'), 'typed while the server was down', 'Alice’s text is still in her compose box');
    await a.page.click('#compose-send');
    // Each page shows the message when its own queue brings it: Alice's may come after Bob's.
    await waitFor(b.page, 'typed while the server was down');
    await waitFor(a.page, 'typed while the server was down');
    for (const [who, page] of [['Alice', a.page], ['Bob', b.page]] as const) {
      t.same(await shown(page), ['one before the kill', 'two after the restart', 'typed while the server was down'], `${who}’s page: each message once, in order`);
    }
  });

  t.test('killed, queues gone: the pages register again and fetch what they show', async (t) => {
    await kill9(server);
    // As if every queue had expired: the pages' queue ids are unknown after the start.
    const config = resolveConfig(loadConfig({}, { dataDir, port, shards: 1, logLevel: 'silent' }), port);
    const shard = Shard.open(0, config);
    const batch = shard.batch();
    for (const key of shard.store.queues.getKeys()) batch.del(shard.store.queues, key as string);
    await batch.commit();
    await shard.close();
    await b.page.fill('#compose-box', 'Bob keeps typing');
    server = await spawnServer(dataDir, port);
    // Sent before the pages have their new queues: only a refetch shows it.
    await say('three while the queues were lost');
    await waitFor(a.page, 'three while the queues were lost');
    await waitFor(b.page, 'three while the queues were lost');
    await live(b.page);
    t.equal(await b.page.inputValue('#compose-box'), 'Bob keeps typing', 'Bob’s text survived the re-register');
    await b.page.click('#compose-send');
    await waitFor(a.page, 'Bob keeps typing');
    await say('four, live again');
    await waitFor(a.page, 'four, live again');
    await waitFor(b.page, 'four, live again');
    const expected = ['one before the kill', 'two after the restart', 'typed while the server was down', 'three while the queues were lost', 'Bob keeps typing', 'four, live again'];
    for (const [who, page] of [['Alice', a.page], ['Bob', b.page]] as const) t.same(await shown(page), expected, `${who}’s page: nothing lost, nothing doubled`);
  });
});
