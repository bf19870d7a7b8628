import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { CLI, cleanEnv, stoa, tempDir, type RunResult } from '../cli/run.js';
import { startTestServer } from '../helpers/server.js';
import { fetchRaw } from '../helpers/upload.js';
import { PNG, startFakeSlack } from './fake-slack.js';
import { apiKeyOf } from './keys.js';
import { zipDirectory } from './zip.js';

/**
 * `stoa realm import` is one job per export file, and a run that stopped is continued by the
 * next. A rerun that adds `--slack-token` (or `--slack-threads`) to a token-less run that stopped:
 * while nothing of the organization is written, it converts again with the token and the files
 * are fetched; once rows are written it refuses, says how to finish, and fetches nothing. A
 * rerun into a subdomain an earlier import finished in is refused before anything is fetched.
 */
type Json = Record<string, any>;
const TOKEN = 'xoxb-5678-rerun-secret-token';
const DAY = 1577836800; // 2020-01-01
// Enough messages that a run stopped at a phase's first line stops inside that phase.
const DAYS = 400;
const PER_DAY = 300;

const users = [
  { id: 'U1', name: 'alice', real_name: 'Alice', is_primary_owner: true, profile: { email: 'alice@example.com', real_name: 'Alice' } },
  { id: 'U2', name: 'bob', real_name: 'Bob', profile: { email: 'bob@example.com', real_name: 'Bob' } },
];
const APPLE = 'https://files.slack.com/files-pri/T1-F1/apple.png';

/** A run of the import killed with SIGKILL at the first line of a phase's progress. */
async function killedAt(dataDir: string, zip: string, subdomain: string, phase: string, env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [CLI, 'realm', 'import', zip, '--subdomain', subdomain], {
    env: cleanEnv({ STOA_DATA_DIR: dataDir, STOA_PORT: '9991', STOA_SHARDS: '2', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  child.stdout.resume();
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    if (stderr.includes(`import: ${phase} (`)) child.kill('SIGKILL');
  });
  const signal = await exited;
  if (signal !== 'SIGKILL') throw new Error(`the import of ${subdomain} was to be killed in its ${phase} phase, but ended: ${stderr}`);
  return stderr;
}

const jobs = (dataDir: string) => (existsSync(join(dataDir, 'imports')) ? readdirSync(join(dataDir, 'imports')).filter((n) => n.endsWith('.json')) : []);
const says = (run: RunResult) => `${run.stdout}${run.stderr}`;

t.test('a Slack import run again with a token', async (t) => {
  t.setTimeout(600_000);
  const work = tempDir(t, 'stoa-slackrerun-');
  const dataDir = tempDir(t, 'stoa-slackrerun-data-');
  await (await startTestServer(t, {}, { dataDir })).close();
  const slack = await startFakeSlack(TOKEN, { members: users.map((u) => ({ ...u, team_id: 'T1' })), emoji: {} });
  t.teardown(() => slack.close());
  slack.files.set('/files-pri/T1-F1/apple.png', { body: PNG, type: 'image/png' });

  const dir = join(work, 'slack');
  mkdirSync(join(dir, 'general'), { recursive: true });
  writeFileSync(join(dir, 'users.json'), JSON.stringify(users));
  writeFileSync(join(dir, 'channels.json'), JSON.stringify([{ id: 'C1', name: 'general', created: String(DAY), is_archived: false, members: ['U1', 'U2'], purpose: { value: '' } }]));
  for (let d = 0; d < DAYS; d++) {
    const messages: Json[] = Array.from({ length: PER_DAY }, (_, i) => ({ type: 'message', user: i % 2 ? 'U2' : 'U1', text: `day ${d} message ${i}`, ts: `${DAY + d * 86400 + i}.000100` }));
    if (d === 0) messages[0] = { ...messages[0], text: 'Look!', files: [{ id: 'F1', name: 'apple.png', title: 'apple', mimetype: 'image/png', url_private: APPLE, size: PNG.length, created: DAY - 60, timestamp: DAY - 60 }] };
    writeFileSync(join(dir, 'general', `${new Date((DAY + d * 86400) * 1000).toISOString().slice(0, 10)}.json`), JSON.stringify(messages));
  }
  const zip = join(work, 'slack.zip');
  await zipDirectory(dir, zip);
  const env = { STOA_TEST_SLACK_ORIGIN: slack.origin };
  const fetchedApple = () => slack.requests.filter((r) => r.host === 'files.slack.com' && r.path === '/files-pri/T1-F1/apple.png').length;

  t.test('converted without a token, nothing written yet: the rerun with one fetches the files', async (t) => {
    const early = await killedAt(dataDir, zip, 'early', 'checking', env);
    t.match(early, /import: converting/, 'the first run converted the export without a token');
    t.equal(jobs(dataDir).length, 1, 'and left its job');
    t.equal(slack.requests.length, 0, 'without asking Slack anything');

    const run = await stoa(dataDir, ['realm', 'import', zip, '--subdomain', 'early', '--slack-token', TOKEN], env);
    t.equal(run.code, 0, `the rerun with the token finishes${run.code ? `: ${run.stderr}` : ''}`);
    t.match(run.stdout, /From Slack's API: 2 users .*; 1 of 1 files downloaded/, 'and says what came from Slack');
    t.notMatch(run.stdout, /Without a Slack token/, 'not that nothing was fetched');
    t.equal(fetchedApple(), 1, 'the file was fetched');
    t.same(jobs(dataDir), [], 'no job is left');

    const alice = { email: 'alice@example.com', apiKey: await apiKeyOf(dataDir, 'early', 'alice@example.com') };
    const ts = await startTestServer(t, {}, { dataDir });
    t.teardown(() => ts.close());
    const host = `early.${ts.server.config.externalHost}`;
    const first = (await ts.request('GET', '/messages', { auth: alice, host, params: { anchor: 'oldest', num_before: 0, num_after: 1, narrow: [{ operator: 'channel', operand: 'general' }], apply_markdown: false } })).body.messages[0];
    const link = /^Look!\n\[apple\]\((\/user_uploads\/[^)]+\/apple\.png)\)$/.exec(first.content);
    t.ok(link, `the message links the organization's upload, not Slack: ${first.content}`);
    t.same((await fetchRaw(ts, link![1], { auth: alice, host })).body, PNG, 'which holds the file');
    const last = (await ts.request('GET', '/messages', { auth: alice, host, params: { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'channel', operand: 'general' }], apply_markdown: false } })).body.messages;
    t.same(last.map((m: Json) => m.content), [`day ${DAYS - 1} message ${PER_DAY - 1}`], 'to its last message');
  });

  t.test('once the organization is partly written, a rerun with a token refuses and says how to finish', async (t) => {
    const before = slack.requests.length;
    await killedAt(dataDir, zip, 'late', 'messages', env);
    t.equal(jobs(dataDir).length, 1, 'the killed run left its job');

    const token = await stoa(dataDir, ['realm', 'import', zip, '--subdomain', 'late'], { ...env, STOA_SLACK_TOKEN: TOKEN });
    t.equal(token.code, 1, 'the rerun with a token is refused');
    t.match(token.stderr, /import refused: .*the import of this export into "late" began without a Slack token and has written part of the organization, so it cannot take Slack's files now/, 'it says why');
    t.match(token.stderr, /finish it by running the command again without --slack-token and STOA_SLACK_TOKEN; then, for Slack's files, import the export again with the token into another --subdomain/, 'and what to do');
    const threads = await stoa(dataDir, ['realm', 'import', zip, '--subdomain', 'late', '--slack-threads'], env);
    t.equal(threads.code, 1, 'so is one with --slack-threads');
    t.match(threads.stderr, /began without --slack-threads .* so it cannot take threads as topics now: finish it by running the command again without --slack-threads/, 'saying so');
    t.equal(slack.requests.length, before, 'nothing was asked of Slack');
    t.notOk(says(token).includes(TOKEN), 'the token is in no output');
    t.equal(jobs(dataDir).length, 1, 'the job is kept');

    const finish = await stoa(dataDir, ['realm', 'import', zip, '--subdomain', 'late'], env);
    t.equal(finish.code, 0, `run as it began, it finishes${finish.code ? `: ${finish.stderr}` : ''}`);
    t.match(finish.stdout, /Without a Slack token .* nothing was fetched from Slack/, 'saying that nothing was fetched');
    t.same(jobs(dataDir), [], 'no job is left');
  });

  t.test('into the subdomain of a finished import, a rerun with a token is refused before anything is fetched', async (t) => {
    const before = slack.requests.length;
    const run = await stoa(dataDir, ['realm', 'import', zip, '--subdomain', 'late', '--slack-token', TOKEN], env);
    t.equal(run.code, 1, 'refused');
    t.match(run.stderr, /subdomain "late" is already in use: give another with --subdomain \(an export imported before is imported again, with a Slack token say, as a new organization\)/, 'with what to do');
    t.notMatch(run.stderr, /import: unpacking/, 'before unpacking');
    t.equal(slack.requests.length, before, 'nothing was asked of Slack');
    t.same(jobs(dataDir), [], 'and no job is left');
  });
});
