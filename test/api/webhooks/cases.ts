import { readFileSync } from 'node:fs';
import type { Test } from 'tap';
import { checkResponse } from '../../helpers/openapi.js';
import type { TestServer } from '../../helpers/server.js';

/**
 * The reference's own test cases for an integration (test/fixtures/webhooks/<name>/cases.json,
 * read out of zerver/webhooks/<name>/tests.py): each posts a fixture as the reference's test
 * client does (path, query, headers, content type, HTTP Basic where it used it) and expects the
 * newest message(s) of the channel to have exactly the reference's topic and content, or no
 * message at all.
 */

const fixtures = new URL('../../../../test/fixtures/webhooks/', import.meta.url);

interface Expected {
  which: 'last' | 'second_to_last' | 'dm';
  topic?: string;
  content: string;
}

interface Post {
  path: string;
  query: Record<string, string>;
  fixture?: string;
  body?: string;
  basicAuth?: boolean;
  headers: Record<string, string>;
  contentType?: string;
  expect: 'noop' | Expected[] | { error: string; status: number };
}

export interface Case {
  class: string;
  test: string;
  /** "10.2": the reference's case as of 10.2; "main": added by the reference after 10.2. */
  origin: '10.2' | 'main';
  note?: string;
  /** A unit test of a helper, with no request; the test file covers it over HTTP itself. */
  unit?: boolean;
  posts: Post[];
}

export function loadCases(integration: string): Case[] {
  return JSON.parse(readFileSync(new URL(`${integration}/cases.json`, fixtures), 'utf8')).cases;
}

export function fixtureText(integration: string, name: string): string {
  return readFileSync(new URL(`${integration}/${name}.json`, fixtures), 'utf8');
}

export interface Bot {
  email: string;
  apiKey: string;
  userId: number;
}

let bots = 0;

/** Creates an incoming webhook bot for the integration, owned by the realm owner. */
export async function webhookBot(ts: TestServer, integration: string): Promise<Bot> {
  const n = ++bots;
  const res = await ts.request('POST', '/bots', { params: { full_name: `${integration} bot ${n}`, short_name: `${integration}-hook-${n}`, bot_type: 2, service_name: integration } });
  const user = await ts.request('GET', `/users/${res.body.user_id}`);
  return { email: user.body.user.email, apiKey: res.body.api_key, userId: res.body.user_id };
}

/** Posts as a service does, to any path under /api/v1/external. */
export async function postRaw(ts: TestServer, path: string, query: Record<string, string>, body: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const url = `http://127.0.0.1:${ts.port}${path}?${new URLSearchParams(query)}`;
  const res = await fetch(url, { method: 'POST', body, headers: { host: ts.server.config.externalHost, ...headers } });
  const parsed = await res.json();
  if (res.status === 200 && parsed.result === 'success') checkResponse('POST', '/external/{integration}', parsed);
  return { status: res.status, body: parsed };
}

/** The newest `count` messages of a narrow, newest last, as the owner reads them. */
export async function newest(ts: TestServer, narrow: unknown[], count: number): Promise<any[]> {
  const res = await ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: count, num_after: 0, narrow, apply_markdown: false } });
  return res.body.messages;
}

const channelNarrow = (stream: string) => [{ operator: 'channel', operand: stream }];

/** Runs one reference case; the failures it finds, as text (empty when it passes). */
export async function runCase(ts: TestServer, integration: string, bot: Bot, c: Case): Promise<string[]> {
  const problems: string[] = [];
  for (const post of c.posts) {
    const stream = post.query.stream;
    const narrow = stream === undefined ? [{ operator: 'dm', operand: [bot.userId] }] : channelNarrow(stream);
    const before = (await newest(ts, narrow, 1)).at(-1)?.id ?? 0;
    const query = post.basicAuth ? post.query : { ...post.query, api_key: bot.apiKey };
    const headers: Record<string, string> = { ...post.headers };
    if (post.contentType) headers['content-type'] = post.contentType;
    if (post.basicAuth) headers.authorization = `Basic ${Buffer.from(`${bot.email}:${bot.apiKey}`).toString('base64')}`;
    const body = post.fixture !== undefined ? fixtureText(integration, post.fixture) : (post.body ?? '');
    const res = await postRaw(ts, post.path, query, body, headers);
    const expect = post.expect;
    if (!Array.isArray(expect) && expect !== 'noop') {
      if (res.status !== expect.status || res.body.msg !== expect.error) problems.push(`expected error ${expect.status} "${expect.error}", got ${res.status} ${JSON.stringify(res.body)}`);
      continue;
    }
    if (res.status !== 200 || res.body.result !== 'success') {
      problems.push(`${post.fixture ?? 'body'}: answered ${res.status} ${JSON.stringify(res.body)}`);
      continue;
    }
    const after = await newest(ts, narrow, 2);
    const fresh = after.filter((m) => m.id > before);
    if (expect === 'noop') {
      if (fresh.length > 0) problems.push(`${post.fixture ?? 'body'}: posted "${fresh.at(-1).content}" where the reference posts nothing`);
      continue;
    }
    for (const e of expect) {
      const msg = e.which === 'second_to_last' ? fresh.at(-2) : fresh.at(-1);
      if (!msg) {
        problems.push(`${post.fixture ?? 'body'}: no message (${e.which})`);
        continue;
      }
      if (e.topic !== undefined && msg.subject !== e.topic) problems.push(`topic ${JSON.stringify(msg.subject)}, reference ${JSON.stringify(e.topic)}`);
      if (msg.content !== e.content) problems.push(`content ${JSON.stringify(msg.content)}\n  reference ${JSON.stringify(e.content)}`);
      if (msg.sender_id !== bot.userId) problems.push(`sent by ${msg.sender_id}, not the bot`);
    }
  }
  return problems;
}

/**
 * Runs every case of an integration's table. `known` names the cases expected to differ from
 * the reference, with the reason (they run as todo and are listed in the README); every other
 * case must match byte for byte.
 */
export async function runCaseTable(t: Test, ts: TestServer, integration: string, known: Record<string, string> = {}): Promise<void> {
  const bot = await webhookBot(ts, integration);
  const cases = loadCases(integration).filter((c) => !c.unit);
  const streams = new Set(cases.flatMap((c) => c.posts.map((p) => p.query.stream)).filter((s) => s !== undefined));
  await ts.request('POST', '/users/me/subscriptions', { params: { subscriptions: [...streams].map((name) => ({ name })) } });
  let passed = 0;
  const byOrigin = { '10.2': [0, 0], main: [0, 0] };
  for (const c of cases) {
    const problems = await runCase(ts, integration, bot, c);
    byOrigin[c.origin][1]++;
    if (problems.length === 0) {
      passed++;
      byOrigin[c.origin][0]++;
    }
    const name = `${c.class}.${c.test}${c.origin === 'main' ? ' (after 10.2)' : ''}`;
    t.same(problems, [], `${name}: the reference's topic and content`, known[c.test] ? { todo: known[c.test] } : {});
  }
  t.comment(`${integration}: ${passed}/${cases.length} reference cases match (10.2: ${byOrigin['10.2'][0]}/${byOrigin['10.2'][1]}, after 10.2: ${byOrigin.main[0]}/${byOrigin.main[1]})`);
}
