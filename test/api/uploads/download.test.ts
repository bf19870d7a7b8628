import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig, resolveConfig } from '../../../src/lib/config.js';
import { createRealm, inProcess } from '../../../src/realms.js';
import { Directory } from '../../../src/store/directory.js';
import { checkResponse } from '../../helpers/openapi.js';
import { createUser, startTestServer } from '../../helpers/server.js';
import { fetchRaw, uploadFiles } from '../../helpers/upload.js';

/** The root realm and realm `other`, prepared as the CLI would before the server starts. */
async function twoRealms(dataDir: string) {
  const config = resolveConfig(loadConfig({}, { dataDir, shards: 2, logLevel: 'silent' }), 0);
  const directory = new Directory(dataDir);
  const root = await createRealm(config, directory, inProcess(config), { subdomain: '', name: 'Root', ownerEmail: 'root@example.com', ownerFullName: 'Root' });
  const other = await createRealm(config, directory, inProcess(config), { subdomain: 'other', name: 'Other', ownerEmail: 'other@example.com', ownerFullName: 'Other' });
  await directory.close();
  return { root, other };
}

t.test('serving uploaded files', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-test-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const { other } = await twoRealms(dataDir);
  const ts = await startTestServer(t, {}, { dataDir });
  const otherHost = `other.${ts.server.config.externalHost}`;
  const otherOwner = { email: other.owner.email, apiKey: other.owner.apiKey };
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const carl = await createUser(ts, 'carl@example.com', 'Carl');
  const send = (from: typeof ann, params: Record<string, unknown>) => ts.as(from)('POST', '/messages', { params });

  const up = await uploadFiles(ts, [{ filename: 'notes.txt', content: 'private notes', contentType: 'text/plain' }], { auth: ann });
  const url: string = up.body.url;
  const pathId = url.slice('/user_uploads/'.length);

  t.test('GET /user_uploads/{path}: the uploader gets the bytes with HTTP Basic', async (t) => {
    const res = await fetchRaw(ts, url, { auth: ann });
    t.equal(res.status, 200, 'status 200');
    t.equal(res.body.toString(), 'private notes', 'the file itself');
    t.match(res.headers['content-type'], /^text\/plain/, 'its content type');
    t.equal(res.headers['content-disposition'], 'inline; filename="notes.txt"', 'shown inline, under its name');
    t.equal(res.headers['content-length'], '13', 'with its length');
  });

  t.test('GET /user_uploads/{path}: nobody else until a message shares it', async (t) => {
    const bobBefore = await fetchRaw(ts, url, { auth: bob });
    t.equal(bobBefore.status, 403, 'another user of the realm: 403');
    const anon = await fetchRaw(ts, url, { auth: null });
    t.equal(anon.status, 401, 'no credentials: 401');
    t.notOk(anon.body.toString().includes('private notes'), 'and no bytes');
    await send(ann, { type: 'direct', to: [bob.userId], content: `here: [notes.txt](${url})` });
    const bobAfter = await fetchRaw(ts, url, { auth: bob });
    t.equal(bobAfter.status, 200, 'a participant of the direct message that links it: 200');
    t.equal(bobAfter.body.toString(), 'private notes', 'the bytes');
    const carlAfter = await fetchRaw(ts, url, { auth: carl });
    t.equal(carlAfter.status, 403, 'someone outside that conversation: still 403');
  });

  t.test('GET /user_uploads/{path}: a link from someone without access shares nothing', async (t) => {
    await send(carl, { type: 'stream', to: 'general', topic: 'leak', content: `look [x](${url})` });
    const res = await fetchRaw(ts, url, { auth: carl });
    t.equal(res.status, 403, 'carl, who cannot see the file, cannot share it by linking it');
  });

  t.test('GET /user_uploads/{path}: a channel message shares with those who can read it', async (t) => {
    const shared = await uploadFiles(ts, [{ filename: 'plan.txt', content: 'the plan' }], { auth: ann });
    await send(ann, { type: 'stream', to: 'general', topic: 'plans', content: `[plan](${shared.body.url})` });
    const res = await fetchRaw(ts, shared.body.url, { auth: carl });
    t.equal(res.status, 200, 'a member who can read general: 200');
    t.equal(res.body.toString(), 'the plan', 'the bytes');
  });

  t.test('GET /user_uploads/{path}: users of another realm are refused', async (t) => {
    const there = await fetchRaw(ts, url, { auth: otherOwner, host: otherHost });
    t.equal(there.status, 404, 'from their own realm the path does not exist');
    const here = await fetchRaw(ts, url, { auth: otherOwner });
    t.equal(here.status, 401, 'their credentials mean nothing in this realm');
    const otherUp = await uploadFiles(ts, [{ filename: 'theirs.txt', content: 'other realm' }], { auth: otherOwner, host: otherHost });
    t.equal(otherUp.status, 200, 'the other realm uploads its own file');
    const cross = await fetchRaw(ts, otherUp.body.url, { auth: ann });
    t.equal(cross.status, 404, 'which this realm does not serve, even to its owner');
  });

  t.test('GET /api/v1/user_uploads/{realm_id_str}/{filename}: a temporary URL', async (t) => {
    const res = await ts.as(ann)('GET', url, { unchecked: true });
    t.equal(res.status, 200, 'status 200');
    // The reference's template has one segment for the multi-segment path id.
    checkResponse('GET', '/user_uploads/1/x', res.body);
    t.match(res.body.url, /^\/user_uploads\/temporary\/[0-9A-F]+\/notes\.txt$/, '/user_uploads/temporary/<token>/<name>');
    const file = await fetchRaw(ts, res.body.url, { auth: null });
    t.equal(file.status, 200, 'the temporary URL needs no credentials');
    t.equal(file.body.toString(), 'private notes', 'and serves the file');
    const token = res.body.url.split('/')[3];
    const forged = await fetchRaw(ts, `/user_uploads/temporary/${token.slice(0, -2)}00/notes.txt`, { auth: null });
    t.equal(forged.status, 400, 'a tampered token is refused');
    t.equal(JSON.parse(forged.body.toString()).msg, 'Invalid token', 'reference message');
    const renamed = await fetchRaw(ts, `/user_uploads/temporary/${token}/other.txt`, { auth: null });
    t.equal(JSON.parse(renamed.body.toString()).msg, 'Invalid filename', 'the name must match the token');
    const denied = await ts.as(carl)('GET', url, { unchecked: true });
    t.equal(denied.status, 403, 'no temporary URL for a user without access');
    const missing = await ts.as(ann)('GET', `/user_uploads/${pathId.split('/')[0]}/00/nothing/here.txt`, { unchecked: true });
    t.equal(missing.status, 404, 'an unknown file: 404');
  });

  t.test('GET /user_uploads/download/{path}: the same file as an attachment', async (t) => {
    const res = await fetchRaw(ts, `/user_uploads/download/${pathId}`, { auth: ann });
    t.equal(res.status, 200, 'status 200');
    t.equal(res.headers['content-disposition'], 'attachment; filename="notes.txt"', 'a download');
  });

  t.test('GET /user_uploads/{path}: a non-ASCII name', async (t) => {
    const up = await uploadFiles(ts, [{ filename: 'résumé.txt', content: 'cv', contentType: 'text/plain' }], { auth: ann });
    t.ok(up.body.url.endsWith('/résumé.txt'), 'the URL keeps the letters');
    const res = await fetchRaw(ts, up.body.url, { auth: ann });
    t.equal(res.status, 200, 'served at its percent-encoded URL');
    t.equal(res.headers['content-disposition'], "inline; filename*=utf-8''r%C3%A9sum%C3%A9.txt", 'the name as RFC 8187 asks');
  });

  t.test('GET /user_uploads/{path}: active content is never shown inline', async (t) => {
    const page = await uploadFiles(ts, [{ filename: 'page.html', content: '<script>alert(1)</script>', contentType: 'text/html' }], { auth: ann });
    const res = await fetchRaw(ts, page.body.url, { auth: ann });
    t.equal(res.status, 200, 'status 200');
    t.match(res.headers['content-disposition'], /^attachment;/, 'an HTML upload is served as an attachment');
    t.equal(res.headers['x-content-type-options'], 'nosniff', 'and never sniffed');
  });

  t.test('GET /user_uploads/{path}: an unknown path is a 404', async (t) => {
    const res = await fetchRaw(ts, `/user_uploads/${pathId.split('/')[0]}/ab/nothing/here.txt`, { auth: ann });
    t.equal(res.status, 404, 'status 404');
    t.equal(JSON.parse(res.body.toString()).msg, 'This file does not exist or has been deleted.', 'reference message');
  });
});
