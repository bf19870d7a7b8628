import t from 'tap';
import { createUser, startTestServer } from '../helpers/server.js';
import { uploadFiles } from '../helpers/upload.js';
import { redPng } from '../api/avatars/images.js';
import { browserMissing, channelCount, launch, logInAs, messageWith, person, send } from './harness.js';

/**
 * What one person does to messages and with the compose box, checked against the server's own
 * answers: star, quote and reply, move, mark unread from here, delete; preview, a draft kept on
 * the server, a scheduled send; autocomplete of a mention; the drafts list; which key sends;
 * edit history, read receipts and an image opened full size, each as the organization allows.
 */
t.test('message actions and the compose box', { skip: browserMissing }, async (t) => {
  const ts = await startTestServer(t);
  const base = `http://127.0.0.1:${ts.port}`;
  const alice = await createUser(ts, 'alice@example.com', 'Alice Liddell', 'alice-password-1');
  const bob = await createUser(ts, 'bob@example.com', 'Bob Builder', 'bob-password-1');
  await ts.request('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'archive' }], principals: [alice.email] } });
  const asAlice = ts.as(alice);
  const browser = await launch(t);
  const { page } = await person(browser);
  page.on('dialog', (d) => void d.accept());
  // A script error in the app fails the test where it happens.
  page.on('pageerror', (e) => t.fail(`the page threw: ${e.message}`));
  await logInAs(page, base, alice.email, alice.password);
  await page.goto(`${base}/#narrow/channel/1-general/topic/actions`);
  await page.waitForSelector('h1#view-title:has-text("actions")');
  const flagsOf = async (id: number) => (await asAlice('GET', `/messages/${id}`)).body.message.flags as string[];
  const menu = async (id: number, item: string) => {
    const msg = page.locator(`article[data-message-id="${id}"]`);
    await msg.hover();
    await msg.locator('button[aria-label="More actions"]').click();
    await msg.locator(`[role=menuitem]:has-text("${item}")`).click();
  };
  /** The items the message's menu offers now (opened and closed again). */
  const menuItems = async (id: number) => {
    const msg = page.locator(`article[data-message-id="${id}"]`);
    await msg.hover();
    await msg.locator('button[aria-label="More actions"]').click();
    const items = await msg.locator('[role=menuitem]').allTextContents();
    await msg.locator('button[aria-label="More actions"]').click();
    return items.map((s) => s.trim());
  };
  /** Waits until the menu offers, or no longer offers, an item (after an event changed the rules). */
  const untilOffered = async (id: number, item: string, offered: boolean) => {
    for (let i = 0; i < 60 && (await menuItems(id)).includes(item) !== offered; i++) await page.waitForTimeout(250);
    return (await menuItems(id)).includes(item);
  };

  await send(page, 'First: the plan', { channel: 'general', topic: 'actions' });
  await send(page, 'Second: the details');
  const first = await messageWith(page, 'First: the plan');
  const second = await messageWith(page, 'Second: the details');

  t.test('star', async (t) => {
    await page.locator(`article[data-message-id="${first}"]`).hover();
    await page.click(`article[data-message-id="${first}"] button[aria-label="Star message"]`);
    await page.waitForSelector(`article[data-message-id="${first}"] .star-mark`);
    t.ok((await flagsOf(first)).includes('starred'), 'the server has it starred');
    await page.goto(`${base}/#narrow/is/starred`);
    await messageWith(page, 'First: the plan');
    t.equal(await page.locator('article.message').count(), 1, 'the starred view shows it alone');
    await page.goto(`${base}/#narrow/channel/1-general/topic/actions`);
  });

  t.test('quote and reply', async (t) => {
    await page.locator(`article[data-message-id="${second}"]`).hover();
    await page.click(`article[data-message-id="${second}"] button[aria-label="Quote and reply"]`);
    await page.waitForFunction(() => (document.querySelector('#compose-box') as HTMLTextAreaElement).value.includes('```quote'));
    const text = await page.inputValue('#compose-box');
    t.match(text, /^@_\*\*Alice Liddell\|\d+\*\* \[said\]\(.*near\/\d+\):\n```quote\nSecond: the details\n```/, 'the quote as the reference writes it');
    await page.fill('#compose-box', '');
  });

  t.test('preview, autocomplete and a draft on the server', async (t) => {
    await page.click('#compose-box');
    await page.keyboard.type('Hello @Bob');
    await page.waitForSelector('#compose-typeahead [role=option]:has-text("Bob Builder")');
    await page.keyboard.press('Enter');
    t.equal(await page.inputValue('#compose-box'), 'Hello @**Bob Builder** ', 'the mention completed');
    await page.keyboard.type('see #arch');
    await page.waitForSelector('#compose-typeahead [role=option]:has-text("#archive")');
    await page.keyboard.press('Tab');
    t.equal(await page.inputValue('#compose-box'), 'Hello @**Bob Builder** see #**archive** ', 'and the channel link');
    await page.click('button:has-text("Preview")');
    await page.waitForSelector('.preview .user-mention');
    t.match(await page.locator('.preview').innerHTML(), /class="user-mention"[^>]*>@Bob Builder/, 'the preview is the server’s rendering');
    const draft = async () => (await asAlice('GET', '/drafts')).body.drafts as any[];
    for (let i = 0; i < 60 && (await draft()).length === 0; i++) await page.waitForTimeout(250);
    const drafts = await draft();
    t.equal(drafts.length, 1, 'a draft is kept on the server');
    t.match(drafts[0].content, /Hello @\*\*Bob Builder\*\*/, 'with what was typed');
    await page.click('#compose-send');
    await messageWith(page, 'see');
    for (let i = 0; i < 40 && (await draft()).length > 0; i++) await page.waitForTimeout(250);
    t.same(await draft(), [], 'sending removes the draft');
  });

  t.test('a draft from another device opens with its conversation', async (t) => {
    const made = await asAlice('POST', '/drafts', { params: { drafts: [{ type: 'stream', to: [1], topic: 'drafted', content: 'Started on my phone', timestamp: Math.floor(Date.now() / 1000) }] } });
    t.equal(made.status, 200, 'a draft saved by another client');
    await page.fill('#compose-box', '');
    await page.goto(`${base}/#narrow/channel/1-general/topic/drafted`);
    await page.waitForFunction(() => (document.querySelector('#compose-box') as HTMLTextAreaElement).value === 'Started on my phone');
    t.pass('the compose box holds it');
    await page.click('#compose-send');
    await messageWith(page, 'Started on my phone');
    for (let i = 0; i < 40 && (await asAlice('GET', '/drafts')).body.drafts.length > 0; i++) await page.waitForTimeout(250);
    t.same((await asAlice('GET', '/drafts')).body.drafts, [], 'sent, it is no longer a draft');
    await page.goto(`${base}/#narrow/channel/1-general/topic/actions`);
    await messageWith(page, 'Second: the details');
  });

  t.test('a user group created meanwhile completes too', async (t) => {
    const made = await ts.request('POST', '/user_groups/create', { params: { name: 'designers', description: 'The design team', members: [alice.userId] } });
    t.equal(made.status, 200, 'the owner creates a group');
    await page.fill('#compose-box', '');
    await page.click('#compose-box');
    await page.keyboard.type('Ping @desig');
    await page.waitForSelector('#compose-typeahead [role=option]:has-text("designers")', { timeout: 30_000 });
    await page.keyboard.press('Enter');
    t.equal(await page.inputValue('#compose-box'), 'Ping @*designers* ', 'the group mention, learned from its event');
    await page.fill('#compose-box', '');
  });

  t.test('a scheduled send', async (t) => {
    await page.fill('#compose-box', 'Reminder for tomorrow');
    await page.click('button:has-text("Schedule")');
    const when = new Date(Date.now() + 86_400_000);
    const local = new Date(when.getTime() - when.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.fill('.schedule input[type=datetime-local]', local);
    await page.click('button:has-text("Schedule message")');
    await page.waitForFunction(() => (document.querySelector('#compose-box') as HTMLTextAreaElement).value === '');
    const scheduled = (await asAlice('GET', '/scheduled_messages')).body.scheduled_messages;
    t.equal(scheduled.length, 1, 'the server holds one scheduled message');
    t.equal(scheduled[0].content, 'Reminder for tomorrow', 'with its text');
    t.ok(Math.abs(scheduled[0].scheduled_delivery_timestamp - when.getTime() / 1000) < 120, 'for the time chosen');
  });

  t.test('move to another channel', async (t) => {
    await menu(second, 'Move messages');
    await page.selectOption(`article[data-message-id="${second}"] select >> nth=0`, { label: 'archive' });
    await page.fill(`article[data-message-id="${second}"] input`, 'moved here');
    await page.click(`article[data-message-id="${second}"] button:has-text("Move")`);
    await page.waitForSelector(`article[data-message-id="${second}"]`, { state: 'detached' });
    t.pass('the message leaves the view');
    const moved = (await asAlice('GET', `/messages/${second}`)).body.message;
    t.equal(moved.subject, 'moved here', 'the server has the new topic');
    t.equal(moved.display_recipient, 'archive', 'and channel');
  });

  t.test('mark unread from here, then delete', async (t) => {
    await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'later', content: 'owner one' } });
    await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'later', content: 'owner two' } });
    await page.goto(`${base}/#narrow/channel/1-general/topic/later`);
    const one = await messageWith(page, 'owner one');
    await page.waitForFunction(() => !document.querySelector('a[data-channel="general"] .count'));
    await page.goto(`${base}/#narrow/channel/1-general/topic/actions`);
    await page.goto(`${base}/#narrow/channel/1-general/topic/later`);
    await messageWith(page, 'owner two');
    await menu(one, 'Mark as unread from here');
    await page.goto(`${base}/#narrow/is/starred`);
    await page.waitForFunction(() => document.querySelector('a[data-channel="general"] .count')?.textContent === '2');
    t.equal(await channelCount(page, 'general'), 2, 'both messages are unread again');
    t.notOk((await flagsOf(one)).includes('read'), 'as the server says');

    await page.goto(`${base}/#narrow/channel/1-general/topic/actions`);
    await menu(first, 'Delete message');
    await page.waitForSelector(`article[data-message-id="${first}"]`, { state: 'detached' });
    t.equal((await asAlice('GET', `/messages/${first}`)).status, 400, 'the server no longer has it');
  });
  t.test('the drafts list: open one in its conversation, delete another', async (t) => {
    const now = Math.floor(Date.now() / 1000);
    await asAlice('POST', '/drafts', { params: { drafts: [{ type: 'stream', to: [1], topic: 'listed', content: 'A draft about the list', timestamp: now - 60 }] } });
    await asAlice('POST', '/drafts', { params: { drafts: [{ type: 'private', to: [bob.userId], topic: '', content: 'A private draft for Bob', timestamp: now }] } });
    await page.waitForFunction(() => document.querySelector('a[data-testid="drafts"] .count')?.textContent === '2');
    t.pass('the sidebar counts two drafts, learned from their events');
    await page.click('a[data-testid="drafts"]');
    await page.waitForSelector('#drafts-title');
    const listed = await page.locator('.draft .draft-content').allTextContents();
    t.same(listed, ['A private draft for Bob', 'A draft about the list'], 'both listed, newest first');
    t.match(await page.locator('.draft').first().textContent(), /Bob Builder/, 'the DM draft names its recipient');

    await page.click('button[aria-label="Delete the draft to Bob Builder"]');
    await page.waitForFunction(() => document.querySelectorAll('.draft').length === 1);
    t.same((await asAlice('GET', '/drafts')).body.drafts.map((d: any) => d.content), ['A draft about the list'], 'deleted on the server');

    await page.click('button[aria-label^="Open the draft to #general"]');
    await page.waitForSelector('h1#view-title:has-text("listed")');
    t.match(decodeURIComponent(page.url()), /#narrow\/channel\/1-general\/topic\/listed$/, 'opened in its conversation');
    t.equal(await page.inputValue('#compose-box'), 'A draft about the list', 'with the compose box holding it');
    t.equal(await page.inputValue('#compose-topic'), 'listed', 'aimed at its topic');
    await page.keyboard.press('Enter');
    await messageWith(page, 'A draft about the list');
    for (let i = 0; i < 40 && (await asAlice('GET', '/drafts')).body.drafts.length > 0; i++) await page.waitForTimeout(250);
    t.same((await asAlice('GET', '/drafts')).body.drafts, [], 'sent, it leaves the list');
    await page.waitForFunction(() => !document.querySelector('a[data-testid="drafts"] .count'));
  });

  t.test('which key sends: shown beside Send, switched in one click', async (t) => {
    const enterSends = async () => (await asAlice('POST', '/register', { params: { fetch_event_types: ['user_settings'], event_types: ['message'] } })).body.user_settings.enter_sends;
    t.equal(await enterSends(), true, "a new organization's default: Enter sends");
    t.match(await page.textContent('#send-hint'), /^Enter to send$/, 'the compose box says Enter sends');
    await page.fill('#compose-box', 'first');
    await page.press('#compose-box', 'Shift+Enter');
    await page.keyboard.type('second');
    await page.press('#compose-box', 'Control+Enter');
    await page.keyboard.type('third');
    t.equal(await page.inputValue('#compose-box'), 'first\nsecond\nthird', 'Shift+Enter and Ctrl+Enter break lines');
    await page.press('#compose-box', 'Enter');
    await messageWith(page, 'third');
    t.equal(await page.inputValue('#compose-box'), '', 'and Enter sends');

    await page.click('#send-hint');
    await page.waitForFunction(() => document.querySelector('#send-hint')?.textContent === 'Ctrl+Enter to send');
    t.equal(await enterSends(), false, 'one click switched the person’s setting (the reference’s server default)');
    await page.fill('#compose-box', 'line one');
    await page.press('#compose-box', 'Enter');
    await page.keyboard.type('line two');
    t.equal(await page.inputValue('#compose-box'), 'line one\nline two', 'now Enter breaks a line');
    await page.press('#compose-box', 'Shift+Enter');
    await page.keyboard.type('line three');
    t.equal(await page.inputValue('#compose-box'), 'line one\nline two\nline three', 'and so does Shift+Enter');
    await page.press('#compose-box', 'Control+Enter');
    await messageWith(page, 'line three');
    t.pass('Ctrl+Enter sends');

    await page.click('button[aria-label="Send options"]');
    await page.click('.enter-choice:has-text("Enter to send") >> nth=0 >> input');
    await page.waitForFunction(() => document.querySelector('#send-hint')?.textContent === 'Enter to send');
    t.equal(await enterSends(), true, 'the send options switch it back');
  });

  t.test('edit history, as the organization allows it', async (t) => {
    const sent = await asAlice('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'history', content: 'The meeting is on Monday' } });
    const id = sent.body.id;
    await page.goto(`${base}/#narrow/channel/1-general/topic/history`);
    await messageWith(page, 'on Monday');
    t.equal(await page.locator(`article[data-message-id="${id}"] .edited`).count(), 0, 'not edited: no mark');
    await asAlice('PATCH', `/messages/${id}`, { params: { content: 'The meeting is on Tuesday' } });
    const mark = page.locator(`article[data-message-id="${id}"] button.edited`);
    await mark.waitFor();
    t.equal(await mark.textContent(), '(edited)', 'marked edited, live');
    await mark.click();
    const dialog = page.locator('dialog.edit-history');
    await dialog.locator('.history-entry').nth(1).waitFor();
    t.match(await dialog.locator('.history-entry').first().textContent(), /Posted by Alice Liddell/, 'the original, by its sender');
    t.match(await dialog.locator('.history-entry').first().textContent(), /on Monday/, 'with its first text');
    t.match(await dialog.locator('.history-entry').nth(1).textContent(), /Edited by Alice Liddell/, 'then the edit');
    t.ok(await dialog.locator('.history-entry').nth(1).locator('.highlight_text_inserted').count(), 'what was inserted is marked, as the server’s diff has it');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    t.pass('Escape closes it');

    t.equal((await ts.request('PATCH', '/realm', { params: { message_edit_history_visibility_policy: 'none' } })).status, 200, 'the owner turns edit history off');
    await page.waitForSelector(`article[data-message-id="${id}"] span.edited`);
    t.equal(await mark.count(), 0, 'the mark no longer opens anything');
    t.equal(await untilOffered(id, 'View edit history', false), false, 'nor does the menu offer it');
    await ts.request('PATCH', '/realm', { params: { message_edit_history_visibility_policy: 'all' } });
    t.equal(await untilOffered(id, 'View edit history', true), true, 'turned on again, it is back');
  });

  t.test('read receipts, where the organization enables them', async (t) => {
    const sent = await asAlice('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'receipts', content: 'Did everyone read this?' } });
    await ts.as(bob)('POST', '/messages/flags', { params: { messages: [sent.body.id], op: 'add', flag: 'read' } });
    await page.goto(`${base}/#narrow/channel/1-general/topic/receipts`);
    await messageWith(page, 'everyone read');
    await menu(sent.body.id, 'View read receipts');
    const dialog = page.locator('dialog.read-receipts');
    await dialog.locator('.receipts li').first().waitFor();
    t.same(await dialog.locator('.receipts li').allTextContents(), ['Bob Builder'], 'Bob has read it');
    await dialog.locator('button[aria-label="Close"]').click();
    await dialog.waitFor({ state: 'detached' });

    await ts.request('PATCH', '/realm', { params: { enable_read_receipts: false } });
    t.equal(await untilOffered(sent.body.id, 'View read receipts', false), false, 'disabled by the organization: no longer offered');
  });

  t.test('an image preview opens full size in a lightbox', async (t) => {
    const up = await uploadFiles(ts, [{ filename: 'red.png', content: await redPng(), contentType: 'image/png' }], { auth: alice });
    t.equal(up.status, 200, 'an image uploaded');
    await asAlice('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'pictures', content: `[red.png](${up.body.url})` } });
    await page.goto(`${base}/#narrow/channel/1-general/topic/pictures`);
    const preview = page.locator('.message_inline_image img').last();
    await preview.waitFor();
    await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('.message_inline_image img')].some((i) => i.complete && i.naturalWidth > 0));
    t.pass('the preview loads, from this server');
    await preview.click();
    const box = page.locator('dialog.lightbox img');
    await box.waitFor();
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('dialog.lightbox img');
      return !!img && img.complete && img.naturalWidth === 300;
    });
    t.pass('the lightbox shows the image at its full 300 pixels');
    t.match(page.url(), /topic\/pictures$/, 'without leaving the view');
    await page.keyboard.press('Escape');
    await box.waitFor({ state: 'detached' });
  });
});
