import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { Inbox, type Mail } from '../api/invites/harness.js';
import { browserMissing, launch, logInAs, person } from './harness.js';

/**
 * The owner changes their address in the web app: the profile settings ask for it, the mail
 * to the new address holds the link, its page's button makes the change, and the open app shows
 * the new address from the events, its session still working; the owner's zuliprc follows.
 */
/** The mails to `address`, once one has come (or after 30 s, none). */
async function mailsTo(inbox: Inbox, address: string): Promise<Mail[]> {
  const deadline = Date.now() + 30_000;
  while (inbox.to(address).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return inbox.to(address);
}

t.test('the owner changes their address in the web app', { skip: browserMissing }, async (t) => {
  const inbox = new Inbox();
  await inbox.start();
  t.teardown(() => inbox.close());
  const ts = await startTestServer(t, { email: { from: 'Stoa Test <noreply@stoa.test>', smtp: { host: '127.0.0.1', port: inbox.port } } });
  const base = `http://127.0.0.1:${ts.port}`;
  const browser = await launch(t);
  const { page } = await person(browser);
  await logInAs(page, base, ts.owner.email, ts.owner.password);

  await page.goto(`${base}/#settings/profile`);
  await page.fill('#field-email', 'boss@example.com');
  await page.click('form[aria-label="Your email address"] button[type=submit]');
  await page.waitForSelector('text=Check your email to confirm the new address.');
  t.pass('the app says to check the mail');
  const link = /https?:\/\/\S+\/accounts\/confirm_new_email\/[A-Za-z0-9_-]{43}/.exec((await mailsTo(inbox, 'boss@example.com'))[0]?.text ?? '')?.[0];
  t.ok(link, 'the new address got the link');

  // The mail is read elsewhere: another browser, with no session.
  const mail = await person(browser);
  await mail.page.goto(`${base}${new URL(link!).pathname}`);
  await Promise.all([mail.page.waitForURL(`${base}/accounts/confirm_new_email/`), mail.page.click('#confirm')]);
  t.match(await mail.page.textContent('h1'), /Email changed!/, 'the button makes the change');

  await page.goto(`${base}/#settings/people`);
  await page.waitForSelector('td:text-is("boss@example.com")');
  t.pass('the open app shows the new address, from the events');
  t.equal(await page.locator(`td:text-is("${ts.owner.email}")`).count(), 0, 'and not the old one');
  const me = await page.evaluate(async () => (await fetch('/json/users/me')).json());
  t.equal(me.email, 'boss@example.com', 'its session still works');
  const zuliprc = join(ts.dataDir, 'zuliprc');
  t.match(readFileSync(zuliprc, 'utf8'), /^email=boss@example\.com$/m, 'the owner\'s zuliprc names the new address');
  t.equal(statSync(zuliprc).mode & 0o777, 0o600, 'and stays private');
  const [notice] = await mailsTo(inbox, ts.owner.email);
  t.match(notice?.text, /was recently changed to boss@example\.com/, 'the old address was told');
});
