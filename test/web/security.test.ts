import { createServer } from 'node:http';
import t from 'tap';
import { createUser, startTestServer } from '../helpers/server.js';
import { browserMissing, launch, logInAs, messageWith, person } from './harness.js';

/**
 * Logging in and out in a browser, a write from another site refused, and Markdown that tries
 * to run script rendering inert (the renderer's escaping, and behind it the page's CSP).
 */
const XSS = [
  '<script>window.__xss = "script"</script>',
  '<img src=x onerror="window.__xss = \'img\'">',
  '[click me](javascript:window.__xss="link")',
  '[data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '![image](javascript:window.__xss="image")',
  '<svg onload="window.__xss=\'svg\'"></svg>',
  '<iframe src="javascript:window.__xss=\'iframe\'"></iframe>',
  '```\n</code></pre><script>window.__xss="code"</script>\n```',
  '$$\\href{javascript:window.__xss="katex"}{math link}$$',
  '<a href="#" onclick="window.__xss=\'onclick\'">anchor</a>',
  '**bold<style>body{display:none}</style>**',
  '> quote "><img src=x onerror=window.__xss="quote">',
  '[vb](vbscript:msgbox(1))',
  '`<b onmouseover=window.__xss="inline">hover</b>`',
];

t.test('sessions and safety in the browser', { skip: browserMissing }, async (t) => {
  const ts = await startTestServer(t);
  const base = `http://127.0.0.1:${ts.port}`;
  const alice = await createUser(ts, 'alice@example.com', 'Alice', 'alice-password-1');
  const browser = await launch(t);
  const { page } = await person(browser);
  page.on('dialog', (d) => {
    t.fail(`a dialog opened: ${d.message()}`);
    void d.dismiss();
  });

  t.test('login: a wrong password, then the right one; logout', async (t) => {
    await page.goto(`${base}/`);
    t.match(page.url(), /\/login\/$/, '/ sends a logged-out browser to the login page');
    await page.fill('#username', alice.email);
    await page.fill('#password', 'not-the-password');
    await Promise.all([page.waitForNavigation(), page.click('#login')]);
    t.equal(await page.textContent('#error'), 'Incorrect email or password.', 'the page says the password is wrong');
    t.equal(await page.inputValue('#username'), alice.email, 'and keeps the address');
    await logInAs(page, base, alice.email, 'alice-password-1');
    t.equal(page.url(), `${base}/`, 'logged in, at the app');
    await page.click('a.logout-link');
    await page.waitForSelector('#logout');
    await Promise.all([page.waitForURL(`${base}/login/`), page.click('#logout')]);
    t.pass('logged out, back at the login page');
    await page.goto(`${base}/`);
    t.match(page.url(), /\/login\/$/, 'and / no longer opens the app');
  });

  t.test('another site cannot write with the session', async (t) => {
    await logInAs(page, base, alice.email, 'alice-password-1');
    // A page on another origin (another port: the same site for cookies, so the browser does
    // send them) that posts a message to the server's /json/ API, by form and by fetch.
    const evil = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<!doctype html><form id="f" method="post" action="${base}/json/messages"><input name="type" value="stream"><input name="to" value="general"><input name="topic" value="pwned"><input name="content" value="posted by another site"></form>
<script>fetch(${JSON.stringify(`${base}/json/messages`)}, {method: 'POST', mode: 'no-cors', credentials: 'include', body: new URLSearchParams({type: 'stream', to: 'general', topic: 'pwned', content: 'fetched by another site'})}).finally(() => document.getElementById('f').submit());</script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    t.teardown(() => evil.close());
    const evilUrl = `http://127.0.0.1:${(evil.address() as { port: number }).port}/`;
    const answer = page.waitForResponse((r) => r.url() === `${base}/json/messages` && r.request().resourceType() === 'document');
    await page.goto(evilUrl);
    const res = await answer;
    t.equal(res.status(), 403, 'the form post is refused');
    const body = await res.json();
    t.equal(body.code, 'CSRF_FAILED', 'as a CSRF failure');
    const history = await ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: 20, num_after: 0, narrow: [{ operator: 'topic', operand: 'pwned' }] } });
    t.same(history.body.messages, [], 'nothing was posted, by form or by fetch');
  });

  t.test('Markdown XSS attempts render inert', async (t) => {
    for (const content of XSS) {
      const sent = await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'xss', content } });
      t.equal(sent.status, 200, `sent: ${content.slice(0, 40)}`);
    }
    await page.goto(`${base}/#narrow/channel/1-general/topic/xss`);
    await messageWith(page, 'hover');
    await page.waitForTimeout(500);
    const links = page.locator('.feed .content a');
    for (let i = 0; i < (await links.count()); i++) await links.nth(i).click({ modifiers: [], timeout: 2000 }).catch(() => undefined);
    await page.locator('.feed .content b, .feed .content code').first().hover().catch(() => undefined);
    if (!page.url().startsWith(base)) await page.goto(`${base}/#narrow/channel/1-general/topic/xss`);
    await page.waitForSelector('#compose-box');
    t.equal(await page.evaluate(() => (window as any).__xss), undefined, 'no attempt ran');
    const found = await page.evaluate(() => {
      const feed = document.querySelector('.feed')!;
      const bad: string[] = [];
      for (const el of feed.querySelectorAll('*')) {
        if (['SCRIPT', 'IFRAME', 'OBJECT', 'EMBED', 'STYLE'].includes(el.tagName)) bad.push(el.tagName);
        for (const a of el.attributes) if (/^on/i.test(a.name) || /^\s*(javascript|vbscript|data):/i.test(a.value)) bad.push(`${el.tagName} ${a.name}=${a.value}`);
      }
      return bad;
    });
    t.same(found, [], 'no script, frame, handler or script URL in the rendered messages');
    t.equal(await page.locator('body').isVisible(), true, 'no injected style hid the page');
  });
});
