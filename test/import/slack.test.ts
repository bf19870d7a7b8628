import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { convertSlack } from '../../src/import/slack/convert.js';
import { silentProgress } from '../../src/import/progress.js';
import { stoa, tempDir } from '../cli/run.js';
import { startTestServer } from '../helpers/server.js';
import { apiKeyOf } from './keys.js';
import { zipDirectory } from './zip.js';

/**
 * Slack exports, built from the reference's own Slack importer fixtures
 * (zerver/tests/fixtures/slack_fixtures, copied under test/fixtures/import/): the conversion
 * checks of zerver/tests/test_slack_importer.py (threads flattened into topics named by date
 * and snippet, truncated to 60 characters, numbered on collision; skipped subtypes; mentions),
 * then a whole export imported with `stoa realm import` and read back through the API.
 */
const FIXTURES = new URL('../../../test/fixtures/import/slack_fixtures/', import.meta.url);
const fixture = (name: string) => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8'));
type Json = Record<string, any>;

/** A Slack export directory: users, channels, and each message in its channel's daily file. */
function slackExport(dir: string, users: Json[], messages: Json[], extra: Record<string, unknown> = {}): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'users.json'), JSON.stringify(users));
  const channels = (extra['channels.json'] as Json[] | undefined) ?? [
    { id: 'C5', name: 'random', created: '1433558319', is_archived: false, members: users.map((u) => u.id), purpose: { value: 'random things' } },
    { id: 'C6', name: 'general', created: '1433558319', is_archived: false, members: users.map((u) => u.id), purpose: { value: 'general things' } },
  ];
  writeFileSync(join(dir, 'channels.json'), JSON.stringify(channels));
  for (const [name, value] of Object.entries(extra)) if (name !== 'channels.json') writeFileSync(join(dir, name), JSON.stringify(value));
  const days = new Map<string, Json[]>();
  for (const m of messages) {
    const key = join(m.channel_name ?? 'random', `${new Date(Number(m.ts) * 1000).toISOString().slice(0, 10)}.json`);
    days.set(key, [...(days.get(key) ?? []), m]);
  }
  for (const [path, list] of days) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), JSON.stringify(list));
  }
}

async function convert(t: { teardown(fn: () => unknown): void }, names: string[], threads = true): Promise<Json[]> {
  const work = tempDir(t, 'stoa-slack-');
  slackExport(join(work, 'in'), fixture('exported_messages_fixtures/users.json'), names.flatMap((n) => fixture(`exported_messages_fixtures/${n}.json`)));
  await convertSlack(join(work, 'in'), join(work, 'out'), { threads, progress: silentProgress });
  return JSON.parse(readFileSync(join(work, 'out', 'messages-000001.json'), 'utf8')).zerver_message;
}

const byContent = (messages: Json[], content: string) => messages.filter((m) => m.content === content);

t.test('conversion of the reference\'s message fixtures', async (t) => {
  t.test('normal messages and a thread', async (t) => {
    const messages = await convert(t, ['normal_messages', 'normal_thread']);
    t.equal(messages.length, 3, 'channel_join is skipped');
    t.equal(byContent(messages, '@**Jane**: hey!').length, 1, 'a mention converted');
    t.same(byContent(messages, 'message body text').map((m) => m.subject), ['2015-06-12 message body text'], 'a thread topic: date and snippet');
    t.same(byContent(messages, 'random').map((m) => m.subject), ['2015-06-12 message body text'], 'the reply is in its thread\'s topic');
    t.equal(byContent(messages, '@**Jane**: hey!')[0].subject, 'imported from Slack', 'unthreaded messages share one topic');
  });
  t.test('without threads', async (t) => {
    const messages = await convert(t, ['normal_thread'], false);
    t.same(messages.map((m) => m.subject), ['imported from Slack', 'imported from Slack'], 'every message in the one topic');
  });
  t.test('a long thread topic is cut, and collisions numbered', async (t) => {
    const messages = await convert(t, ['thread_with_long_topic_name']);
    const first = byContent(messages, 'random message but it is too long for the thread topic name')[0];
    t.equal(first.subject, '2015-08-18 random message but it is too long for the thread…', 'cut with an ellipsis');
    t.equal([...first.subject].length, 60, 'to 60 characters');
    const second = byContent(messages, 'random message but it is too long for the thread two electric boogaloo')[0];
    t.equal(second.subject, '2015-08-18 random message but it is too long for the th… (2)', 'a second thread with the same cut is numbered');
    t.equal([...second.subject].length, 60, 'within 60 characters');
  });
  t.test('colliding thread topics', async (t) => {
    const messages = await convert(t, ['threads_with_colliding_topic_names']);
    t.same(byContent(messages, 'message body text').map((m) => m.subject).sort(), ['1974-07-27 message body text', '2015-06-12 message body text', '2015-06-12 message body text (2)'], 'numbered on the same day, not across days');
  });
  t.test('topic names keep the converted syntax', async (t) => {
    let messages = await convert(t, ['thread_with_mention_syntax_in_topic_name']);
    t.equal(byContent(messages, '@**Jon** please reply to this message')[0].subject, '2015-07-17 @**Jon** please reply to this message', 'mention syntax');
    messages = await convert(t, ['thread_with_text_formattings_in_topic_name']);
    t.equal(byContent(messages, '**foo** *bar* ~~baz~~ [qux](https://chat.zulip.org)')[0].subject, '2019-01-10 **foo** *bar* ~~baz~~ [qux](https://chat.zulip.o…', 'formatting');
    messages = await convert(t, ['thread_with_file_link_formatting_in_topic_name']);
    // Without a token (slack-files.test.ts has one) the file stays a link to Slack.
    t.match(messages[0].content, /^Look!\n\[Apple\]\(https:\/\//, 'a file becomes a link');
    t.match(messages[0].subject, /^2018-09-16 Look!\n\[Apple\]\(/, 'and the topic starts as the reference\'s');
  });
});

t.test('a Slack export imported end to end', async (t) => {
  t.setTimeout(240_000);
  const work = tempDir(t, 'stoa-slack-e2e-');
  const dataDir = tempDir(t, 'stoa-slack-data-');
  await (await startTestServer(t, {}, { dataDir })).close();
  const members = (fixture('user_data.json').members as Json[]).filter((u) => u.id !== 'USLACKBOT');
  const users = [...members, ...fixture('exported_messages_fixtures/users.json')];
  const channels = fixture('channels.json') as Json[];
  const messages: Json[] = [...fixture('exported_messages_fixtures/normal_messages.json'), ...fixture('exported_messages_fixtures/normal_thread.json')].map((m: Json) => ({ ...m, channel_name: 'general' }));
  messages.push({ type: 'message', user: 'U061A5N1G', text: 'hello *bold* <https://example.com|there>', ts: '1450000000.000100', reactions: [{ name: '+1', users: ['U061A1R2R'], count: 1 }] });
  messages[messages.length - 1].channel_name = 'general';
  const dir = join(work, 'slack');
  slackExport(dir, users, messages, { 'channels.json': channels, 'mpims.json': fixture('mpims.json'), 'dms.json': fixture('dms.json') });
  mkdirSync(join(dir, 'DJ47BL849'), { recursive: true });
  writeFileSync(join(dir, 'DJ47BL849', '2019-04-30.json'), JSON.stringify([{ type: 'message', user: 'U061A1R2R', text: 'a direct word', ts: '1556638500.000100' }]));
  const zip = join(work, 'slack.zip');
  await zipDirectory(dir, zip);

  const run = await stoa(dataDir, ['realm', 'import', zip, '--subdomain', 'slacky', '--slack-threads']);
  t.equal(run.code, 0, `the Slack export imports${run.code ? `: ${run.stderr}` : ''}`);
  t.match(run.stderr, /Imported slack export into organization "slacky"/, 'as a Slack export');

  const email = 'rhtbot@protonmail.com';
  const key = await apiKeyOf(dataDir, 'slacky', email);
  const ts = await startTestServer(t, {}, { dataDir });
  const host = `slacky.${ts.server.config.externalHost}`;
  const as = (method: string, path: string, params?: Record<string, unknown>) => ts.request(method, path, { auth: { email, apiKey: key }, host, params });
  const people = (await as('GET', '/users')).body.members as Json[];
  const role = (e: string) => people.find((u) => u.email === e)?.role;
  const person = (e: string) => people.find((u) => u.email === e)!;
  t.equal(role('rhtbot@protonmail.com'), 100, 'the primary owner is an owner');
  t.equal(role('rheaparekh12@gmail.com'), 100, 'an owner');
  t.equal(role('rishiweb+0@mit.edu'), 200, 'an administrator');
  t.equal(role('showell30@yahoo.com'), 400, 'a member');
  t.equal(person('rhtbot@protonmail.com').timezone, 'Europe/Amsterdam', 'time zones');
  const streams = (await as('GET', '/streams', { exclude_archived: false })).body.streams as Json[];
  t.same(streams.map((s) => s.name).sort(), channels.map((c) => c.name).sort(), 'every channel');
  t.equal(streams.find((s) => s.name === 'random')!.is_archived, true, 'an archived channel stays archived');
  const general = (await as('GET', '/messages', { anchor: 'oldest', num_before: 0, num_after: 50, narrow: [{ operator: 'channel', operand: 'general' }], apply_markdown: false })).body.messages as Json[];
  t.same(general.map((m) => m.content), ['message body text', '@**Jane**: hey!', 'random', 'hello **bold** [there](https://example.com)'], 'messages in time order, converted');
  t.same(general.map((m) => m.subject), ['2015-06-12 message body text', 'imported from Slack', '2015-06-12 message body text', 'imported from Slack'], 'threads in topics of their own');
  t.same(general[3].reactions.map((r: Json) => r.emoji_name), ['+1'], 'reactions');
  const rendered = (await as('GET', `/messages/${general[3].id}`)).body.message;
  t.match(rendered.content, /<strong>bold<\/strong>/, 'rendered by this server\'s Markdown');
  const jon = 'jon@example.com';
  // Users without an address in the export get a placeholder one (the reference would stop).
  t.ok(person('johndoe-u066mtl5u@slack.invalid'), 'a user without an address gets a placeholder');
  await ts.close();
  const jonKey = await apiKeyOf(dataDir, 'slacky', jon);
  const again = await startTestServer(t, {}, { dataDir });
  const dms = (await again.request('GET', '/messages', { auth: { email: jon, apiKey: jonKey }, host: `slacky.${again.server.config.externalHost}`, params: { anchor: 'newest', num_before: 50, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }], apply_markdown: false } })).body.messages as Json[];
  t.same(dms.map((m) => m.content), ['a direct word'], 'a direct message reaches its participants');
  await again.close();
});
