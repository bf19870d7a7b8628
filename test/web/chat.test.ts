import t from 'tap';
import { createUser, startTestServer } from '../helpers/server.js';
import { browserMissing, channelCount, launch, logInAs, messageWith, person, send } from './harness.js';

/**
 * Two people in two browser contexts: messages, unread counts, reactions and edits seen live
 * by the other; narrowing, search and scrolling back; an upload by drag and drop.
 */
t.test('two people chatting in the web app', { skip: browserMissing }, async (t) => {
  const ts = await startTestServer(t);
  const base = `http://127.0.0.1:${ts.port}`;
  const alice = await createUser(ts, 'alice@example.com', 'Alice Liddell', 'alice-password-1');
  const bob = await createUser(ts, 'bob@example.com', 'Bob Builder', 'bob-password-1');
  const browser = await launch(t);
  const a = await person(browser);
  const b = await person(browser);
  await logInAs(a.page, base, alice.email, alice.password);
  await logInAs(b.page, base, bob.email, bob.password);

  /** Bob's unread count per /register: what the sidebar must agree with. */
  const registered = async () => {
    const r = await ts.as(bob)('POST', '/register', { params: { fetch_event_types: ['message', 'update_message_flags'] } });
    await ts.as(bob)('DELETE', '/events', { params: { queue_id: r.body.queue_id } });
    return r.body.unread_msgs.streams.filter((s: any) => s.topic === 'lunch').flatMap((s: any) => s.unread_message_ids).length as number;
  };

  t.test('a message arrives live, with unread counts that agree with /register', async (t) => {
    await a.page.goto(`${base}/#narrow/channel/1-general/topic/lunch`);
    await b.page.goto(`${base}/#narrow/is/starred`);
    await b.page.waitForSelector('h1#view-title:has-text("Starred messages")');
    await send(a.page, 'Hi Bob, lunch at noon?', { channel: 'general', topic: 'lunch' });
    await b.page.waitForFunction(() => document.querySelector('a[data-channel="general"] .count')?.textContent === '1');
    t.equal(await channelCount(b.page, 'general'), 1, 'Bob sees one unread message in general');
    t.equal(await registered(), 1, '/register says the same');
    t.equal(await b.page.locator('a[data-testid="all-messages"] .count').textContent(), '1', 'and All messages counts it');

    await b.page.click('a[data-channel="general"]');
    await messageWith(b.page, 'lunch at noon');
    await b.page.click('.topics a:has-text("lunch")');
    await b.page.waitForFunction(() => !document.querySelector('a[data-channel="general"] .count'));
    t.equal(await channelCount(b.page, 'general'), 0, 'read once seen: the count goes');
    t.equal(await registered(), 0, 'and /register agrees');
    t.match(b.page.url(), /#narrow\/channel\/1-general\/topic\/lunch$/, 'the topic view has its URL');
  });

  t.test('a reaction and an edit, seen by the other', async (t) => {
    const id = await messageWith(b.page, 'lunch at noon');
    const msg = b.page.locator(`article[data-message-id="${id}"]`);
    await msg.hover();
    await msg.locator('button[aria-label="Add emoji reaction"]').click();
    await b.page.fill('input[aria-label="Search emoji"]', 'thumbs_up');
    await b.page.waitForSelector('.emoji-grid button[data-emoji="thumbs_up"]');
    await b.page.keyboard.press('Enter');
    const reaction = a.page.locator(`article[data-message-id="${id}"] .reaction`);
    await reaction.waitFor();
    t.match(await reaction.getAttribute('aria-label'), /:thumbs_up: by Bob Builder/, 'Alice sees Bob’s reaction');
    t.equal(await reaction.locator('.n').textContent(), '1', 'counted once');

    const mine = a.page.locator(`article[data-message-id="${id}"]`);
    await mine.hover();
    await mine.locator('button[aria-label="Edit message"]').click();
    const box = mine.locator('textarea[aria-label="Message content"]');
    await a.page.waitForFunction((id) => (document.querySelector(`article[data-message-id="${id}"] textarea`) as HTMLTextAreaElement)?.value.includes('noon'), id);
    await box.fill('Hi Bob, lunch at **one** instead?');
    await mine.locator('button:has-text("Save")').click();
    await b.page.locator(`article[data-message-id="${id}"] .content strong:has-text("one")`).waitFor();
    t.pass('Bob sees the edit, rendered');
    t.equal(await b.page.locator(`article[data-message-id="${id}"] .edited`).count(), 1, 'marked edited');
  });

  t.test('a direct message, with its unread count, typing notice and reply', async (t) => {
    await b.page.goto(`${base}/#narrow/dm/${alice.userId}-Alice`);
    await b.page.waitForSelector('h1#view-title:has-text("Alice Liddell")');
    await a.page.goto(`${base}/#narrow/dm/${bob.userId}-Bob`);
    await a.page.waitForSelector('h1#view-title:has-text("Bob Builder")');
    await b.page.fill('#compose-box', 'Psst');
    await a.page.waitForSelector('.compose .typing:has-text("Bob Builder is typing")');
    t.pass('Alice sees Bob typing');
    await a.page.goto(`${base}/#feed`);
    await a.page.waitForSelector('h1#view-title:has-text("All messages")');
    await b.page.fill('#compose-box', 'Psst, are you there?');
    await b.page.click('#compose-send');
    await a.page.waitForFunction(() => [...document.querySelectorAll('.dms a')].some((el) => el.textContent?.includes('Bob Builder') && el.querySelector('.count')?.textContent === '1'));
    t.pass('Alice sees the DM conversation with one unread');
    const dot = await a.page.locator('.dms a:has-text("Bob Builder") .presence').getAttribute('aria-label');
    t.ok(dot === 'active' || dot === 'idle', `Bob's presence dot says he is here (${dot})`);
    await a.page.click('.dms a:has-text("Bob Builder")');
    await messageWith(a.page, 'are you there');
    t.equal(await a.page.inputValue('#compose-to'), 'bob@example.com', 'the compose box answers Bob');
  });

  t.test('a poll and a to-do list, used by both', async (t) => {
    await ts.as(alice)('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'plans', content: '/poll Where to eat?\nPizza\nSushi' } });
    await ts.as(alice)('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'plans', content: '/todo Before Friday\nBook a table: for six' } });
    await a.page.goto(`${base}/#narrow/channel/1-general/topic/plans`);
    await b.page.goto(`${base}/#narrow/channel/1-general/topic/plans`);
    await b.page.click('.poll button[aria-label^="Vote for Pizza"]');
    await a.page.waitForSelector('.poll li:has-text("Pizza") small:has-text("Bob Builder")');
    t.equal(await a.page.locator('.poll li:has-text("Pizza") button').textContent(), '1', 'Alice sees Bob’s vote');
    await a.page.fill('.poll input[aria-label="New option"]', 'Tacos');
    await a.page.click('.poll button:has-text("Add option")');
    await b.page.waitForSelector('.poll li:has-text("Tacos")');
    t.pass('Bob sees the option Alice added');
    await b.page.click('.todo label:has-text("Book a table") input');
    await a.page.waitForSelector('.todo .done:has-text("Book a table")');
    t.pass('a task Bob ticks is done for Alice');
  });

  t.test('search with the narrow syntax highlights the matches', async (t) => {
    // Typed first, then a message arrives (its event re-renders the page): the text must stay.
    await a.page.fill('#search', 'channel:general closed');
    const unread = await channelCount(a.page, 'general');
    await ts.as(bob)('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'menu', content: 'The pizza place is closed today' } });
    for (let i = 0; i < 100 && (await channelCount(a.page, 'general')) === unread; i++) await a.page.waitForTimeout(100);
    t.equal(await a.page.inputValue('#search'), 'channel:general closed', 'what was typed survives an arriving message');
    await a.page.press('#search', 'Enter');
    await a.page.waitForSelector('.feed .highlight');
    t.equal(await a.page.locator('.feed .highlight').first().textContent(), 'closed', 'the matched word is highlighted');
    t.match(decodeURIComponent(a.page.url()), /#narrow\/channel\/1-general\/search\/closed/, 'the search has a URL');
    t.equal(await a.page.locator('article.message').count(), 1, 'only the match is shown');
  });

  t.test('scrolling back fetches older messages, each once', async (t) => {
    for (let i = 1; i <= 120; i++) await ts.as(alice)('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'history', content: `history line ${i}`, read_by_sender: true } });
    await a.page.goto(`${base}/#narrow/channel/1-general/topic/history`);
    await messageWith(a.page, 'history line 120');
    const before = await a.page.locator('article.message').count();
    t.ok(before < 120, `the first screen holds ${before} of 120`);
    for (let i = 0; i < 20 && !(await a.page.locator('.feed .start').count()); i++) {
      await a.page.locator('.feed').evaluate((el) => (el.scrollTop = 0));
      await a.page.waitForTimeout(300);
    }
    await a.page.locator('article.message .content', { hasText: /^history line 1$/ }).waitFor();
    const texts = await a.page.locator('article.message .content').allTextContents();
    t.equal(texts.length, 120, 'all 120 after scrolling up');
    t.equal(new Set(texts).size, 120, 'none twice');
  });

  t.test('a view opens at the first unread message', async (t) => {
    // Bob has read the history up to line 100; lines 101-120 are new to him.
    const ids = (await ts.as(bob)('GET', '/messages', { params: { anchor: 'newest', num_before: 120, num_after: 0, narrow: [{ operator: 'topic', operand: 'history' }] } })).body.messages.map((m: any) => m.id);
    await ts.as(bob)('POST', '/messages/flags', { params: { messages: ids.slice(0, 100), op: 'add', flag: 'read' } });
    await b.page.goto(`${base}/#narrow/channel/1-general/topic/history`);
    const first = b.page.locator('article.message', { has: b.page.locator('.content', { hasText: /^history line 101$/ }) });
    await first.waitFor();
    const seen = await first.evaluate((el) => {
      const feed = el.closest('.feed')!.getBoundingClientRect();
      const box = el.getBoundingClientRect();
      return { inView: box.top >= feed.top - 1 && box.top < feed.bottom, scrolled: el.closest('.feed')!.scrollTop > 0 };
    });
    t.ok(seen.inView, 'line 101, the first unread, is on the first screen');
    t.ok(seen.scrolled, 'with the read history above it, scrolled past');
  });

  t.test('an upload by drag and drop', async (t) => {
    await a.page.goto(`${base}/#narrow/channel/1-general/topic/files`);
    await a.page.waitForSelector('h1#view-title:has-text("files")');
    const drop = await a.page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['dropped file contents'], 'notes.txt', { type: 'text/plain' }));
      return dt;
    });
    await a.page.locator('section.compose').dispatchEvent('drop', { dataTransfer: drop });
    await a.page.waitForFunction(() => /\[notes\.txt\]\(\/user_uploads\/[^)]+\)/.test((document.querySelector('#compose-box') as HTMLTextAreaElement).value));
    t.pass('the link is in the message box once uploaded');
    await a.page.click('#compose-send');
    const link = b.page.context().pages()[0].locator('a[href*="/user_uploads/"]', { hasText: 'notes.txt' });
    await b.page.goto(`${base}/#narrow/channel/1-general/topic/files`);
    await link.last().waitFor();
    const href = await link.last().getAttribute('href');
    const file = await b.page.request.get(new URL(href!, base).toString());
    t.equal(file.status(), 200, 'Bob opens the link with his session');
    t.equal(await file.text(), 'dropped file contents', 'the file’s bytes');
  });
});
