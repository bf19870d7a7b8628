import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { stoa, tempDir } from '../cli/run.js';
import { startTestServer } from '../helpers/server.js';
import { apiKeyOf } from './keys.js';
import { buildReferenceTarball, PASSWORDS } from './reference-export.js';
import { snapshot } from './snapshot.js';

/**
 * The round trip: an organization that uses every table (imported from the reference-format
 * fixture, then changed through the API), exported by `stoa realm export` in the reference's
 * format, imported into a new organization, compares equal through the API, ids aside, for each
 * of its people: settings, people, groups, channels, subscriptions, messages with their flags,
 * reactions, polls, edits and uploads, emoji, topic visibility, mutes, drafts and the rest.
 */
t.test('export in the reference\'s format, import, compare', async (t) => {
  t.setTimeout(300_000);
  const work = tempDir(t, 'stoa-roundtrip-');
  const dataDir = tempDir(t, 'stoa-roundtrip-data-');
  await (await startTestServer(t, {}, { dataDir })).close();
  t.equal((await stoa(dataDir, ['realm', 'import', await buildReferenceTarball(work), '--subdomain', 'acme'])).code, 0, 'the organization is made');

  // Some history made here, not imported: a live send, a reaction, a star, a topic muted.
  let ts = await startTestServer(t, {}, { dataDir });
  let host = `acme.${ts.server.config.externalHost}`;
  const ownerKey = (await ts.request('POST', '/fetch_api_key', { auth: null, host, params: { username: PASSWORDS.owner.email, password: PASSWORDS.owner.password }, unchecked: true })).body.api_key;
  const owner = { email: PASSWORDS.owner.email, apiKey: ownerKey };
  const sent = await ts.request('POST', '/messages', { auth: owner, host, params: { type: 'stream', to: 'general', topic: 'live', content: 'Sent after the import, @**Cordelia**' } });
  t.equal(sent.status, 200, 'a message sent here');
  t.equal((await ts.request('POST', `/messages/${sent.body.id}/reactions`, { auth: owner, host, params: { emoji_name: 'tada' } })).status, 200, 'a reaction');
  t.equal((await ts.request('POST', '/messages/flags', { auth: owner, host, params: { messages: [sent.body.id], op: 'add', flag: 'starred' } })).status, 200, 'a star');
  await ts.close();

  const out = join(work, 'exported');
  const exported = await stoa(dataDir, ['realm', 'export', '--realm', 'acme', '--out', out]);
  t.equal(exported.code, 0, `stoa realm export writes the tarball${exported.code ? `: ${exported.stderr}` : ''}`);
  const tarball = join(out, readdirSync(out).find((n) => n.endsWith('.tar.gz'))!);
  t.match(tarball, /zulip-export-acme-.*\.tar\.gz$/, 'named as the reference names it');
  const imported = await stoa(dataDir, ['realm', 'import', tarball, '--subdomain', 'acme2']);
  t.equal(imported.code, 0, `and it imports${imported.code ? `: ${imported.stderr}` : ''}`);

  // Passwords are not exported (the reference leaves them out too): keys come from the store.
  const keys = async (subdomain: string, email: string) => ({ email, apiKey: await apiKeyOf(dataDir, subdomain, email) });
  const people = [PASSWORDS.owner.email, PASSWORDS.admin.email, PASSWORDS.member.email];
  const creds = new Map<string, [{ email: string; apiKey: string }, { email: string; apiKey: string }]>();
  for (const email of people) creds.set(email, [await keys('acme', email), await keys('acme2', email)]);
  ts = await startTestServer(t, {}, { dataDir });
  host = ts.server.config.externalHost;
  for (const email of people) {
    const [a, b] = creds.get(email)!;
    const before = await snapshot(ts, `acme.${host}`, a);
    const after = await snapshot(ts, `acme2.${host}`, b);
    t.ok(before.messages.length >= 7, `${email} sees the history`);
    for (const key of Object.keys(before)) t.same(after[key], before[key], `${email}: ${key} survives the round trip`);
  }
  await ts.close();
});
