import t from 'tap';
import { redPng } from '../api/avatars/images.js';
import { createUser, startTestServer } from '../helpers/server.js';
import { sendFiles } from '../helpers/upload.js';
import { browserMissing, launch, logInAs, messageWith, person } from './harness.js';

/**
 * What people set up around the messages, checked against the server's answers: a channel's
 * personal settings (colour, pin, mute, notifications), its permissions and privacy for those
 * who administer it, user groups (create, members, permissions, join and leave), a status with
 * its emoji, and avatars: uploaded ones shown, the rest as initials, nothing loaded from
 * another host.
 */
t.test('channels, groups, statuses and avatars', { skip: browserMissing }, async (t) => {
  const ts = await startTestServer(t);
  const base = `http://127.0.0.1:${ts.port}`;
  const bob = await createUser(ts, 'bob@example.com', 'Bob Builder', 'bob-password-1');
  const carol = await createUser(ts, 'carol@example.com', 'Carol Danvers', 'carol-password-1');
  const olivia = await createUser(ts, 'olivia@example.com', 'Olivia Admin', 'olivia-password-1');
  t.equal((await ts.request('PATCH', `/users/${olivia.userId}`, { params: { role: 200 } })).status, 200, 'Olivia is made an administrator');
  const asBob = ts.as(bob);
  await ts.request('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'workshop' }], principals: [bob.email, carol.email] } });
  const workshop = (await ts.request('GET', '/get_stream_id', { params: { stream: 'workshop' } })).body.stream_id as number;
  const browser = await launch(t);
  const { page } = await person(browser);
  page.on('dialog', (d) => void d.accept());
  // Every request the page makes, to check that none goes to another host.
  const requested: string[] = [];
  page.on('request', (r) => requested.push(r.url()));
  await logInAs(page, base, bob.email, bob.password);
  const subOf = async (streamId: number) => (await asBob('GET', '/users/me/subscriptions')).body.subscriptions.find((s: any) => s.stream_id === streamId);

  t.test('a channel’s personal settings', async (t) => {
    await page.goto(`${base}/#narrow/channel/${workshop}-workshop`);
    await page.click('a.view-settings');
    await page.waitForSelector('#channel-personal');
    t.match(page.url(), new RegExp(`#channels/${workshop}$`), 'the view’s settings link opens the channel’s settings');
    t.equal(await page.locator('#channel-org').count(), 0, 'a member who does not administer it sees only their own settings');

    await page.locator('#channel-color').fill('#3366cc');
    for (let i = 0; i < 40 && (await subOf(workshop)).color !== '#3366cc'; i++) await page.waitForTimeout(250);
    t.equal((await subOf(workshop)).color, '#3366cc', 'the colour is saved');
    await page.waitForFunction(() => (document.querySelector('a[data-channel="workshop"] .swatch') as HTMLElement)?.style.background.includes('51, 102, 204'));
    t.pass('and the sidebar shows it');

    t.equal(await page.locator('.channels li.channel a').first().getAttribute('data-channel'), 'general', 'in name order, general comes first');
    await page.check('label:has-text("Pin to the top") input');
    await page.waitForFunction(() => document.querySelector('.channels li.channel a')?.getAttribute('data-channel') === 'workshop');
    t.ok((await subOf(workshop)).pin_to_top, 'pinned: the server has it, and the sidebar lists it first');
    await page.check('label:has-text("Mute this channel") input');
    await page.waitForSelector('.channels li.channel.muted a[data-channel="workshop"]');
    t.ok((await subOf(workshop)).is_muted, 'muted: dimmed in the sidebar');
    await page.uncheck('label:has-text("Mute this channel") input');
    await page.waitForSelector('.channels li.channel:not(.muted) a[data-channel="workshop"]');

    const desktop = page.locator('label:has-text("Desktop notifications") input');
    t.equal(await desktop.isChecked(), false, 'desktop notifications follow the person’s default (off for channels)');
    await desktop.check();
    for (let i = 0; i < 40 && (await subOf(workshop)).desktop_notifications !== true; i++) await page.waitForTimeout(250);
    t.equal((await subOf(workshop)).desktop_notifications, true, 'turned on for this channel');
    await page.click('button:has-text("Reset to my default notifications")');
    for (let i = 0; i < 40 && (await subOf(workshop)).desktop_notifications !== false; i++) await page.waitForTimeout(250);
    t.equal((await subOf(workshop)).desktop_notifications, false, 'reset to the default');
    await page.waitForFunction(() => !(document.querySelector('label.inline input') as HTMLInputElement).checked);
  });

  t.test('channel permissions and privacy, for its administrators', async (t) => {
    const { page: admin } = await person(browser);
    admin.on('dialog', (d) => void d.accept());
    await logInAs(admin, base, olivia.email, olivia.password);
    await admin.goto(`${base}/#channels/${workshop}`);
    await admin.waitForSelector('#channel-org');
    const groups = (await ts.request('GET', '/user_groups')).body.user_groups as any[];
    const admins = groups.find((g) => g.name === 'role:administrators').id;

    await admin.selectOption('#setting-stream-can_send_message_group', String(admins));
    const stream = async () => (await ts.request('GET', `/streams/${workshop}`)).body.stream;
    for (let i = 0; i < 40 && (await stream()).can_send_message_group !== admins; i++) await admin.waitForTimeout(250);
    t.equal((await stream()).can_send_message_group, admins, 'who can post: administrators, on the server');
    await page.goto(`${base}/#narrow/channel/${workshop}-workshop/topic/rules`);
    await page.fill('#compose-box', 'May I still post?');
    await page.click('#compose-send');
    await page.waitForSelector('.compose .error');
    t.match(await page.textContent('.compose .error'), /^Not authorized to send to channel 'workshop'/, 'Bob’s message is refused, with the server’s words');
    await page.fill('#compose-box', '');

    t.equal(await admin.locator('#channel-privacy option[value="web-public"]').count(), 0, 'web-public is not offered where the organization does not allow it');
    await admin.selectOption('#channel-privacy', 'private-protected');
    for (let i = 0; i < 40 && !(await stream()).invite_only; i++) await admin.waitForTimeout(250);
    const s = await stream();
    t.ok(s.invite_only, 'made private');
    t.equal(s.history_public_to_subscribers, false, 'with protected history');
    await page.waitForSelector('a[data-channel="workshop"] .swatch:has-text("🔒")');
    t.pass('Bob’s sidebar shows the lock');
    await admin.context().close();
  });

  t.test('user groups: create, members, permissions, leave and join', async (t) => {
    await page.goto(`${base}/#settings/groups`);
    await page.waitForSelector('form[aria-label="Create a group"]');
    await page.fill('#field-name', 'builders');
    await page.fill('#field-description', 'People who build');
    await page.fill('#field-members', 'Carol Danvers, bob@example.com');
    await page.click('form[aria-label="Create a group"] button[type=submit]');
    await page.waitForSelector('.group-list a:has-text("builders")');
    const group = async () => ((await asBob('GET', '/user_groups')).body.user_groups as any[]).find((g) => g.name === 'builders');
    const made = await group();
    t.same([...made.members].sort(), [bob.userId, carol.userId].sort(), 'created on the server with its members');

    await page.click('.group-list a:has-text("builders")');
    await page.waitForSelector('h2:has-text("builders")');
    t.same(await page.locator(`ul[aria-label="Members of builders"] li`).allTextContents().then((l) => l.map((s) => s.replace(/Remove$/, '').trim())), ['Bob Builder', 'Carol Danvers'], 'its members listed');
    await page.click('button[aria-label="Remove Carol Danvers from builders"]');
    await page.waitForFunction(() => document.querySelectorAll('ul[aria-label="Members of builders"] li').length === 1);
    t.same((await group()).members, [bob.userId], 'Carol removed, on the server');
    await page.fill('#field-people', 'carol@example.com');
    await page.click('form[aria-label="Add members"] button[type=submit]');
    await page.waitForFunction(() => document.querySelectorAll('ul[aria-label="Members of builders"] li').length === 2);
    t.same([...(await group()).members].sort(), [bob.userId, carol.userId].sort(), 'and added again');

    const admins = ((await asBob('GET', '/user_groups')).body.user_groups as any[]).find((g) => g.name === 'role:administrators').id;
    await page.selectOption('#setting-group-can_mention_group', String(admins));
    for (let i = 0; i < 40 && (await group()).can_mention_group !== admins; i++) await page.waitForTimeout(250);
    t.equal((await group()).can_mention_group, admins, 'who can mention it: administrators');

    await page.click('button:has-text("Leave group")');
    await page.waitForFunction(() => document.querySelectorAll('ul[aria-label="Members of builders"] li').length === 1);
    t.same((await group()).members, [carol.userId], 'Bob left');
    // Bob still manages the group he made: he may add members, so he may join again.
    await page.click('button:has-text("Join group")');
    await page.waitForFunction(() => document.querySelectorAll('ul[aria-label="Members of builders"] li').length === 2);
    t.ok((await group()).members.includes(bob.userId), 'and joined again');

    // Carol, a member who does not manage it, is offered no management.
    const { page: other } = await person(browser);
    await logInAs(other, base, carol.email, carol.password);
    await other.goto(`${base}/#settings/groups/${made.id}`);
    await other.waitForSelector('h2:has-text("builders")');
    t.equal(await other.locator('button:has-text("Deactivate group"), form[aria-label="Add members"], button[aria-label^="Remove "]').count(), 0, 'Carol is offered no management of a group she does not manage');
    await other.context().close();
  });

  t.test('a field keeps what is typed while events arrive', async (t) => {
    await page.goto(`${base}/#settings/profile`);
    await page.fill('#field-full_name', 'Bob the Builder');
    // Carol's message re-renders the app (the sidebar's unread count) before Bob saves.
    const before = await page.evaluate(() => Number(document.querySelector('a[data-channel="general"] .count')?.textContent ?? 0));
    const sent = await ts.as(carol)('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'typing', content: 'Meanwhile' } });
    t.equal(sent.status, 200, 'Carol sends a message while Bob types');
    await page.waitForFunction((n) => Number(document.querySelector('a[data-channel="general"] .count')?.textContent ?? 0) === n, before + 1);
    t.equal(await page.inputValue('#field-full_name'), 'Bob the Builder', 'the event left the typed name in the field');
    await page.click('form[aria-label="Your name"] button[type=submit]');
    await page.waitForSelector('form[aria-label="Your name"] .ok:has-text("Saved.")');
    t.equal((await asBob('GET', '/users/me')).body.full_name, 'Bob the Builder', 'and the name saved is the one typed');
  });

  t.test('a status with its emoji, shown beside the name', async (t) => {
    await page.goto(`${base}/#settings/profile`);
    await page.click('button[aria-labelledby="status-emoji-label status-emoji-current"]');
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Search emoji');
    await page.keyboard.type('palm_tree');
    await page.waitForSelector('.emoji-grid button[data-emoji="palm_tree"]');
    await page.keyboard.press('Enter');
    await page.fill('#field-status_text', 'On holiday');
    await page.click('form[aria-label="Your status"] button[type=submit]');
    await page.waitForSelector('form[aria-label="Your status"] .ok:has-text("Status set.")');
    const status = (await asBob('GET', `/users/${bob.userId}/status`)).body.status;
    t.same({ text: status.status_text, emoji: status.emoji_name }, { text: 'On holiday', emoji: 'palm_tree' }, 'the server has the status and its emoji');
    await asBob('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'away', content: 'Back next week' } });
    await page.goto(`${base}/#narrow/channel/1-general/topic/away`);
    const id = await messageWith(page, 'Back next week');
    t.equal(await page.locator(`article[data-message-id="${id}"] .status-emoji`).getAttribute('aria-label'), 'Status: On holiday', 'the emoji beside Bob’s name');
  });

  t.test('avatars: uploaded ones from this server, initials otherwise, nothing from elsewhere', async (t) => {
    const up = await sendFiles(ts, 'POST', '/users/me/avatar', [{ filename: 'me.png', content: await redPng(), contentType: 'image/png' }], { auth: bob });
    t.equal(up.status, 200, 'Bob uploads an avatar');
    await ts.as(carol)('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'faces', content: 'Carol has no picture' } });
    await asBob('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'faces', content: 'Bob has one' } });
    await page.goto(`${base}/#narrow/channel/1-general/topic/faces`);
    const bobs = await messageWith(page, 'Bob has one');
    const carols = await messageWith(page, 'Carol has no picture');
    const img = page.locator(`article[data-message-id="${bobs}"] img.avatar`);
    t.match(await img.getAttribute('src'), /^\/user_avatars\/\d+\/[0-9a-f]+\.png\?version=\d+$/, 'Bob’s uploaded avatar, from this server');
    await page.waitForFunction((id) => {
      const el = document.querySelector<HTMLImageElement>(`article[data-message-id="${id}"] img.avatar`);
      return !!el && el.complete && el.naturalWidth > 0;
    }, bobs);
    t.pass('and it loads');
    t.equal(await page.locator(`article[data-message-id="${carols}"] .avatar.initial`).textContent(), 'C', 'Carol, without one, is her initial');
    const elsewhere = requested.filter((u) => !u.startsWith(base) && !u.startsWith('data:'));
    t.same(elsewhere, [], 'the app requested nothing from another host');
    const csp = String((await page.request.get(`${base}/`)).headers()['content-security-policy']);
    t.match(csp, /img-src 'self' data: blob:(;|$)/, 'and its CSP allows images from this server only');
  });
});
