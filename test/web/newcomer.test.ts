import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { browserMissing, launch, logInAs, messageWith, person, send } from './harness.js';
import { freePort, kill9, spawnServer } from './spawn.js';

/**
 * A newcomer's first hour, all in the browser: the server as `npm start` runs it prints the
 * owner's password; the owner logs in, creates a channel and invites a colleague by link; the
 * colleague signs up through the link and logs in; they chat. With STOA_SCREENSHOT=1 the test
 * saves the owner's screen as docs/screenshot.png, the README's picture.
 */
t.test('from npm start to two colleagues chatting', { skip: browserMissing }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-web-newcomer-'));
  const server = await spawnServer(dataDir, await freePort(), { STOA_EXTERNAL_HOST: '' });
  t.teardown(async () => {
    await kill9(server);
    rmSync(dataDir, { recursive: true, force: true });
  });
  const owner = server.owner!;
  t.match(server.output(), /owner password: \S+/, 'the first start prints the owner’s password');
  const base = server.url;
  const browser = await launch(t);
  const o = await person(browser);
  const c = await person(browser);

  await o.page.goto(base);
  t.match(o.page.url(), /\/login\/$/, 'the printed address opens the login page');
  await logInAs(o.page, base, owner.email, owner.password);
  t.pass('the owner logs in with the printed password');

  await o.page.click('a[aria-label="Create or join a channel"]');
  await o.page.fill('#field-name', 'design');
  await o.page.fill('#field-description', 'Colours, shapes and type');
  await o.page.click('button:has-text("Create channel")');
  await o.page.waitForSelector('a[data-channel="design"]');
  t.pass('the channel shows in the sidebar');

  await o.page.goto(`${base}/#settings/invitations`);
  const design = o.page.locator('fieldset', { hasText: 'Channels to join' }).first().locator('label', { hasText: '#design' }).locator('input');
  await design.check();
  await o.page.click('button:has-text("Create invitation link")');
  const link = await o.page.locator('#invite-link').inputValue({ timeout: 30_000 });
  t.match(link, /\/join\/[A-Za-z0-9]+\/$/, 'an invitation link');

  // The colleague: the link, the sign-up form, then the login page.
  await c.page.goto(link.replace(/^https?:\/\/[^/]+/, base));
  await c.page.fill('#email', 'colleague@example.com');
  await c.page.fill('#full_name', 'Cora Colleague');
  await c.page.fill('#password', 'cora-password-1');
  await Promise.all([c.page.waitForNavigation(), c.page.click('#submit')]);
  t.match(await c.page.textContent('#welcome'), /Welcome to .*, Cora Colleague!/, 'the colleague has an account');
  await logInAs(c.page, base, 'colleague@example.com', 'cora-password-1');
  await c.page.waitForSelector('a[data-channel="design"]');
  t.pass('and is in #design, as the invitation said');

  await o.page.goto(`${base}/#narrow/channel/${await channelId(o.page, 'design')}-design/topic/hello`);
  await send(o.page, 'Welcome aboard, Cora!', { channel: 'design', topic: 'hello' });
  await c.page.click('a[data-channel="design"]');
  await messageWith(c.page, 'Welcome aboard, Cora!');
  t.pass('the colleague sees the owner’s message');
  // As a person would, the colleague answers once the topic's view (and the compose box aimed
  // at it) is on the screen: typed before, the answer would go to the channel's general chat.
  await c.page.click('.topics a:has-text("hello")');
  await c.page.waitForFunction(() => (document.querySelector('#compose-topic') as HTMLInputElement | null)?.value === 'hello');
  await send(c.page, 'Thanks! Glad to be here.');
  await messageWith(o.page, 'Glad to be here');
  t.pass('and the owner sees the answer');

  if (process.env.STOA_SCREENSHOT) {
    await send(o.page, 'Let’s start with the palette. Here is what we have so far:\n* **blue** for links\n* `#5f5ec7` for buttons');
    await o.page.waitForTimeout(500);
    const file = fileURLToPath(new URL('../../../docs/screenshot.png', import.meta.url));
    await o.page.screenshot({ path: file });
    t.comment(`saved ${file}`);
  }
});

async function channelId(page: import('playwright-core').Page, name: string): Promise<number> {
  const href = await page.locator(`a[data-channel="${name}"]`).getAttribute('href');
  return Number(/channel\/(\d+)/.exec(href ?? '')?.[1]);
}
