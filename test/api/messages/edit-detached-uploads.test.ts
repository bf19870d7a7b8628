import t from 'tap';
import { uploadFiles } from '../../helpers/upload.js';
import { createUser, startTestServer } from '../../helpers/server.js';

t.test('PATCH /messages/{id}: detached_uploads, and uploads of deleted messages', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const asAnn = ts.as(ann);
  const attachment = async (name: string) => (await asAnn('GET', '/attachments')).body.attachments.find((a: { name: string }) => a.name === name);

  t.test('PATCH /messages/{id}: an edit that removes the only link to an upload reports it', async (t) => {
    const file = await uploadFiles(ts, [{ filename: 'notes.txt', content: 'notes' }], { auth: ann });
    const sent = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'files', content: `see [notes](${file.body.url})` } });
    const keep = await asAnn('PATCH', `/messages/${sent.body.id}`, { params: { content: `still [notes](${file.body.url})` } });
    t.same(keep.body.detached_uploads, [], 'an edit that keeps the link detaches nothing');
    const res = await asAnn('PATCH', `/messages/${sent.body.id}`, { params: { content: 'no more link' } });
    t.equal(res.status, 200, 'edited');
    t.equal(res.body.detached_uploads.length, 1, 'one upload detached');
    t.match(res.body.detached_uploads[0], { name: 'notes.txt', size: 5, messages: [] }, 'in the Attachment shape, with no messages left');
    t.same((await attachment('notes.txt')).messages, [], 'GET /attachments agrees');
  });

  t.test('DELETE /messages/{id}: the uploads it linked forget it', async (t) => {
    const file = await uploadFiles(ts, [{ filename: 'gone.txt', content: 'gone' }], { auth: ann });
    const sent = await asAnn('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'files', content: `[gone](${file.body.url})` } });
    t.equal((await attachment('gone.txt')).messages.length, 1, 'linked before');
    await asAnn('DELETE', `/messages/${sent.body.id}`);
    t.same((await attachment('gone.txt')).messages, [], 'not after the deletion');
  });
});
