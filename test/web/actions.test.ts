import t from 'tap';
import { createUser, startTestServer } from '../helpers/server.js';
import { browserMissing, channelCount, launch, logInAs, messageWith, person, send } from './harness.js';

/**
 * What one person does to messages and with the compose box, checked against the server's own
 * answers: star, quote and reply, move, mark unread from here, delete; preview, a draft kept on
 * the server, a scheduled send; autocomplete of a mention.
 */
t.test('message actions and the compose box', { skip: browserMissing }, async (t) => {
  const ts = await startTestServer(t);
  const base = `http://127.0.0.1:${ts.port}`;
  const alice = await createUser(ts, 'alice@example.com', 'Alice Liddell', 'alice-password-1');
  await createUser(ts, 'bob@example.com', 'Bob Builder', 'bob-password-1');
  await ts.request('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'archive' }], principals: [alice.email] } });
  const asAlice = ts.as(alice);
  const browser = await launch(t);
  const { page } = await person(browser);
  page.on('dialog', (d) => void d.accept());
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
});
