import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { Api } from './lib/api.js';
import { Latencies, sleep } from './lib/load.js';
import type { Env, Outcome } from './scenarios.js';

/**
 * The web app's targets (issue 26), measured in Debian's Chromium through playwright-core:
 *
 *   W1  navigation to the first screen of messages, in a realm of 1,000 users, 100 channels and
 *       100,000 messages (a channel view, opened from its URL: /register, the assets, the
 *       first GET /messages and the render), cold (first visit) and warm (assets cached);
 *   W2  a message sent from one browser's compose box until it shows in another's, at light
 *       load (one at a time), p99;
 *   W3  opening a channel of 10,000 messages from the sidebar until its first screen shows;
 *   W4  the compressed JavaScript and CSS of a first load, from the built files (dist/web).
 *
 * Timings are taken inside the pages (performance.now(), Date.now() on one machine's clock),
 * so playwright's own round trips are not in them. Absolute milliseconds on a shared machine:
 * read them with the load average the report prints.
 */
const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const WEB = fileURLToPath(new URL('../web/', import.meta.url));

export const webAvailable = () => existsSync(CHROMIUM);

/** Records, in the page, when the first message of a view is on screen. */
const FIRST_SCREEN = `(() => {
  const seen = () => document.querySelector('article.message') && !document.querySelector('.feed[aria-busy="true"]');
  const mo = new MutationObserver(() => { if (!window.__firstScreen && seen()) window.__firstScreen = performance.now(); });
  document.addEventListener('DOMContentLoaded', () => mo.observe(document.body, { childList: true, subtree: true, attributes: true }));
})();`;

async function logIn(browser: Browser, base: string, email: string, password: string): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  await context.addInitScript(FIRST_SCREEN);
  const page = await context.newPage();
  page.setDefaultTimeout(60_000);
  await page.goto(`${base}/login/`);
  await page.fill('#username', email);
  await page.fill('#password', password);
  await Promise.all([page.waitForURL(`${base}/**`), page.click('#login')]);
  await page.waitForSelector('#compose-box');
  return { page, close: () => context.close() };
}

const stats = (l: Latencies) => l.summary();

export async function webScenarios(env: Env, owner: { email: string; password: string; apiKey: string }, want: (id: string) => boolean): Promise<Outcome[]> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS, timeout: 60_000 });
  const base = env.target.url;
  const api = new Api(base, 16);
  const channels = env.target.seeded.channels;
  const out: Outcome[] = [];
  try {
    // The owner reads the seeded channels, as a member of the organization would.
    await api.ok(owner, 'POST', '/users/me/subscriptions', { subscriptions: channels.slice(0, 100).map((c) => ({ name: c.name })) });
    const a = await logIn(browser, base, owner.email, owner.password);
    const busiest = channels[0];

    if (want('W1')) {
      const url = `${base}/#narrow/channel/${busiest.id}-bench`;
      const times = new Latencies();
      let cold = 0;
      for (let i = 0; i < 11; i++) {
        const page = await a.page.context().newPage();
        await page.goto(url);
        await page.waitForFunction(() => (window as any).__firstScreen, undefined, { timeout: 60_000 });
        const ms = await page.evaluate(() => (window as any).__firstScreen as number);
        if (i === 0) cold = ms;
        else times.add(ms);
        await page.close();
      }
      const s = stats(times);
      out.push({ id: 'W1', title: `web app: navigation to first screen (${env.sizes.users} users, ${channels.length} channels, ${env.target.seeded.messages} messages)`, target: '<= 300 ms', value: `${Math.round(s.p50)} ms warm (p50), ${Math.round(cold)} ms cold`, pass: s.p50 <= 300, details: { coldMs: Math.round(cold), warm: s } });
      env.log(`W1: ${JSON.stringify(s)} cold ${Math.round(cold)}`);
    }

    if (want('W2')) {
      const password = 'bench-password-1';
      const email = 'web-bench@bench.invalid';
      await api.call(owner, 'POST', '/users', { email, password, full_name: 'Web Bench' });
      await api.ok(owner, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: busiest.name }], principals: [email] });
      const b = await logIn(browser, base, email, password);
      const topic = `${base}/#narrow/channel/${busiest.id}-bench/topic/w2`;
      await a.page.goto(topic);
      await b.page.goto(topic);
      await a.page.waitForSelector('h1#view-title:has-text("w2")');
      await b.page.waitForSelector('h1#view-title:has-text("w2")');
      await b.page.evaluate(() => {
        const w = window as any;
        w.__arrived = {};
        new MutationObserver(() => {
          for (const el of document.querySelectorAll('article.message .content')) {
            const m = /w2-(\d+)/.exec(el.textContent ?? '');
            if (m && !w.__arrived[m[1]]) w.__arrived[m[1]] = Date.now();
          }
        }).observe(document.querySelector('.feed')!, { childList: true, subtree: true });
      });
      const latencies = new Latencies();
      const n = env.sizes.users >= 1000 ? 100 : 20;
      for (let i = 0; i < n; i++) {
        const sentAt = await a.page.evaluate((text) => {
          const box = document.querySelector('#compose-box') as HTMLTextAreaElement;
          box.value = text;
          box.dispatchEvent(new Event('input', { bubbles: true }));
          const at = Date.now();
          (document.querySelector('#compose-send') as HTMLButtonElement).click();
          return at;
        }, `w2-${i}`);
        await b.page.waitForFunction((i) => (window as any).__arrived[i], i, { timeout: 30_000 });
        latencies.add((await b.page.evaluate((i) => (window as any).__arrived[i], i)) - sentAt);
        await sleep(100);
      }
      const s = stats(latencies);
      out.push({ id: 'W2', title: 'web app: a message from one browser to another, light load', target: 'p99 <= 100 ms', value: `p99 ${Math.round(s.p99)} ms (p50 ${Math.round(s.p50)})`, pass: s.p99 <= 100, details: { ...s } });
      env.log(`W2: ${JSON.stringify(s)}`);
      await b.close();
    }

    if (want('W3')) {
      // A channel of 10,000 messages: the seed's busiest channel, filled up over the API.
      const big = channels[1];
      const have = big ? Math.round(env.target.seeded.messages / channels.length) : 0;
      const need = Math.max(0, 10_000 - have);
      env.log(`W3: sending ${need} messages to ${big.name}`);
      for (let i = 0; i < need; i += 16) {
        await Promise.all(Array.from({ length: Math.min(16, need - i) }, (_, k) => api.ok(owner, 'POST', '/messages', { type: 'stream', to: big.id, topic: `t${(i + k) % 20}`, content: `filler ${i + k}`, read_by_sender: true })));
      }
      const times = new Latencies();
      await a.page.goto(`${base}/#feed`);
      for (let i = 0; i < 11; i++) {
        await a.page.goto(`${base}/#narrow/channel/${channels[2].id}-other`);
        await a.page.waitForSelector('article.message');
        await sleep(200);
        const ms = await a.page.evaluate(async (id) => {
          const link = document.querySelector(`a[data-channel="${id}"]`) as HTMLAnchorElement;
          const t0 = performance.now();
          link.click();
          return new Promise<number>((resolve) => {
            const check = () => {
              const feed = document.querySelector('.feed');
              const title = document.querySelector('#view-title')?.textContent ?? '';
              if (feed && feed.getAttribute('aria-busy') !== 'true' && title.includes(id) && document.querySelector('article.message')) resolve(performance.now() - t0);
              else requestAnimationFrame(check);
            };
            check();
          });
        }, big.name);
        if (i > 0) times.add(ms);
      }
      const s = stats(times);
      out.push({ id: 'W3', title: 'web app: opening a channel of 10,000 messages', target: '<= 150 ms', value: `${Math.round(s.p50)} ms (p50), p90 ${Math.round(s.p90)}`, pass: s.p50 <= 150, details: { ...s } });
      env.log(`W3: ${JSON.stringify(s)}`);
    }
    await a.close();
  } finally {
    await browser.close();
  }
  if (want('W4')) out.push(firstLoadBytes());
  return out;
}

/** W4: what a first load transfers of scripts and styles, compressed, from the built files. */
export function firstLoadBytes(): Outcome {
  const index = readFileSync(join(WEB, 'index.html'), 'utf8');
  const files = [...index.matchAll(/(?:src|href)="\/static\/web\/([^"]+\.(?:js|css))"/g)].map((m) => m[1]);
  const size = (f: string) => (existsSync(f) ? statSync(f).size : 0);
  const brotli = files.reduce((n, f) => n + size(join(WEB, `${f}.br`)), 0);
  const gzip = files.reduce((n, f) => n + size(join(WEB, `${f}.gz`)), 0);
  const raw = files.reduce((n, f) => n + size(join(WEB, f)), 0);
  const lazy = readdirSync(WEB).filter((f) => /^(katex|highlight).*\.css$/.test(f));
  return {
    id: 'W4',
    title: 'web app: first-load JavaScript and CSS, compressed',
    target: '<= 150 KB',
    value: `${(brotli / 1024).toFixed(1)} KB brotli, ${(gzip / 1024).toFixed(1)} KB gzip`,
    pass: gzip <= 150 * 1024,
    details: { files, rawBytes: raw, gzipBytes: gzip, brotliBytes: brotli, loadedOnlyWhenNeeded: lazy },
  };
}
