import t from 'tap';
import { loadConfig } from '../../src/lib/config.js';
import { startTestServer } from '../helpers/server.js';

/**
 * Pages are read by people: an error met before the realm's shard renders one (the per-address
 * limit, an unknown host, a body too large) is a page too, not the API's JSON.
 */
async function page(port: number, path: string, host: string, init: RequestInit = {}) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers: { host, ...(init.headers as Record<string, string>) } });
  return { status: res.status, type: res.headers.get('content-type'), retryAfter: res.headers.get('retry-after'), text: await res.text() };
}

t.test('pages answer HTML on errors', async (t) => {
  const defaults = loadConfig({});
  const ts = await startTestServer(t, { rateLimits: { ...defaults.rateLimits, enabled: true, perIp: [[60, 3]] } });
  const host = ts.server.config.externalHost;
  const link = '/join/aaaaaaaaaaaaaaaaaaaaaaaa/';

  const first = await page(ts.port, link, host);
  t.equal(first.status, 404, 'an unknown invitation key: the shard\'s own page');
  t.match(first.type, /^text\/html/, 'in HTML');
  await page(ts.port, link, host);
  await page(ts.port, link, host);
  const limited = await page(ts.port, link, host);
  t.equal(limited.status, 429, 'past the per-address limit: 429');
  t.match(limited.type, /^text\/html; charset=utf-8/, 'as a page');
  t.match(limited.text, /<h1>Too many requests<\/h1>/, 'that says what happened');
  t.match(limited.text, /try again in \d+ seconds?\./, 'and when to try again');
  t.match(limited.retryAfter, /^\d+$/, 'with Retry-After');

  const api = await fetch(`http://127.0.0.1:${ts.port}/api/v1/server_settings`, { headers: { host } });
  t.equal(api.status, 429, 'the API, limited the same way,');
  t.match(api.headers.get('content-type'), /^application\/json/, 'still answers JSON');

  const posted = await page(ts.port, link, host, { method: 'POST', body: 'x='.padEnd(3 * 1024 * 1024, 'x'), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.equal(posted.status, 429, 'a POST past the limit is refused before its body is read');
  t.match(posted.type, /^text\/html/, 'in HTML');
});

t.test('a page body that is too large is an HTML 413', async (t) => {
  const ts = await startTestServer(t);
  const host = ts.server.config.externalHost;
  const res = await page(ts.port, '/join/aaaaaaaaaaaaaaaaaaaaaaaa/', host, { method: 'POST', body: 'x='.padEnd(2 * 1024 * 1024, 'x'), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.equal(res.status, 413, '413');
  t.match(res.type, /^text\/html/, 'in HTML');
  t.match(res.text, /This page could not be shown/, 'a page');
});
