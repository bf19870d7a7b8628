import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import t from 'tap';
import { convertMattermost, readMattermost } from '../../src/import/mattermost/convert.js';
import { silentProgress } from '../../src/import/progress.js';
import { stoa, tempDir } from '../cli/run.js';
import { startTestServer } from '../helpers/server.js';
import { apiKeyOf } from './keys.js';

/**
 * Mattermost bulk exports: the reference's own fixtures (zerver/tests/fixtures/
 * mattermost_fixtures, copied under test/fixtures/import/) read, converted and imported, with
 * what zerver/tests/test_mattermost_importer.py checks of them. The fixtures name image files
 * that are not in the copy; small images are made in their place.
 */
const FIXTURES = new URL('../../../test/fixtures/import/mattermost_fixtures/', import.meta.url).pathname;
type Json = Record<string, any>;

async function withFiles(t: { teardown(fn: () => unknown): void }, fixture: string): Promise<string> {
  const dir = join(tempDir(t, 'stoa-mm-'), 'export');
  mkdirSync(dir, { recursive: true });
  cpSync(join(FIXTURES, fixture), join(dir, 'export.json'));
  const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 0, g: 90, b: 200 } } }).png().toBuffer();
  const jpg = await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 200, g: 90, b: 0 } } }).jpeg().toBuffer();
  const text = readFileSync(join(dir, 'export.json'), 'utf8');
  for (const m of text.matchAll(/"image":"([^"]+)"/g)) {
    mkdirSync(dirname(join(dir, m[1])), { recursive: true });
    writeFileSync(join(dir, m[1]), png);
  }
  for (const m of text.matchAll(/"path":"([^"]+)"/g)) {
    mkdirSync(dirname(join(dir, 'data', m[1])), { recursive: true });
    writeFileSync(join(dir, 'data', m[1]), m[1].endsWith('.jpg') ? jpg : 'some file\n');
  }
  return dir;
}

t.test('reading the bulk export', async (t) => {
  const data = readMattermost(join(FIXTURES, '.'));
  t.equal(data.team.length, 2, 'two teams');
  t.equal(data.team[0].name, 'gryffindor', 'the first');
  t.equal(data.channel.length, 9, 'channels');
  t.equal(data.user.length, 5, 'users');
  t.equal(data.user[1].username, 'harry', 'in order');
  t.equal(data.post.length, 21, 'channel posts');
  t.same([data.post[0].team, data.post[0].channel, data.post[0].user, data.post[0].replies.length], ['gryffindor', 'dumbledores-army', 'harry', 1], 'a post with its reply');
  t.equal(data.emoji.length, 2, 'custom emoji');
  const direct = readMattermost(join(FIXTURES, 'direct_channel'));
  t.equal(direct.post.length, 4, 'channel posts of the direct-message export');
  t.equal(direct.direct_post.length, 7, 'and its direct posts');
  t.equal(direct.direct_post[0].message, 'hey harry', 'in order');
});

t.test('converting the two-team export (gryffindor)', async (t) => {
  const dir = await withFiles(t, 'export.json');
  const out = join(dir, '..', 'out');
  await convertMattermost(dir, out, { progress: silentProgress, team: 'gryffindor' });
  const realm = JSON.parse(readFileSync(join(out, 'realm.json'), 'utf8'));
  t.equal(realm.zerver_realm[0].description, 'Organization imported from Mattermost!', 'the description');
  t.same(new Set(realm.zerver_userprofile.map((u: Json) => u.full_name)), new Set(['Harry Potter', 'Ron Weasley', 'Severus Snape']), 'the team\'s people and a mirror account');
  t.same(new Set(realm.zerver_userprofile.map((u: Json) => u.email)), new Set(['harry@zulip.com', 'ron@zulip.com', 'snape@zulip.com']), 'their addresses');
  t.equal(realm.zerver_userprofile.find((u: Json) => u.email === 'snape@zulip.com').is_mirror_dummy, true, 'who posted without being in the team is a mirror account');
  t.same(new Set(realm.zerver_stream.map((s: Json) => s.name)), new Set([
    'Gryffindor common room',
    'Gryffindor quidditch team',
    'Dumbledores army',
    "Super long channel name, it's more than 60 characters, whic…",
    "Super long channel name, it's more than 60 characters, … (2)",
    "Super long channel name, it's more than 60 characters, … (3)",
    'Gryffindor quidditch team (2)',
  ]), 'channel names cut and numbered as the reference does');
  t.equal(realm.zerver_defaultstream, undefined, 'no default channels');
  t.equal(new Set(realm.zerver_recipient.map((r: Json) => r.id)).size, 10, 'recipients: three people, seven channels');
  t.same(new Set(realm.zerver_recipient.map((r: Json) => r.type)), new Set([1, 2]), 'no group DMs with two teams');
  t.equal(new Set(realm.zerver_subscription.map((s: Json) => s.user_profile)).size, 3, 'subscribers');
  t.equal(new Set(realm.zerver_subscription.map((s: Json) => s.recipient)).size, 6, 'subscribed recipients');
  const messages = JSON.parse(readFileSync(join(out, 'messages-000001.json'), 'utf8'));
  // The reference writes posts in export order and sorts by date on import; here they are in time order.
  t.ok(messages.zerver_message.some((m: Json) => m.content === 'harry joined the channel.\n\n'), 'text as html2text leaves it');
  t.ok(messages.zerver_message.every((m: Json, i: number, all: Json[]) => i === 0 || m.date_sent >= all[i - 1].date_sent), 'in time order');
  t.equal(new Set(messages.zerver_usermessage.map((u: Json) => u.user_profile)).size, 3, 'flag rows for the three');
  t.same(new Set(messages.zerver_usermessage.map((u: Json) => u.message)), new Set(messages.zerver_message.map((m: Json) => m.id)), 'every message has its rows');
});

t.test('importing the direct-message export', async (t) => {
  t.setTimeout(240_000);
  const dir = await withFiles(t, 'direct_channel/export.json');
  const dataDir = tempDir(t, 'stoa-mm-data-');
  await (await startTestServer(t, {}, { dataDir })).close();
  const run = await stoa(dataDir, ['realm', 'import', dir, '--subdomain', 'gryffindor']);
  t.equal(run.code, 0, `the import succeeds${run.code ? `: ${run.stderr}` : ''}`);
  t.match(run.stderr, /Imported mattermost export into organization "gryffindor"/, 'as a Mattermost export');
  const key = await apiKeyOf(dataDir, 'gryffindor', 'harry@zulip.com');
  const ronKey = await apiKeyOf(dataDir, 'gryffindor', 'ron@zulip.com');
  const ts = await startTestServer(t, {}, { dataDir });
  const host = `gryffindor.${ts.server.config.externalHost}`;
  const get = async (narrow: unknown[]) => (await ts.request('GET', '/messages', { auth: { email: 'harry@zulip.com', apiKey: key }, host, params: { anchor: 'oldest', num_before: 0, num_after: 100, narrow, apply_markdown: false } })).body.messages as Json[];
  const streams = await get([{ operator: 'channels', operand: 'public' }]);
  t.equal(new Set(streams.map((m) => m.stream_id)).size >= 1, true, 'channel messages');
  t.equal(streams[0].sender_email, 'ron@zulip.com', 'the first, in time order');
  t.equal(streams[0].content, 'ron joined the channel.\n\n', 'as html2text leaves it');
  const withFile = streams.find((m) => m.sender_email === 'harry@zulip.com' && /user_uploads/.test(m.content));
  t.ok(withFile, 'an attachment becomes an upload link');
  const dms = await get([{ operator: 'is', operand: 'dm' }]);
  const groups = dms.filter((m) => m.display_recipient.length > 2);
  t.equal(groups.length, 3, 'group direct messages');
  t.equal(groups[0].sender_email, 'ginny@zulip.com', 'in time order');
  const personal = dms.filter((m) => m.display_recipient.length === 2);
  t.ok(personal.length >= 4, 'direct messages');
  const first = personal.find((m) => m.sender_email === 'ron@zulip.com')!;
  t.match(first.content, /^hey harry\n\n\[harry-ron\.jpg\]\(\/user_uploads\/.*\)/, 'with its attachment');
  const rendered = (await ts.request('GET', `/messages/${first.id}`, { auth: { email: 'harry@zulip.com', apiKey: key }, host })).body.message;
  t.match(rendered.content, /<a href="\/user_uploads\/[^"]+harry-ron\.jpg"/, 'rendered here');
  const file = /\((\/user_uploads\/[^)]+)\)/.exec(first.content)![1];
  const attachments = (await ts.request('GET', '/attachments', { auth: { email: 'ron@zulip.com', apiKey: ronKey }, host })).body.attachments as Json[];
  t.ok(attachments.some((a) => file.endsWith(a.path_id)), 'the sender owns the upload');
  await ts.close();
});
