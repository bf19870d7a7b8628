import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { CONCURRENCY } from '../../src/import/slack/files.js';
import { CLI, cleanEnv, stoa, tempDir } from '../cli/run.js';
import { startTestServer } from '../helpers/server.js';
import { fetchRaw } from '../helpers/upload.js';
import { GIF, PNG, startFakeSlack } from './fake-slack.js';
import { apiKeyOf } from './keys.js';
import { zipDirectory } from './zip.js';

/**
 * `stoa realm import --slack-token`: a local server plays slack.com and files.slack.com
 * (fake-slack.ts). With the token, the files Slack hosts become the organization's uploads, linked
 * as the reference's converter links them (`[title](/user_uploads/...)` after the text) and
 * readable through the API, with attachment rows owned by the sender; custom emoji (and an
 * alias of one) become the organization's, the team icon its icon, a person's picture their
 * avatar, and the addresses come from users.list. A file Slack refuses (403), lacks (404) or that is over the upload limit keeps its
 * link and is reported; a run killed while downloading continues without fetching again what it
 * has; the token goes only to Slack's own hosts and appears in no output and no stored byte.
 * Without a token the import says what stayed links.
 */
type Json = Record<string, any>;
const TOKEN = 'xoxb-1234-test-secret-token';
const DAY = 1577836800; // 2020-01-01

const file = (id: string, name: string, extra: Json = {}) => ({ id, name, title: name.replace(/\.[a-z]+$/, ''), mimetype: 'text/plain', url_private: `https://files.slack.com/files-pri/T1-${id}/${name}`, size: 10, created: DAY - 60, timestamp: DAY - 60, ...extra });

const users = [
  { id: 'U1', name: 'alice', real_name: 'Alice', is_primary_owner: true, profile: { email: 'alice@example.com', real_name: 'Alice', fields: { Xf1: { value: 'Engineering' } } } },
  { id: 'U2', name: 'bob', real_name: 'Bob', profile: { real_name: 'Bob' } },
];
const members = [
  { ...users[0], team_id: 'T1', profile: { email: 'alice@example.com', real_name: 'Alice', avatar_hash: 'a1b2' } },
  { id: 'U2', name: 'bob', real_name: 'Bob', team_id: 'T1', profile: { email: 'bob@example.com', real_name: 'Bob', avatar_hash: 'bad' } },
  { id: 'U3', name: 'carol', real_name: 'Carol', profile: { email: 'carol@example.com', real_name: 'Carol' } },
];
const messages: Json[] = [
  {
    type: 'message', user: 'U1', text: 'Look!', ts: `${DAY + 1}.000100`,
    files: [file('F1', 'apple.png', { title: 'Apple [fruit]', mimetype: 'image/png', size: PNG.length })],
    reactions: [{ name: 'partyparrot', users: ['U2'] }, { name: 'parrot_alias', users: ['U3'] }, { name: 'unknown_custom', users: ['U1'] }, { name: '+1', users: ['U2'] }],
  },
  { type: 'message', user: 'U2', text: 'private', ts: `${DAY + 2}.000100`, files: [file('F2', 'secret.pdf')] },
  { type: 'message', subtype: 'file_share', user: 'U2', text: '', ts: `${DAY + 3}.000100`, file: file('F3', 'gone.txt') },
  { type: 'message', user: 'U1', text: 'two', ts: `${DAY + 4}.000100`, files: [file('F4', 'notes.txt'), { url_private: 'https://example.com/banana.zip', title: 'banana' }] },
  { type: 'message', user: 'U1', text: 'big', ts: `${DAY + 5}.000100`, files: [file('F6', 'big.bin', { size: 30 * 1024 * 1024 })] },
  { type: 'message', user: 'U1', text: 'moved', ts: `${DAY + 6}.000100`, files: [file('F5', 'moved.txt')] },
  { type: 'message', user: 'U2', text: 'busy', ts: `${DAY + 6}.000200`, files: [file('F7', 'busy.txt')] },
  { type: 'message', user: 'U1', text: 'many', ts: `${DAY + 6}.000300`, files: Array.from({ length: 8 }, (_, i) => file(`G${i}`, `part${i}.txt`)) },
  { type: 'message', subtype: 'bot_message', bot_id: 'B1', username: 'github', text: 'build passed', ts: `${DAY + 7}.000100` },
  { type: 'message', subtype: 'bot_message', bot_id: 'B2', text: 'from a bot Slack forgot', ts: `${DAY + 8}.000100` },
  { type: 'message', user: 'U9', text: 'hello from the other workspace', ts: `${DAY + 9}.000100` },
  { type: 'message', user: 'U8', text: 'from someone Slack will not describe', ts: `${DAY + 10}.000100` },
];

/** Every file under a directory, read whole: the token must be in none. */
function anyFileHolds(dir: string, needle: string): string | null {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      const found = anyFileHolds(path, needle);
      if (found) return found;
    } else if (readFileSync(path).includes(needle)) return path;
  }
  return null;
}

async function waitFor(what: string, check: () => boolean, ms = 120_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('a Slack export imported with a token', async (t) => {
  t.setTimeout(300_000);
  const work = tempDir(t, 'stoa-slackfiles-');
  const dataDir = tempDir(t, 'stoa-slackfiles-data-');
  await (await startTestServer(t, {}, { dataDir })).close();
  const slack = await startFakeSlack(TOKEN, {
    members,
    emoji: { partyparrot: 'https://emoji.slack-edge.com/T1/partyparrot/abc.gif', parrot_alias: 'alias:partyparrot', broken: 'https://emoji.slack-edge.com/T1/broken/def.png' },
    bots: { B1: { id: 'B1', name: 'GitHub', deleted: false, icons: { image_72: 'https://avatars.slack-edge.com/B1_72.png' } } },
    others: { U9: { id: 'U9', name: 'dave', real_name: 'Dave', team_id: 'T2', deleted: false, profile: { real_name: 'Dave' } } },
  });
  t.teardown(() => slack.close());
  slack.files.set('/files-pri/T1-F1/apple.png', { body: PNG, type: 'image/png' });
  slack.files.set('/files-pri/T1-F2/secret.pdf', { status: 403 });
  slack.files.set('/files-pri/T1-F4/notes.txt', { redirect: '/files.slack.com/files-pri/T1-F4/notes-stored.txt' });
  slack.files.set('/files-pri/T1-F4/notes-stored.txt', { body: Buffer.from('meeting notes'), type: 'text/plain', hold: true });
  slack.files.set('/files-pri/T1-F5/moved.txt', { redirect: `${slack.origin}/elsewhere.example/moved.txt` });
  slack.files.set('/files-pri/T1-F7/busy.txt', { body: Buffer.from('after a wait'), type: 'text/plain', busyOnce: true });
  for (let i = 0; i < 8; i++) slack.files.set(`/files-pri/T1-G${i}/part${i}.txt`, { body: Buffer.from(`part ${i}`), type: 'text/plain', delayMs: 300 });

  const dir = join(work, 'slack');
  mkdirSync(join(dir, 'general'), { recursive: true });
  writeFileSync(join(dir, 'users.json'), JSON.stringify(users));
  writeFileSync(join(dir, 'channels.json'), JSON.stringify([{ id: 'C1', name: 'general', created: String(DAY), is_archived: false, members: ['U1', 'U2', 'U3', 'U9'], purpose: { value: '' } }]));
  writeFileSync(join(dir, 'general', '2020-01-01.json'), JSON.stringify(messages));
  const zip = join(work, 'slack.zip');
  await zipDirectory(dir, zip);
  const env = { STOA_TEST_SLACK_ORIGIN: slack.origin };
  const outputs: string[] = [];

  t.test('without a token: nothing is fetched, and the import says what stayed links', async (t) => {
    const run = await stoa(dataDir, ['realm', 'import', zip, '--subdomain', 'plain'], env);
    outputs.push(run.stdout, run.stderr);
    t.equal(run.code, 0, `imports${run.code ? `: ${run.stderr}` : ''}`);
    t.match(run.stdout, /15 files Slack hosts stayed links to Slack/, 'the files that stayed links, counted');
    t.match(run.stdout, /3 reactions with custom emoji were left out/, 'the custom emoji reactions left out');
    t.equal(slack.requests.length, 0, 'no request to Slack');
  });

  t.test('a token Slack refuses stops the import before anything is written', async (t) => {
    const run = await stoa(dataDir, ['realm', 'import', zip, '--subdomain', 'refused'], { ...env, STOA_SLACK_TOKEN: 'xoxb-wrong-secret' });
    t.equal(run.code, 1, 'refused');
    t.match(run.stderr, /import refused: Slack API: the Slack token was refused \(Slack API api\.test: invalid_auth\)/, 'with Slack\'s reason');
    t.notOk(`${run.stdout}${run.stderr}`.includes('xoxb-wrong-secret'), 'without the token');
    const bad = await stoa(dataDir, ['realm', 'import', zip, '--subdomain', 'refused', '--slack-token', 'not-a-token'], env);
    t.match(bad.stderr, /a Slack token starts with xoxb- \(a bot token\) or xoxp- \(a user token\)/, 'a malformed token is refused before any request');
    t.same(new Set(slack.requests.map((r) => r.path)), new Set(['/api/api.test']), 'only the token check was asked');
    slack.requests.length = 0;
  });

  t.test('killed while downloading, then run again', async (t) => {
    const child = spawn(process.execPath, [CLI, 'realm', 'import', zip, '--subdomain', 'slacky', '--slack-threads'], {
      env: cleanEnv({ STOA_DATA_DIR: dataDir, STOA_PORT: '9991', STOA_SHARDS: '2', STOA_SLACK_TOKEN: TOKEN, ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let early = '';
    child.stdout.on('data', (c) => (early += c));
    child.stderr.on('data', (c) => (early += c));
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    // The cache names a file by its URL's hash (src/import/slack/files.ts).
    const cached = (url: string) => {
      const imports = join(dataDir, 'imports');
      const name = createHash('sha256').update(url).digest('hex').slice(0, 40);
      return existsSync(imports) && readdirSync(imports).some((j) => existsSync(join(imports, j, 'slack-cache', 'files', name)));
    };
    // apple.png is whole in the cache; notes-stored.txt is under way.
    await waitFor('the held download and a whole one', () => slack.requests.some((r) => r.path.endsWith('notes-stored.txt')) && cached(messages[0].files[0].url_private));
    child.kill('SIGKILL');
    await exited;
    t.equal(anyFileHolds(dataDir, TOKEN), null, 'an interrupted run left the token in no file');
    outputs.push(early);
    slack.release();

    const run = await stoa(dataDir, ['realm', 'import', zip, '--subdomain', 'slacky', '--slack-threads', '--slack-token', TOKEN], env);
    outputs.push(run.stdout, run.stderr);
    t.equal(run.code, 0, `the second run finishes${run.code ? `: ${run.stderr}` : ''}`);
    t.match(run.stdout, /From Slack's API: 6 users \(avatars for 2; 1 could not be had\), 1 custom emoji, the team icon; 12 of 15 files downloaded/, 'what came from Slack');
    t.match(run.stdout, /1 users the export names could not be had from Slack \(users\.info\); their messages are left out/, 'a user Slack would not describe');
    t.match(run.stdout, /3 files could not be downloaded; their messages keep their links to Slack/, 'the failures, counted');
    t.match(run.stdout, /secret\.pdf \(https:\/\/files\.slack\.com\/files-pri\/T1-F2\/secret\.pdf\): HTTP 403/, 'a refused file, with its status');
    t.match(run.stdout, /gone\.txt \(https:\/\/files\.slack\.com\/files-pri\/T1-F3\/gone\.txt\): HTTP 404/, 'a missing file');
    t.match(run.stdout, /big\.bin .*larger than the server's upload limit of 25 MiB/, 'a file over the upload limit');
    t.match(run.stdout, /custom emoji :broken: not imported: HTTP 404/, 'an emoji that could not be had');
    const count = (suffix: string) => slack.requests.filter((r) => r.path.endsWith(suffix)).length;
    t.equal(count('/apple.png'), 1, 'a file downloaded before the kill is not fetched again');
    t.equal(count('/abc.gif'), 1, 'nor an emoji');
    t.equal(count('/notes-stored.txt'), 2, 'the interrupted download starts over');
    t.equal(count('/big.bin'), 0, 'a file over the limit is not asked for');
    t.ok(slack.maxInFlight() <= CONCURRENCY, `at most ${CONCURRENCY} downloads at once (${slack.maxInFlight()})`);
    t.ok(slack.maxInFlight() > 1, 'and more than one');
  });

  t.test('the token goes to Slack\'s hosts only, and is kept nowhere', async (t) => {
    for (const r of slack.requests) {
      if (r.host === 'slack.com' || r.host === 'files.slack.com') t.equal(r.authorization, `Bearer ${TOKEN}`, `${r.host}${r.path} carries the token`);
      else t.equal(r.authorization, undefined, `${r.host}${r.path} does not`);
    }
    t.ok(slack.requests.some((r) => r.host === 'elsewhere.example'), 'a redirect away from Slack was followed, without the token');
    t.notOk(outputs.some((o) => o.includes(TOKEN)), 'no output shows it');
    t.equal(anyFileHolds(dataDir, TOKEN), null, 'no file of the data directory holds it');
  });

  t.test('the organization, through the API', async (t) => {
    const alice = { email: 'alice@example.com', apiKey: await apiKeyOf(dataDir, 'slacky', 'alice@example.com') };
    const bob = { email: 'bob@example.com', apiKey: await apiKeyOf(dataDir, 'slacky', 'bob@example.com') };
    const ts = await startTestServer(t, {}, { dataDir });
    t.teardown(() => ts.close());
    const host = `slacky.${ts.server.config.externalHost}`;
    const as = (who: typeof alice) => (method: string, path: string, params?: Record<string, unknown>) => ts.request(method, path, { auth: who, host, params });

    const people = (await as(alice)('GET', '/users')).body.members as Json[];
    const imported = people.filter((p) => !p.email.endsWith('.zulip.invalid') && !/@zulip\.com$/.test(p.email));
    t.same(imported.filter((p) => p.is_active).map((p) => p.email).sort(), ['alice@example.com', 'bob@example.com', 'carol@example.com', 'github-bot@slack.invalid'], 'addresses from users.list; an integration bot from bots.info');
    t.same(imported.filter((p) => !p.is_active).map((p) => p.email).sort(), ['dave@other.slack.com', 'deletedslackb2-bot@slack.invalid'], 'deactivated: someone of another workspace (users.info, team.info), a bot Slack no longer has');
    const avatar = people.find((p) => p.email === 'alice@example.com')!.avatar_url as string;
    t.match(avatar, /^\/user_avatars\//, 'a picture on Slack is the person\'s avatar');
    const picture = await fetchRaw(ts, avatar, { auth: bob, host });
    t.equal(picture.status, 200, 'served');
    t.match(picture.headers['content-type'], /^image\//, 'as an image');
    t.notMatch(people.find((p) => p.email === 'bob@example.com')!.avatar_url ?? '', /^\/user_avatars\//, 'one Slack could not serve: the default');

    const got = (await as(alice)('GET', '/messages', { anchor: 'oldest', num_before: 0, num_after: 20, narrow: [{ operator: 'channel', operand: 'general' }], apply_markdown: false })).body.messages as Json[];
    t.equal(got.length, 11, 'every message but the one of a user Slack would not describe');
    const [look, secret, gone, two, big, moved, busy, many, bot, forgotten, dave] = got;
    const busyLink = /^busy\n\[busy\]\((\/user_uploads\/[^)]+)\)$/.exec(busy.content);
    t.ok(busyLink, 'a file Slack answered 429 for is fetched after the wait');
    t.equal((await fetchRaw(ts, busyLink![1], { auth: alice, host })).body.toString(), 'after a wait', 'whole');
    const parts = [...(many.content as string).matchAll(/\[part(\d)\]\((\/user_uploads\/[^)]+)\)/g)];
    t.same(parts.map((p) => p[1]), ['0', '1', '2', '3', '4', '5', '6', '7'], 'eight files of one message, in their order');
    t.equal((await fetchRaw(ts, parts[7][2], { auth: bob, host })).body.toString(), 'part 7', 'each its own upload');
    t.same([bot, forgotten, dave].map((m) => [m.sender_email, m.content]), [['github-bot@slack.invalid', 'build passed'], ['deletedslackb2-bot@slack.invalid', 'from a bot Slack forgot'], ['dave@other.slack.com', 'hello from the other workspace']], 'integration bots\' and other workspaces\' messages');
    const apple = /^Look!\n\[Apple fruit\]\((\/user_uploads\/\d+\/[0-9a-f]{2}\/[\w-]{24}\/apple\.png)\)$/.exec(look.content);
    t.ok(apple, `a downloaded file is linked as the reference links it: ${look.content}`);
    t.equal(secret.content, 'private\n[secret](https://files.slack.com/files-pri/T1-F2/secret.pdf)', 'a refused file keeps its link to Slack');
    t.equal(gone.content, '[gone](https://files.slack.com/files-pri/T1-F3/gone.txt)', 'a missing one too');
    t.equal(big.content, 'big\n[big](https://files.slack.com/files-pri/T1-F6/big.bin)', 'and one over the limit');
    const notes = /^two\n\[notes\]\((\/user_uploads\/[^)]+\/notes\.txt)\)\n\[banana\]\(https:\/\/example\.com\/banana\.zip\)$/.exec(two.content);
    t.ok(notes, `a file behind a redirect is an upload; a link elsewhere stays: ${two.content}`);
    const movedLink = /\((\/user_uploads\/[^)]+\/moved\.txt)\)$/.exec(moved.content);
    t.ok(movedLink, 'a file redirected away from Slack is an upload');

    const raw = await fetchRaw(ts, apple![1], { auth: bob, host });
    t.equal(raw.status, 200, 'a member of the channel gets the file');
    t.same(raw.body, PNG, 'its bytes');
    t.equal((await fetchRaw(ts, notes![1], { auth: alice, host })).body.toString(), 'meeting notes', 'the interrupted download is whole');
    t.equal((await fetchRaw(ts, movedLink![1], { auth: alice, host })).body.toString(), 'moved away', 'the redirected one');
    t.equal((await fetchRaw(ts, apple![1], { auth: null, host })).status, 401, 'nobody without credentials');

    const attachments = (await as(alice)('GET', '/attachments')).body.attachments as Json[];
    t.same(attachments.map((a) => a.name).sort(), ['apple.png', 'moved.txt', 'notes.txt', ...Array.from({ length: 8 }, (_, i) => `part${i}.txt`)], 'the sender owns the attachments');
    const a = attachments.find((x) => x.name === 'apple.png')!;
    t.equal(a.size, PNG.length, 'with the size');
    t.equal(a.create_time, (DAY - 60) * 1000, 'the time Slack created the file');
    t.same(a.messages.map((m: Json) => m.id), [look.id], 'and the message that links it');
    t.same(((await as(bob)('GET', '/attachments')).body.attachments as Json[]).map((x) => x.name), ['busy.txt'], 'someone else owns theirs; the files that stayed on Slack are nobody\'s');

    const reactions = (look.reactions as Json[]).map((r) => `${r.emoji_name}:${r.reaction_type}`).sort();
    t.same(reactions, ['+1:unicode_emoji', 'partyparrot:realm_emoji', 'partyparrot:realm_emoji'], 'custom emoji reactions (an alias as its emoji); an unknown one left out');
    const emoji = Object.values((await as(alice)('GET', '/realm/emoji')).body.emoji as Record<string, Json>);
    t.same(emoji.map((e) => e.name), ['partyparrot'], 'the custom emoji Slack served');
    const image = await fetchRaw(ts, emoji[0].source_url, { auth: alice, host });
    t.same(image.body, GIF, 'with its image');
    const realm = (await as(alice)('POST', '/register', { fetch_event_types: ['realm'] })).body;
    t.equal(realm.realm_icon_source, 'U', 'the team icon is the organization\'s');
  });
});
