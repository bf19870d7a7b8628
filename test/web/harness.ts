import { existsSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';

/**
 * The web app's browser tests: Debian's Chromium, headless, driven by playwright-core (which
 * downloads no browser of its own), as test/api/invites/browser.test.ts does. Without
 * /usr/bin/chromium (.ci/run installs it) a test says so loudly and skips.
 */
export const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export const browserMissing = existsSync(CHROMIUM) ? false : `no browser at ${CHROMIUM} (Debian package chromium; .ci/run installs it)`;
if (browserMissing) {
  const banner = '*'.repeat(78);
  console.error(`\n${banner}\n*** WEB APP BROWSER TEST SKIPPED: ${browserMissing}\n*** The web app was NOT tested in a browser.\n${banner}\n`);
}

export async function launch(t: { teardown(fn: () => unknown): void }): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS, timeout: 60_000 });
  t.teardown(() => browser.close());
  return browser;
}

/** A person's browser: a context of its own (cookies apart), one tab, generous timeouts. */
export async function person(browser: Browser, opts: { viewport?: { width: number; height: number } } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1200, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  return { context, page };
}

/** Logs in through the login page and waits for the app's first screen. */
export async function logInAs(page: Page, base: string, email: string, password: string): Promise<void> {
  await page.goto(`${base}/login/`);
  await page.fill('#username', email);
  await page.fill('#password', password);
  await Promise.all([page.waitForURL(`${base}/**`), page.click('#login')]);
  await page.waitForSelector('#compose-box');
}

/** The text of the sidebar's unread count for a channel (0 when it shows none). */
export async function channelCount(page: Page, channel: string): Promise<number> {
  const text = await page.locator(`a[data-channel="${channel}"] .count`).textContent({ timeout: 1000 }).catch(() => null);
  return text ? Number(text) : 0;
}

/** Sends a message from the compose box (the open view's channel and topic unless given). */
export async function send(page: Page, content: string, where: { channel?: string; topic?: string } = {}): Promise<void> {
  if (where.channel !== undefined) await page.fill('#compose-channel', where.channel);
  if (where.topic !== undefined) await page.fill('#compose-topic', where.topic);
  await page.fill('#compose-box', content);
  await page.click('#compose-send');
  await page.waitForFunction(() => (document.querySelector('#compose-box') as HTMLTextAreaElement).value === '');
}

/** Waits until a message with this text is on the page, and returns its id. */
export async function messageWith(page: Page, text: string): Promise<number> {
  const el = page.locator('article.message', { hasText: text }).last();
  await el.waitFor();
  return Number(await el.getAttribute('data-message-id'));
}
