import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import t from 'tap';
import { streamId, subscribe } from '../streams/world.js';
import { ok, startInviteWorld } from './harness.js';

/**
 * The sign-up page in a real browser: Debian's Chromium, headless, driven by playwright-core
 * (which uses the installed browser and downloads none). A person opens a reusable link, fills
 * the form in, and reads how to connect; then zulip-js logs in with what the page said. Without
 * /usr/bin/chromium (`.ci/run` installs it) the test says so loudly and skips.
 */
const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

interface ZulipClient {
  users: { me: { getProfile(): Promise<any> } };
  messages: { retrieve(params: Record<string, unknown>): Promise<any>; send(params: Record<string, unknown>): Promise<any> };
  config: { apiKey: string };
}
type ZulipInit = (config: { username: string; password?: string; apiKey?: string; realm: string }) => Promise<ZulipClient>;
const zulipInit = createRequire(import.meta.url)('zulip-js') as ZulipInit;

const missing = existsSync(CHROMIUM) ? false : `no browser at ${CHROMIUM} (Debian package chromium; .ci/run installs it)`;
if (missing) {
  const banner = '*'.repeat(78);
  console.error(`\n${banner}\n*** BROWSER TEST SKIPPED: ${missing}\n*** The sign-up page was NOT tested in a browser.\n${banner}\n`);
}

t.test('the sign-up page in headless Chromium, then zulip-js', { skip: missing }, async (t) => {
  const { chromium } = await import('playwright-core');
  const w = await startInviteWorld(t);
  const asAdmin = w.as(w.root.admin);
  await subscribe(w.as(w.root.owner), ['design']);
  const design = await streamId(asAdmin, 'design');
  const link = ok(await asAdmin('POST', '/invites/multiuse', { params: { stream_ids: [design], welcome_message_custom_text: 'Say hello in #**design**!' } })).invite_link as string;
  const expired = ok(await asAdmin('POST', '/invites/multiuse', { params: { invite_expires_in_minutes: -1 } })).invite_link as string;

  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS, timeout: 60_000 });
  t.teardown(() => browser.close());
  const context = await browser.newContext();
  const tab = await context.newPage();
  tab.setDefaultTimeout(30_000);

  let account = { serverUrl: '', email: '' };
  t.test('a person signs up through the link', async (t) => {
    const res = await tab.goto(link);
    t.equal(res?.status(), 200, 'the page loads');
    t.equal(await tab.title(), 'Join Root', 'its title');
    t.equal(await tab.textContent('h1'), 'Join Root', 'its heading');
    await tab.fill('#email', 'hamlet@example.com');
    await tab.fill('#full_name', 'Zoe Browser');
    await tab.fill('#password', 'zoe-password-1');
    await Promise.all([tab.waitForNavigation(), tab.click('#submit')]);
    t.match(await tab.textContent('#error'), /already has an account/, 'an address in use: the form says so');
    t.equal(await tab.inputValue('#email'), 'hamlet@example.com', 'and keeps what was typed');
    t.equal(await tab.inputValue('#full_name'), 'Zoe Browser', 'the name too');
    await tab.fill('#email', 'zoe@example.net');
    await tab.fill('#password', 'zoe-password-1');
    await Promise.all([tab.waitForNavigation(), tab.click('#submit')]);
    t.equal(await tab.textContent('#welcome'), 'Welcome to Root, Zoe Browser!', 'the welcome page');
    account = { serverUrl: (await tab.textContent('#server-url'))!, email: (await tab.textContent('#account-email'))! };
    t.equal(account.serverUrl, `http://${w.ts.server.config.externalHost}`, 'it shows the server URL');
    t.equal(account.email, 'zoe@example.net', 'and the email address');
    t.match(await tab.textContent('#connect'), /the password you just chose/, 'and which password');
  });

  t.test('an expired link says so in the browser', async (t) => {
    const res = await tab.goto(expired);
    t.equal(res?.status(), 404, '404');
    t.equal(await tab.textContent('h1'), 'This invitation has expired', 'the heading says it');
    t.equal(await tab.locator('form').count(), 0, 'and offers no form');
  });

  t.test('zulip-js logs in with what the page said', async (t) => {
    const client = await zulipInit({ username: account.email, password: 'zoe-password-1', realm: account.serverUrl });
    const me = await client.users.me.getProfile();
    t.match(me, { result: 'success', email: 'zoe@example.net', full_name: 'Zoe Browser', role: 400 }, 'the new member');
    const dms = await client.messages.retrieve({ anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }], apply_markdown: false });
    t.same(dms.messages.map((m: any) => m.sender_email), ['welcome-bot@zulip.com', 'welcome-bot@zulip.com'], 'Welcome Bot wrote twice');
    t.equal(dms.messages[1].content, 'Say hello in #**design**!', 'the second time with the invitation’s text');
    const sent = await client.messages.send({ type: 'stream', to: 'design', topic: 'hello', content: 'Hi, I just joined.' });
    t.equal(sent.result, 'success', 'and posts in the invitation’s channel');
  });
});
