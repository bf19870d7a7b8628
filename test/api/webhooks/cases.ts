import { readFileSync } from 'node:fs';
import type { Test } from 'tap';
import { fileURLToPath } from 'node:url';
import { checkResponse } from '../../helpers/openapi.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/**
 * The reference's own test cases of an integration (its tests.py), as data:
 * test/fixtures/webhooks/<integration>/cases.json lists, per reference test, what it posts (a
 * fixture, or a body, with its content type, headers and URL) and what it expects. Each case
 * posts through HTTP as the reference's test client does and reads the result back through
 * GET /messages; topic and content must be the reference's, byte for byte.
 */

interface Expected {
  channel?: string;
  topic: string;
  content: string;
  index?: number;
}

export interface Step {
  path: string;
  query: [string, string][];
  contentType: string;
  headers?: Record<string, string>;
  fixture?: string;
  body?: string;
  /** The fixture is the `payload` field of a form (Travis). */
  form?: 'payload';
  channel?: string;
  /** check_webhook: the newest message of the channel. */
  topic?: string;
  content?: string;
  /** No message is posted. */
  noop?: boolean;
  success?: boolean;
  /** Several messages, the last ones of their channel (index -1 the newest). */
  messages?: Expected[];
  error?: { msg: string; status: number };
  /** The request fails with a message containing this. */
  errorContains?: string;
  responseContains?: string[];
  /** The newest message overall (content, topic, recipient "personal") or fields of the response (json.<key>). */
  equals?: Record<string, unknown>;
}

export interface Case {
  test: string;
  steps: Step[];
}

const fixtures = fileURLToPath(new URL('../../../../test/fixtures/webhooks/', import.meta.url));

export function loadCases(integration: string): Case[] {
  return JSON.parse(readFileSync(`${fixtures}${integration}/cases.json`, 'utf8'));
}

function fixtureText(integration: string, name: string): string {
  return readFileSync(`${fixtures}${integration}/${name.includes('.') ? name : `${name}.json`}`, 'utf8');
}

export const BOT_NAME = 'Zulip Webhook Bot';
export const SUPPORT = 'support@stoa.example';

export interface Harness {
  ts: TestServer;
  botKey: string;
  botId: number;
}

/** A server with the reference test's bot (an incoming webhook bot of the owner) and channels. */
export async function startHarness(t: Test, integration: string, cases: Case[]): Promise<Harness> {
  const ts = await startTestServer(t, { email: { from: `Stoa <${SUPPORT}>` } });
  const bot = await ts.request('POST', '/bots', { params: { full_name: BOT_NAME, short_name: 'webhook', bot_type: 2, service_name: integration } });
  if (bot.status !== 200) throw new Error(`POST /bots: ${JSON.stringify(bot.body)}`);
  const channels = new Set<string>([integration]);
  for (const c of cases) for (const s of c.steps) for (const name of [s.channel, ...(s.messages ?? []).map((m) => m.channel)]) if (name) channels.add(name);
  const subscribed = await ts.request('POST', '/users/me/subscriptions', { params: { subscriptions: [...channels].map((name) => ({ name })) } });
  if (subscribed.status !== 200) throw new Error(`subscribe: ${JSON.stringify(subscribed.body)}`);
  return { ts, botKey: bot.body.api_key, botId: bot.body.user_id };
}

const fill = (text: string, h: Harness) => text.replaceAll('{{api_key}}', h.botKey).replaceAll('{{bot_name}}', BOT_NAME).replaceAll('{{support_email}}', SUPPORT);

async function post(h: Harness, integration: string, step: Step): Promise<{ status: number; text: string; body: any }> {
  const query = new URLSearchParams(step.query.map(([k, v]) => [k, fill(v, h)]));
  let body = step.fixture !== undefined ? fixtureText(integration, step.fixture) : (step.body ?? '');
  if (step.form === 'payload') body = new URLSearchParams({ payload: body }).toString();
  const headers: Record<string, string> = { 'content-type': step.contentType, host: h.ts.server.config.externalHost };
  for (const [k, v] of Object.entries(step.headers ?? {})) headers[k.replace(/^HTTP_/, '').replace(/_/g, '-').toLowerCase()] = v;
  const res = await fetch(`http://127.0.0.1:${h.ts.port}${step.path}?${query}`, { method: 'POST', body, headers });
  const text = await res.text();
  const parsed = JSON.parse(text);
  if (res.status === 200 && parsed.result === 'success') checkResponse('POST', step.path.replace(/^\/api\/v1/, ''), parsed);
  return { status: res.status, text, body: parsed };
}

/** The newest messages the owner sees, oldest first, in a channel or anywhere. */
async function newest(h: Harness, count: number, channel?: string): Promise<any[]> {
  const narrow = channel === undefined ? [] : [{ operator: 'channel', operand: channel }];
  const res = await h.ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: count, num_after: 0, narrow, apply_markdown: false, allow_empty_topic_name: true } });
  return res.body.messages;
}

/**
 * Runs one reference test; returns what differs from the reference (empty when it passes).
 */
export async function runCase(h: Harness, integration: string, c: Case): Promise<string[]> {
  const problems: string[] = [];
  for (const [i, step] of c.steps.entries()) {
    const at = `step ${i + 1} (${step.fixture ?? 'inline body'})`;
    const channel = step.channel ?? integration;
    const [before] = await newest(h, 1);
    const res = await post(h, integration, step);
    const [after] = await newest(h, 1);
    const posted = after !== undefined && after.id !== before?.id;
    const ok = res.status === 200 && res.body.result === 'success';
    if (step.error) {
      if (res.status !== step.error.status || res.body.msg !== step.error.msg) problems.push(`${at}: expected error ${step.error.status} "${step.error.msg}", got ${res.status} ${res.text}`);
    } else if (step.errorContains !== undefined) {
      if (ok || !String(res.body.msg).includes(step.errorContains)) problems.push(`${at}: expected an error with "${step.errorContains}", got ${res.status} ${res.text}`);
    } else if (step.equals && Object.keys(step.equals).every((k) => k.startsWith('json.'))) {
      // The response itself is checked below.
    } else if (!ok) problems.push(`${at}: expected success, got ${res.status} ${res.text}`);
    for (const s of step.responseContains ?? []) if (!res.text.includes(s)) problems.push(`${at}: response lacks "${s}": ${res.text}`);
    if (step.noop || step.errorContains !== undefined || (step.error && !step.equals)) {
      if (posted) problems.push(`${at}: expected no message, got ${JSON.stringify(after.content)}`);
    }
    if (step.topic !== undefined || step.content !== undefined) {
      const [msg] = await newest(h, 1, channel);
      if (!posted || msg?.id !== after.id) problems.push(`${at}: expected a message in #${channel}, none was posted`);
      else {
        if (msg.subject !== step.topic) problems.push(`${at}: topic ${JSON.stringify(msg.subject)}, reference ${JSON.stringify(step.topic)}`);
        if (msg.content !== step.content) problems.push(`${at}: content ${JSON.stringify(msg.content)}, reference ${JSON.stringify(step.content)}`);
      }
    }
    if (step.messages) {
      const count = Math.max(...step.messages.map((m) => -(m.index ?? -1)));
      for (const m of step.messages) {
        const msgs = await newest(h, count, m.channel ?? channel);
        const msg = msgs[msgs.length + (m.index ?? -1)];
        if (!msg || msg.id <= (before?.id ?? 0)) problems.push(`${at}: expected a message in #${m.channel ?? channel}`);
        else if (msg.subject !== m.topic || msg.content !== m.content) problems.push(`${at}: got ${JSON.stringify([msg.subject, msg.content])}, reference ${JSON.stringify([m.topic, m.content])}`);
      }
    }
    for (const [key, value] of Object.entries(step.equals ?? {})) {
      const expected = typeof value === 'string' ? fill(value, h) : value;
      let actual: unknown;
      if (key.startsWith('json.')) actual = res.body[key.slice(5)];
      else if (!posted) actual = undefined;
      else if (key === 'content') actual = after.content;
      else if (key === 'topic') actual = after.subject;
      else if (key === 'recipient') actual = after.type === 'private' ? 'personal' : 'stream';
      if (actual !== expected) problems.push(`${at}: ${key} ${JSON.stringify(actual)}, reference ${JSON.stringify(expected)}`);
    }
  }
  return problems;
}

/**
 * One tap test per reference test. `exceptions` names the reference tests known to differ,
 * with why (the README's integrations table lists the same); they must still differ, so that a
 * fix is noticed and the list kept true.
 */
export function runIntegration(t: Test, integration: string, opts: { setup?: (h: Harness) => Promise<void>; exceptions?: Record<string, string> } = {}): void {
  const cases = loadCases(integration);
  t.test(`${integration}: the reference's test cases`, async (t) => {
    const h = await startHarness(t, integration, cases);
    await opts.setup?.(h);
    let passed = 0;
    for (const c of cases) {
      const problems = await runCase(h, integration, c);
      const why = opts.exceptions?.[c.test];
      if (why) t.not(problems.length, 0, `${c.test}: differs from the reference (${why})`);
      else t.same(problems, [], `${c.test}: the reference's topic and content`);
      if (problems.length === 0) passed++;
    }
    t.comment(`${integration}: ${passed}/${cases.length} reference cases pass`);
  });
}
