import { readFileSync } from 'node:fs';
import type { Test } from 'tap';
import { checkResponse } from '../../helpers/openapi.js';
import type { TestServer } from '../../helpers/server.js';

/**
 * The reference's own test cases for an integration (test/fixtures/webhooks/<name>/cases.json,
 * read out of zerver/webhooks/<name>/tests.py): each posts a fixture as the reference's test
 * client does (path, query, headers, content type, HTTP Basic where it used it) and expects the
 * newest message(s) of the channel to have exactly the reference's topic and content, or no
 * message at all, or the reference's error (with the notice the bot's owner gets, where the
 * reference sends one).
 */

const fixtures = new URL('../../../../test/fixtures/webhooks/', import.meta.url);

interface Expected {
  which: 'last' | 'second_to_last' | 'dm';
  topic?: string;
  content: string;
}

/** An error; `notice`: the direct message the bot's owner gets (`{{bot_name}}`, `{{support_email}}` filled in). */
interface ExpectedError {
  error: string;
  status: number;
  notice?: string;
}

interface Post {
  path: string;
  query: Record<string, string>;
  fixture?: string;
  body?: string;
  /** The fixture goes in a form's `payload` field (Travis). */
  form?: 'payload';
  basicAuth?: boolean;
  headers: Record<string, string>;
  contentType?: string;
  /** Where the messages land when the URL's channel is escaped (Jira); else the URL's `stream`. */
  channel?: string;
  /** Text the answer must contain. */
  responseContains?: string[];
  /** `errorContains`: any error whose message contains it; `body`: an answer of another shape (Slack's). */
  expect: 'noop' | Expected[] | ExpectedError | { errorContains: string } | { status: number; body: Record<string, unknown> };
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
  return readFileSync(new URL(`${integration}/${name.includes('.') ? name : `${name}.json`}`, fixtures), 'utf8');
}

export interface Bot {
  email: string;
  apiKey: string;
  userId: number;
  fullName: string;
}

let bots = 0;

/** Creates an incoming webhook bot for the integration, owned by the realm owner. */
export async function webhookBot(ts: TestServer, integration: string): Promise<Bot> {
  const n = ++bots;
  const fullName = `${integration} bot ${n}`;
  const res = await ts.request('POST', '/bots', { params: { full_name: fullName, short_name: `${integration.replaceAll('_', '-')}-hook-${n}`, bot_type: 2, service_name: integration } });
  const user = await ts.request('GET', `/users/${res.body.user_id}`);
  return { email: user.body.user.email, apiKey: res.body.api_key, userId: res.body.user_id, fullName };
}

/** Posts as a service does, to any path under /api/v1/external. */
export async function postRaw(ts: TestServer, path: string, query: Record<string, string>, body: string, headers: Record<string, string>): Promise<{ status: number; body: any; text: string }> {
  const url = `http://127.0.0.1:${ts.port}${path}?${new URLSearchParams(query)}`;
  const res = await fetch(url, { method: 'POST', body, headers: { host: ts.server.config.externalHost, ...headers } });
  const text = await res.text();
  const parsed = JSON.parse(text);
  if (res.status === 200 && parsed.result === 'success') checkResponse('POST', '/external/{integration}', parsed);
  return { status: res.status, body: parsed, text };
}

/** The newest `count` messages of a narrow, newest last, as the owner reads them. */
export async function newest(ts: TestServer, narrow: unknown[], count: number): Promise<any[]> {
  const res = await ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: count, num_after: 0, narrow, apply_markdown: false, allow_empty_topic_name: true } });
  return res.body.messages;
}

const channelNarrow = (stream: string) => [{ operator: 'channel', operand: stream }];

/** The address the owner's notices name (notices.ts's supportAddress, from the config). */
function supportAddress(ts: TestServer): string {
  const from = ts.server.config.email.from;
  return from?.match(/<([^>]+)>/)?.[1] ?? from ?? 'the server administrator';
}

/** Checks an error answer, and the notice the bot's owner got with it. */
async function checkError(ts: TestServer, bot: Bot, res: { status: number; body: any }, expect: ExpectedError, problems: string[]): Promise<void> {
  if (res.status !== expect.status || res.body.msg !== expect.error) problems.push(`expected error ${expect.status} "${expect.error}", got ${res.status} ${JSON.stringify(res.body)}`);
  if (expect.notice === undefined) return;
  const notice = expect.notice.replaceAll('{{bot_name}}', bot.fullName).replaceAll('{{support_email}}', supportAddress(ts));
  const dm = (await newest(ts, [{ operator: 'is', operand: 'dm' }], 1)).at(-1);
  if (dm?.content !== notice || dm?.sender_full_name !== 'Notification Bot') problems.push(`the owner's notice ${JSON.stringify(dm?.content)}, reference ${JSON.stringify(notice)}`);
}

/** Runs one reference case; the failures it finds, as text (empty when it passes). */
export async function runCase(ts: TestServer, integration: string, bot: Bot, c: Case): Promise<string[]> {
  const problems: string[] = [];
  for (const post of c.posts) {
    const stream = post.channel ?? post.query.stream;
    const narrow = stream === undefined ? [{ operator: 'dm', operand: [bot.userId] }] : channelNarrow(stream);
    const before = (await newest(ts, narrow, 1)).at(-1)?.id ?? 0;
    const query = post.basicAuth ? post.query : { ...post.query, api_key: bot.apiKey };
    const headers: Record<string, string> = { ...post.headers };
    if (post.contentType) headers['content-type'] = post.contentType;
    if (post.basicAuth) headers.authorization = `Basic ${Buffer.from(`${bot.email}:${bot.apiKey}`).toString('base64')}`;
    let body = post.fixture !== undefined ? fixtureText(integration, post.fixture) : (post.body ?? '');
    if (post.form === 'payload') body = new URLSearchParams({ payload: body }).toString();
    const res = await postRaw(ts, post.path, query, body, headers);
    for (const text of post.responseContains ?? []) if (!res.text.includes(text)) problems.push(`the answer lacks ${JSON.stringify(text)}: ${res.text}`);
    const expect = post.expect;
    if (!Array.isArray(expect) && expect !== 'noop') {
      if ('errorContains' in expect) {
        if (res.body.result === 'success' || !String(res.body.msg).includes(expect.errorContains)) problems.push(`expected an error with "${expect.errorContains}", got ${res.status} ${res.text}`);
      } else if ('body' in expect) {
        const same = Object.keys(res.body).length === Object.keys(expect.body).length && Object.entries(expect.body).every(([k, v]) => res.body[k] === v);
        if (res.status !== expect.status || !same) problems.push(`expected ${expect.status} ${JSON.stringify(expect.body)}, got ${res.status} ${res.text}`);
      } else await checkError(ts, bot, res, expect, problems);
      const after = (await newest(ts, narrow, 1)).at(-1)?.id ?? 0;
      if (after > before) problems.push(`${post.fixture ?? 'body'}: posted where the reference fails`);
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
  const streams = new Set(cases.flatMap((c) => c.posts.map((p) => p.channel ?? p.query.stream)).filter((s) => s !== undefined));
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
