import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checkResponse } from '../../helpers/openapi.js';
import type { TestServer } from '../../helpers/server.js';

const fixtures = fileURLToPath(new URL('../../../../test/fixtures/webhooks/', import.meta.url));

/** A fixture payload (test/fixtures/webhooks/<integration>/<name>.json) as text. */
export function fixture(integration: string, name: string): string {
  return readFileSync(`${fixtures}${integration}/${name}.json`, 'utf8');
}

/**
 * Posts to /api/v1/external/<integration> as a service does: its own body and headers, the
 * API key and options in the query string. 2xx answers are checked like every other.
 */
export async function postWebhook(ts: TestServer, integration: string, query: Record<string, string>, body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const url = `http://127.0.0.1:${ts.port}/api/v1/external/${integration}?${new URLSearchParams(query)}`;
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', host: ts.server.config.externalHost, ...headers } });
  const parsed = await res.json();
  if (res.status === 200 && parsed.result === 'success') checkResponse('POST', `/external/${integration}`, parsed);
  return { status: res.status, body: parsed };
}

/** The newest message of a channel topic, as the owner reads it. */
export async function lastMessage(ts: TestServer, narrow: unknown[]): Promise<any> {
  const res = await ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: 1, num_after: 0, narrow, apply_markdown: false } });
  return res.body.messages[0];
}
