import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { CLI, cleanEnv, stoa, tempDir } from '../cli/run.js';
import { startTestServer, type Credentials } from '../helpers/server.js';
import { buildReferenceTarball, PASSWORDS } from './reference-export.js';

/**
 * kill -9 in the middle of an import, then the same command again: it continues from the last
 * committed message file and the organization has every message exactly once; until it is
 * finished, the organization does not exist for the server.
 */
const EXTRA = 40_000;

t.test('an import killed with SIGKILL resumes without doubling anything', async (t) => {
  t.setTimeout(600_000);
  const work = tempDir(t, 'stoa-import-resume-');
  const dataDir = tempDir(t, 'stoa-import-resume-data-');
  await (await startTestServer(t, {}, { dataDir })).close();
  const tarball = await buildReferenceTarball(work, { extraMessages: EXTRA });

  const child = spawn(process.execPath, [CLI, 'realm', 'import', tarball, '--subdomain', 'acme'], {
    env: cleanEnv({ STOA_DATA_DIR: dataDir, STOA_PORT: '9991', STOA_SHARDS: '2' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const killed = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    // A report of the message phase once a few transactions (5,000 messages each) committed.
    const m = [...stderr.matchAll(/import: messages (\d+)\/(\d+)/g)].pop();
    if (m && Number(m[1]) >= 11 && Number(m[1]) < Number(m[2])) child.kill('SIGKILL');
  });
  const signal = await killed;
  t.equal(signal, 'SIGKILL', `the import was killed half-way (${stderr.trim().split('\n').pop()})`);
  t.ok(readdirSync(join(dataDir, 'imports')).some((n) => n.endsWith('.json')), 'its job is left for the next run');

  // Meanwhile the organization does not exist: a server started now does not serve it.
  const between = await startTestServer(t, {}, { dataDir });
  let host = `acme.${between.server.config.externalHost}`;
  const missing = await between.request('POST', '/fetch_api_key', { auth: null, host, params: { username: PASSWORDS.owner.email, password: PASSWORDS.owner.password }, unchecked: true });
  t.not(missing.status, 200, 'a half-imported organization is never served');
  await between.close();

  const again = await stoa(dataDir, ['realm', 'import', tarball, '--subdomain', 'acme']);
  t.equal(again.code, 0, `the same command finishes it${again.code ? `: ${again.stderr}` : ''}`);
  t.notOk(existsSync(join(dataDir, 'imports')) && readdirSync(join(dataDir, 'imports')).length > 0, 'and leaves no job behind');

  const ts = await startTestServer(t, {}, { dataDir });
  host = `acme.${ts.server.config.externalHost}`;
  const login = await ts.request('POST', '/fetch_api_key', { auth: null, host, params: { username: PASSWORDS.owner.email, password: PASSWORDS.owner.password }, unchecked: true });
  t.equal(login.status, 200, `the organization is there${login.status === 200 ? '' : `: ${login.body.msg}`}`);
  const owner: Credentials = { email: PASSWORDS.owner.email, apiKey: login.body.api_key };
  let anchor: number | string = 'oldest';
  const ids: number[] = [];
  const contents = new Set<string>();
  for (;;) {
    const page: any = (await ts.request('GET', '/messages', { auth: owner, host, params: { anchor, num_before: 0, num_after: 5000, include_anchor: anchor === 'oldest', narrow: [{ operator: 'channel', operand: 'general' }], apply_markdown: false } })).body;
    for (const m of page.messages) {
      ids.push(m.id);
      contents.add(m.content);
    }
    if (page.found_newest || page.messages.length === 0) break;
    anchor = page.messages[page.messages.length - 1].id;
  }
  // general: 5 messages of the base export, and every bulk one.
  t.equal(ids.length, EXTRA + 5, 'every message once');
  t.equal(new Set(ids).size, ids.length, 'no id twice');
  t.equal(contents.size, EXTRA + 5, 'no message doubled');
  t.ok(ids.every((id, i) => i === 0 || id > ids[i - 1]), 'in order');
  const unread = (await ts.request('POST', '/register', { auth: owner, host, params: { fetch_event_types: ['update_message_flags', 'message'] } })).body.unread_msgs;
  // The last five bulk messages are unread but for their senders; the owner sent two of them.
  t.equal(unread.count, 3, 'read state as exported');
  await ts.close();
});
