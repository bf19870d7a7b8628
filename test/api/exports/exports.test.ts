import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import t from 'tap';
import { extract } from 'tar-stream';
import { existsSync, readdirSync } from 'node:fs';
import { loadConfig, resolveConfig } from '../../../src/lib/config.js';
import { doCreateExport, realmExports } from '../../../src/api/exports/actions.js';
import { EXPORT_PUBLIC, exportsDir } from '../../../src/api/exports/archive.js';
import { ROLE } from '../../../src/model/types.js';
import { Shard } from '../../../src/shard/shard.js';
import { createUser, startTestServer, type Credentials, type TestServer } from '../../helpers/server.js';

/**
 * Data exports (GET, POST /export/realm, DELETE /export/realm/{export_id}, GET
 * /export/realm/consents): who may ask, what each kind holds, the events, the reference's
 * errors, and that exports and their archives outlive a restart.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function settled(ts: TestServer, id: number): Promise<Record<string, any>> {
  for (let i = 0; i < 300; i++) {
    const e = (await ts.request('GET', '/export/realm')).body.exports.find((x: { id: number }) => x.id === id);
    if (e && !e.pending) return e;
    await sleep(50);
  }
  throw new Error(`export ${id} still pending`);
}

/** The archive's files by name (below its one directory, zulip-export-...), as text. */
async function download(ts: TestServer, url: string): Promise<Map<string, string>> {
  const { pathname } = new URL(url);
  const res = await fetch(`http://127.0.0.1:${ts.port}${pathname}`);
  if (res.status !== 200) throw new Error(`download: ${res.status}`);
  const files = new Map<string, string>();
  const ex = extract();
  ex.on('entry', (header, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: unknown) => chunks.push(c as Buffer));
    stream.on('end', () => {
      files.set(header.name.replace(/^zulip-export-[^/]+\//, ''), Buffer.concat(chunks).toString('utf8'));
      next();
    });
  });
  const done = new Promise<void>((resolve, reject) => ex.on('finish', () => resolve()).on('error', reject));
  Readable.from([gunzipSync(Buffer.from(await res.arrayBuffer()))]).pipe(ex);
  await done;
  return files;
}

const messagesIn = (files: Map<string, string>) => [...files].filter(([n]) => n.startsWith('messages-')).flatMap(([, v]) => JSON.parse(v).zerver_message as { content: string }[]).map((m) => m.content);

t.test('data exports', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-test-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  let ts = await startTestServer(t, {}, { dataDir });
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const asAnn = ts.as(ann);
  const send = (creds: Credentials | null, params: Record<string, unknown>) => (creds ? ts.as(creds) : ts.request)('POST', '/messages', { params });
  const bound = (creds: Credentials | null) => (method: string, path: string, opts = {}) => (creds ? ts.as(creds)(method, path, opts) : ts.request(method, path, opts));

  await ts.request('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'secret' }], invite_only: true } });
  t.equal((await send(null, { type: 'stream', to: 'general', topic: 'hello', content: 'a public word' })).status, 200);
  t.equal((await send(null, { type: 'stream', to: 'secret', topic: 'hush', content: 'a private word' })).status, 200);
  t.equal((await send(ann, { type: 'direct', to: JSON.stringify([ts.owner.email]), content: 'a direct word' })).status, 200);

  const ownerQueue = (await ts.request('POST', '/register', { params: { event_types: ['realm_export', 'realm_export_consent'] } })).body;
  const annQueue = (await asAnn('POST', '/register', { params: { event_types: ['realm_export', 'realm_export_consent'] } })).body;
  const eventsOf = async (creds: Credentials | null, q: { queue_id: string; last_event_id: number }) =>
    (await bound(creds)('GET', '/events', { params: { queue_id: q.queue_id, last_event_id: q.last_event_id, dont_block: true } })).body.events as Record<string, any>[];

  t.test('administrators only', async (t) => {
    for (const [method, path] of [['GET', '/export/realm'], ['POST', '/export/realm'], ['GET', '/export/realm/consents'], ['DELETE', '/export/realm/1']]) {
      const res = await asAnn(method, path);
      t.same([res.status, res.body.msg], [400, 'Must be an organization administrator'], `${method} ${path}`);
    }
    t.same((await ts.request('GET', '/export/realm')).body.exports, [], 'none yet');
  });

  let publicUrl = '';
  let publicId = 0;
  t.test('a public export', async (t) => {
    const res = await ts.request('POST', '/export/realm');
    t.equal(res.status, 200, 'requested');
    publicId = res.body.id;
    t.type(publicId, 'number', 'with its id');
    const e = await settled(ts, publicId);
    t.match(e, { id: publicId, acting_user_id: ts.owner.userId, export_type: 1, pending: false, failed_timestamp: null, deleted_timestamp: null }, 'listed, complete');
    t.match(e.export_url, /^http:\/\/.*\/user_avatars\/exports\/\d+\/[\w-]+\/zulip-export-.*\.tar\.gz$/, 'with a URL to download it');
    publicUrl = e.export_url;
    const files = await download(ts, publicUrl);
    t.ok(['realm.json', 'attachment.json', 'migration_status.json', 'uploads/records.json', 'avatars/records.json', 'emoji/records.json', 'realm_icons/records.json'].every((f) => files.has(f)), 'the reference\'s files are there');
    const realm = JSON.parse(files.get('realm.json')!);
    t.ok(['zerver_realm', 'zerver_userprofile', 'zerver_stream', 'zerver_recipient', 'zerver_subscription', 'zerver_usergroup', 'zerver_namedusergroup'].every((n) => Array.isArray(realm[n])), 'with its tables');
    t.equal(realm.import_source, 'zulip', 'and its source');
    // What the reference's do_import_realm reads without checking that it is there.
    const required = ['zerver_realm', 'zerver_userprofile', 'zerver_userprofile_mirrordummy', 'zerver_userprofile_crossrealm', 'zerver_client', 'zerver_stream', 'zerver_defaultstream', 'zerver_realmemoji', 'zerver_realmdomain', 'zerver_realmfilter', 'zerver_realmplayground', 'zerver_realmauthenticationmethod', 'zerver_recipient', 'zerver_subscription', 'zerver_huddle', 'zerver_userpresence', 'zerver_useractivity', 'zerver_useractivityinterval', 'zerver_customprofilefield', 'zerver_customprofilefieldvalue', 'zerver_reaction'];
    t.same(required.filter((n) => !Array.isArray(realm[n])), [], 'every table the reference\'s import reads unconditionally');
    t.equal(JSON.parse(files.get('migration_status.json')!).zulip_version, '10.2', 'the reference version the format is');
    t.ok(realm.zerver_userprofile.every((u: Record<string, unknown>) => Array.isArray(u.groups) && Array.isArray(u.user_permissions)), 'people with the fields its import deletes unconditionally');
    t.ok(JSON.parse(files.get('messages-000001.json')!).zerver_message.every((m: Record<string, unknown>) => m.realm !== undefined), 'messages with the realm its import deletes');
    const contents = messagesIn(files);
    t.ok(contents.includes('a public word'), 'public channel messages are exported');
    t.notOk(contents.includes('a private word'), 'private channel messages are not');
    t.notOk(contents.includes('a direct word'), 'nor direct messages');
    t.notOk(realm.zerver_stream.some((c: { name: string }) => c.name === 'secret'), 'nor the private channel');
    const users = JSON.stringify(realm.zerver_userprofile);
    t.notOk(users.includes(ts.owner.apiKey) || users.includes(ann.apiKey), 'no API keys');
    t.notOk(/password|api_key/i.test(users), 'no password hashes');
    t.same(realm.zerver_usertopic, [], 'nobody\'s private data in a public export');

    const dms = (await ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'sender', operand: 'notification-bot@zulip.com' }] } })).body.messages;
    t.match(dms.at(-1)?.content, /Your data export is complete/, 'the requester is told by the Notification Bot');

    const events = (await eventsOf(null, ownerQueue)).filter((ev) => ev.type === 'realm_export');
    t.ok(events.length >= 2, 'administrators hear of it, pending and then complete');
    t.same(events.at(-1)?.exports.map((x: { id: number; pending: boolean }) => [x.id, x.pending]), [[publicId, false]], 'with the whole list');
    t.same((await eventsOf(ann, annQueue)).filter((ev) => ev.type === 'realm_export'), [], 'members do not');
  });

  t.test('a standard export holds the private data of those who consent', async (t) => {
    const refused = await ts.request('POST', '/export/realm', { params: { export_type: 2 } });
    t.equal(refused.status, 400, 'refused while no owner consents');
    t.match(refused.body.msg, /^Make sure at least one Organization Owner is consenting to the export/, 'with the reference\'s reason');
    t.equal((await ts.request('POST', '/export/realm', { params: { export_type: 3 } })).status, 400, 'an unknown type is refused');

    t.equal((await ts.request('PATCH', '/settings', { params: { allow_private_data_export: true } })).status, 200, 'the owner consents');
    const consent = (await eventsOf(null, ownerQueue)).filter((ev) => ev.type === 'realm_export_consent');
    t.same(consent.map(({ user_id, consented }) => ({ user_id, consented })), [{ user_id: ts.owner.userId, consented: true }], 'administrators hear of the consent');
    const consents = (await ts.request('GET', '/export/realm/consents')).body.export_consents;
    t.same(consents.find((c: { user_id: number }) => c.user_id === ts.owner.userId), { user_id: ts.owner.userId, consented: true }, 'listed as consenting');
    t.same(consents.find((c: { user_id: number }) => c.user_id === ann.userId), { user_id: ann.userId, consented: false }, 'Ann is not');

    const res = await ts.request('POST', '/export/realm', { params: { export_type: 2 } });
    t.equal(res.status, 200, 'requested');
    const e = await settled(ts, res.body.id);
    t.equal(e.export_type, 2, 'a standard export');
    const contents = messagesIn(await download(ts, e.export_url));
    t.ok(['a public word', 'a private word', 'a direct word'].every((c) => contents.includes(c)), 'the consenting owner\'s private channel and direct messages are in it');
  });

  t.test('deleting', async (t) => {
    const bad = await ts.request('DELETE', '/export/realm/99999');
    t.same([bad.status, bad.body.msg], [400, 'Invalid data export ID'], 'an unknown id');
    t.equal((await ts.request('DELETE', `/export/realm/${publicId}`)).status, 200, 'deleted');
    const e = (await ts.request('GET', '/export/realm')).body.exports.find((x: { id: number }) => x.id === publicId);
    t.type(e.deleted_timestamp, 'number', 'listed as deleted');
    t.equal(e.export_url, null, 'without a URL');
    t.equal((await fetch(`http://127.0.0.1:${ts.port}${new URL(publicUrl).pathname}`)).status, 404, 'the archive is gone');
    const again = await ts.request('DELETE', `/export/realm/${publicId}`);
    t.same([again.status, again.body.msg], [400, 'Export already deleted'], 'not twice');
  });

  t.test('a guessed address finds nothing', async (t) => {
    const { pathname } = new URL(publicUrl);
    const guessed = pathname.replace(/\/exports\/(\d+)\/[\w-]+\//, '/exports/$1/AAAAAAAAAAAAAAAA/');
    t.equal((await fetch(`http://127.0.0.1:${ts.port}${guessed}`)).status, 404, 'another secret');
  });

  t.test('five a week', async (t) => {
    // Two so far; three more are allowed.
    for (let i = 0; i < 3; i++) t.equal((await ts.request('POST', '/export/realm')).status, 200, `export ${i + 3}`);
    const sixth = await ts.request('POST', '/export/realm');
    t.same([sixth.status, sixth.body.msg], [400, 'Exceeded rate limit.'], 'the sixth is refused');
  });

  t.test('exports and their archives outlive a restart', async (t) => {
    const before = (await ts.request('GET', '/export/realm')).body.exports;
    for (const e of before) if (e.pending) await settled(ts, e.id);
    const done = (await ts.request('GET', '/export/realm')).body.exports;
    await ts.close();
    ts = await startTestServer(t, {}, { dataDir });
    const after = (await ts.request('GET', '/export/realm')).body.exports;
    // The server listens on another port now, and export URLs name the realm's address.
    const path = (url: string | null) => url && new URL(url).pathname;
    const withoutHost = (list: Record<string, any>[]) => list.map((e) => ({ ...e, export_url: path(e.export_url) }));
    t.same(withoutHost(after), withoutHost(done), 'the same list');
    const live = after.find((e: { export_url: string | null }) => e.export_url !== null);
    t.ok((await download(ts, live.export_url)).has('realm.json'), 'an archive still downloads');
  });

  // The exports module loads with its first request (host/registry.ts lazyModules): a job left
  // by a stop must still find its handler, with no request having loaded the module.
  t.test('an export left pending by a stop is made after the restart, before any request loads its module', async (t) => {
    await ts.close();
    // What a stop between the request's commit and its job's run leaves: the export requested,
    // its job in the table. Written with the server down, as the server itself would.
    const config = resolveConfig(loadConfig({}, { dataDir, shards: 2, logLevel: 'silent' }), 0);
    let id = 0;
    let realmId = 0;
    for (const index of [0, 1]) {
      const shard = Shard.open(index, config);
      const realm = [...shard.realms.values()][0];
      if (realm && id === 0) {
        realmId = realm.id;
        const owner = [...realm.activeUsers()].find((u) => u.role === ROLE.owner)!;
        id = await doCreateExport(shard, realm, owner, EXPORT_PUBLIC);
        t.equal(realmExports(shard, realm).find((e) => e.id === id)?.status, 'requested', 'pending at the stop');
      }
      await shard.close();
    }
    t.ok(id > 0, 'an export was left pending');
    ts = await startTestServer(t, {}, { dataDir });
    // Its archive appears with no API request made: only the job runner loaded the module.
    const dir = exportsDir(dataDir, realmId);
    const before = existsSync(dir) ? readdirSync(dir).length : 0;
    const made = () => (existsSync(dir) ? readdirSync(dir).length : 0) > before;
    // Well before the retry of a run that found no handler (10 s later, defaultBackoff).
    for (let i = 0; i < 160 && !made(); i++) await sleep(50);
    t.ok(made(), 'the job ran at the start, its module loaded by the runner');
    const e = await settled(ts, id);
    t.ok(e.export_url, 'the export succeeded after the restart');
  });

});
