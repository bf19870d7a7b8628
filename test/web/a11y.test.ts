import { createRequire } from 'node:module';
import t from 'tap';
import type { Page } from 'playwright-core';
import { createUser, startTestServer } from '../helpers/server.js';
import { browserMissing, launch, logInAs, messageWith, person } from './harness.js';

/**
 * Accessibility: axe-core (from npm, injected by the test) finds no serious or critical
 * violation on the main screens, in light and dark themes and on a phone-sized screen; and a
 * person using only the keyboard can log in, write, reply, search and move between messages,
 * seeing where the focus is.
 */
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

async function axe(page: Page): Promise<{ id: string; impact: string; nodes: string[] }[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  const result = await page.evaluate(async () => (window as any).axe.run(document, { resultTypes: ['violations'] }));
  return (result.violations as any[]).filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n: any) => n.target.join(' ')) }));
}

t.test('accessibility of the web app', { skip: browserMissing }, async (t) => {
  const ts = await startTestServer(t);
  const base = `http://127.0.0.1:${ts.port}`;
  const alice = await createUser(ts, 'alice@example.com', 'Alice', 'alice-password-1');
  await createUser(ts, 'bob@example.com', 'Bob', 'bob-password-1');
  await ts.request('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'design' }], principals: [alice.email] } });
  for (const content of ['Hello **team**', 'A list:\n* one\n* two', '```js\nconst x = 1;\n```', '@**Alice** have a look', 'Math: $$e^{i\\pi}+1=0$$']) {
    await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'welcome', content } });
  }
  const design = (await ts.request('GET', '/get_stream_id', { params: { stream: 'design' } })).body.stream_id;
  const edited = (await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'welcome', content: 'A first version' } })).body.id;
  await ts.request('PATCH', `/messages/${edited}`, { params: { content: 'A second version' } });
  const browser = await launch(t);

  t.test('no serious violations on the main screens', async (t) => {
    // The checker is injected as a script: the page's CSP (no inline script) would refuse it.
    const { page } = await (async () => {
      const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1200, height: 800 } });
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      return { page };
    })();
    await page.goto(`${base}/login/`);
    t.same(await axe(page), [], 'the login page');
    await logInAs(page, base, alice.email, alice.password);
    const screens: [string, string, string][] = [
      ['all messages', '#feed', '.message'],
      ['a topic', '#narrow/channel/1-general/topic/welcome', '.message'],
      ['recent conversations', '#recent', '.recent table'],
      ['settings', '#settings/profile', '#settings-title'],
      ['channel settings', '#settings/channels', '.channel-list'],
      ['invitations', '#settings/invitations', '#invite-expires'],
      ['drafts', '#drafts', '#drafts-title'],
      ['user groups', '#settings/groups', 'form[aria-label="Create a group"]'],
      ['a channel’s settings', `#channels/${design}`, '#channel-personal'],
    ];
    for (const [name, hash, ready] of screens) {
      await page.goto(`${base}/${hash}`);
      await page.waitForSelector(ready);
      t.same(await axe(page), [], name);
    }
    // A dialog over the feed (an edited message's history), and the send options open.
    await page.goto(`${base}/#narrow/channel/1-general/topic/welcome`);
    await page.click(`article[data-message-id="${edited}"] button.edited`);
    await page.waitForSelector('dialog.edit-history .history-entry');
    t.same(await axe(page), [], 'the edit history dialog');
    await page.keyboard.press('Escape');
    await page.click('button[aria-label="Send options"]');
    await page.waitForSelector('#send-menu');
    t.same(await axe(page), [], 'the send options');
    await page.evaluate(() => (document.documentElement.dataset.theme = 'dark'));
    await page.goto(`${base}/#feed`);
    await page.waitForSelector('.message');
    t.same(await axe(page), [], 'all messages, dark theme');
    await page.setViewportSize({ width: 390, height: 800 });
    await page.click('button.menu');
    t.same(await axe(page), [], 'a phone-sized screen with the sidebar open');
  });

  t.test('a flow done by keyboard alone', async (t) => {
    const { page } = await person(browser);
    await page.goto(`${base}/login/`);
    // The page puts the cursor in the address field itself; keys typed before that would be lost.
    await page.waitForFunction(() => document.activeElement?.id === 'username');
    await page.keyboard.type(alice.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(alice.password);
    await Promise.all([page.waitForURL(`${base}/`), page.keyboard.press('Enter')]);
    await page.waitForSelector('#compose-box');
    await page.keyboard.press('Escape');

    const focusRing = () => page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      const style = getComputedStyle(el);
      return { tag: el.tagName, ring: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0 || style.boxShadow !== 'none' };
    });

    // `c`: a new message in a channel; Tab moves through the recipient fields.
    await page.keyboard.press('c');
    await page.waitForFunction(() => document.activeElement?.id === 'compose-box');
    t.pass('`c` puts the cursor in the message box');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    t.equal(await page.evaluate(() => document.activeElement?.id), 'compose-channel', 'Shift+Tab reaches the channel field');
    t.ok((await focusRing()).ring, 'with a visible focus ring');
    await page.keyboard.type('general');
    await page.keyboard.press('Tab');
    await page.keyboard.type('keyboard');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Typed without a mouse');
    await page.keyboard.press('Enter');
    await messageWith(page, 'Typed without a mouse');
    t.pass('Enter sent it');

    // Escape leaves the box for the message list; arrows move; `r` replies.
    await page.keyboard.press('Escape');
    await page.keyboard.press('ArrowUp');
    const selected = await page.evaluate(() => document.activeElement?.getAttribute('data-message-id'));
    t.ok(selected, 'the arrow keys move between messages');
    t.ok((await focusRing()).ring, 'the selected message shows focus');
    await page.keyboard.press('r');
    await page.waitForFunction(() => document.activeElement?.id === 'compose-box');
    t.pass('`r` replies');

    // `/` searches.
    await page.keyboard.press('Escape');
    await page.keyboard.press('/');
    t.equal(await page.evaluate(() => document.activeElement?.id), 'search', '`/` goes to the search box');
    await page.keyboard.type('without');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.feed .highlight');
    t.pass('the search ran');

    // `n`: the next topic with unread messages.
    await ts.request('POST', '/messages', { params: { type: 'stream', to: 'design', topic: 'colours', content: 'Which blue?' } });
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !!document.querySelector('a[data-channel="design"] .count'));
    await page.keyboard.press('n');
    await page.waitForSelector('h1#view-title:has-text("colours")');
    t.pass('`n` opened the unread topic');

    // Every control of a message is reachable with Tab, and reacting works from the keyboard.
    await page.keyboard.press('ArrowDown');
    for (let i = 0; i < 6 && (await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))) !== 'Add emoji reaction'; i++) await page.keyboard.press('Tab');
    t.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Add emoji reaction', 'Tab reaches the message’s actions');
    t.ok((await focusRing()).ring, 'showing focus');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Search emoji');
    await page.keyboard.type('tada');
    await page.waitForSelector('.emoji-grid button[data-emoji="tada"]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.reaction[aria-label^=":tada:"]');
    t.pass('a reaction added by keyboard');
  });
});
