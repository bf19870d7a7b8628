import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';
import { fetchRaw, uploadFiles } from '../../helpers/upload.js';

t.test('uploads survive a restart', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-test-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startTestServer(t, {}, { dataDir });
  const ann = await createUser(first, 'ann@example.com', 'Ann');
  const bob = await createUser(first, 'bob@example.com', 'Bob');
  const up = await uploadFiles(first, [{ filename: 'kept.txt', content: 'still here' }], { auth: ann });
  const sent = await first.as(ann)('POST', '/messages', { params: { type: 'direct', to: [bob.userId], content: `[kept](${up.body.url})` } });
  const msg = await first.as(ann)('GET', `/messages/${sent.body.id}`);
  await first.close();

  const second = await startTestServer(t, {}, { dataDir });

  t.test('POST /user_uploads: an acknowledged upload is there after a restart', async (t) => {
    const res = await fetchRaw(second, up.body.url, { auth: ann });
    t.equal(res.status, 200, 'served');
    t.equal(res.body.toString(), 'still here', 'the bytes');
    const shared = await fetchRaw(second, up.body.url, { auth: bob });
    t.equal(shared.status, 200, 'and still shared through the message that links it');
    const list = await second.as(ann)('GET', '/attachments');
    t.same(list.body.attachments.map((a: { name: string; messages: { id: number; date_sent: number }[] }) => [a.name, a.messages]), [['kept.txt', [{ id: sent.body.id, date_sent: msg.body.message.timestamp * 1000 }]]], 'the record and its link');
  });

  t.test('POST /user_uploads: no temporary files are left behind', async (t) => {
    const tmp = join(dataDir, 'uploads', 'tmp');
    t.ok(!existsSync(tmp) || readdirSync(tmp).length === 0, 'the temporary directory is empty');
  });
});
