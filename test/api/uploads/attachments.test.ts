import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';
import { fetchRaw, uploadFiles } from '../../helpers/upload.js';

t.test('GET /attachments and DELETE /attachments/{attachment_id}', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const asAnn = ts.as(ann);
  const asBob = ts.as(bob);

  const first = await uploadFiles(ts, [{ filename: 'one.txt', content: 'one' }], { auth: ann });
  const second = await uploadFiles(ts, [{ filename: 'two.txt', content: 'two!' }], { auth: ann });
  const bobs = await uploadFiles(ts, [{ filename: 'bob.txt', content: 'bob' }], { auth: bob });
  const pathOf = (res: { body: { url: string } }) => res.body.url.slice('/user_uploads/'.length);

  t.test('GET /attachments: the user\'s own uploads, and the realm\'s space used', async (t) => {
    const res = await asAnn('GET', '/attachments');
    t.equal(res.status, 200, 'status 200');
    t.same(res.body.attachments.map((a: { name: string }) => a.name), ['one.txt', 'two.txt'], 'only Ann\'s files');
    t.match(res.body.attachments[0], { path_id: pathOf(first), size: 3, messages: [] }, 'path_id, size, no messages yet');
    t.ok(Math.abs(res.body.attachments[0].create_time - Date.now()) < 60_000, 'create_time is in milliseconds');
    t.equal(res.body.upload_space_used, 3 + 4 + 3, 'upload_space_used counts every upload of the realm');
    const bobList = await asBob('GET', '/attachments');
    t.same(bobList.body.attachments.map((a: { name: string }) => a.name), ['bob.txt'], 'Bob sees only his');
  });

  t.test('GET /attachments: the messages that link a file', async (t) => {
    const sent = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'files', content: `[one](${first.body.url}) and [two](${second.body.url})` } });
    const again = await asAnn('POST', '/messages', { params: { type: 'direct', to: [bob.userId], content: `again: ${first.body.url}` } });
    const msg = await asAnn('GET', `/messages/${sent.body.id}`);
    const res = await asAnn('GET', '/attachments');
    const one = res.body.attachments.find((a: { name: string }) => a.name === 'one.txt');
    t.same(one.messages.map((m: { id: number }) => m.id), [sent.body.id, again.body.id], 'both messages, oldest first');
    t.equal(one.messages[0].date_sent, msg.body.message.timestamp * 1000, 'date_sent in milliseconds');
    const two = res.body.attachments.find((a: { name: string }) => a.name === 'two.txt');
    t.same(two.messages.map((m: { id: number }) => m.id), [sent.body.id], 'the second file, the first message only');
  });

  t.test('DELETE /attachments/{attachment_id}: only the uploader\'s own files', async (t) => {
    const list = await asAnn('GET', '/attachments');
    const two = list.body.attachments.find((a: { name: string }) => a.name === 'two.txt');
    const byBob = await asBob('DELETE', `/attachments/${two.id}`);
    t.same(byBob.body, { result: 'error', msg: 'Invalid attachment', code: 'BAD_REQUEST' }, 'another user: Invalid attachment');
    const byOwner = await ts.request('DELETE', `/attachments/${two.id}`);
    t.equal(byOwner.status, 400, 'even the realm owner cannot delete Ann\'s file');
    const unknown = await asAnn('DELETE', '/attachments/99999');
    t.equal(unknown.body.msg, 'Invalid attachment', 'an unknown id: Invalid attachment');
    const still = await fetchRaw(ts, second.body.url, { auth: ann });
    t.equal(still.status, 200, 'the refused deletes changed nothing');
  });

  t.test('DELETE /attachments/{attachment_id}: removes the file and its record', async (t) => {
    const list = await asAnn('GET', '/attachments');
    const two = list.body.attachments.find((a: { name: string }) => a.name === 'two.txt');
    const res = await asAnn('DELETE', `/attachments/${two.id}`);
    t.equal(res.status, 200, 'status 200');
    const after = await asAnn('GET', '/attachments');
    t.same(after.body.attachments.map((a: { name: string }) => a.name), ['one.txt'], 'gone from the list');
    t.equal(after.body.upload_space_used, 3 + 3, 'its bytes no longer count');
    t.notOk(existsSync(join(ts.dataDir, 'uploads', ...pathOf(second).split('/'))), 'the file is deleted from disk');
    const fetched = await fetchRaw(ts, second.body.url, { auth: ann });
    t.equal(fetched.status, 404, 'and no longer served');
    const twice = await asAnn('DELETE', `/attachments/${two.id}`);
    t.equal(twice.body.msg, 'Invalid attachment', 'deleting it again: Invalid attachment');
    t.ok(bobs.body.url, 'Bob\'s upload is untouched');
    t.equal((await fetchRaw(ts, bobs.body.url, { auth: bob })).status, 200, 'and still served');
  });

  t.test('GET /attachments: needs credentials', async (t) => {
    const res = await ts.request('GET', '/attachments', { auth: null });
    t.equal(res.status, 401, 'status 401');
  });
});
