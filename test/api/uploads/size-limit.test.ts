import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';
import { uploadFiles } from '../../helpers/upload.js';

const MIB = 1024 * 1024;

t.test('POST /user_uploads: the 25 MiB limit', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const tmpDir = join(ts.dataDir, 'uploads', 'tmp');

  t.test('POST /user_uploads: a file of exactly max_file_upload_size_mib is accepted', async (t) => {
    const res = await uploadFiles(ts, [{ filename: 'big.bin', content: Buffer.alloc(25 * MIB, 1) }], { auth: ann });
    t.equal(res.status, 200, 'status 200');
    const list = await ts.as(ann)('GET', '/attachments');
    t.equal(list.body.attachments[0].size, 25 * MIB, 'its size is recorded in full');
  });

  t.test('POST /user_uploads: one byte more is refused, and nothing is kept', async (t) => {
    const res = await uploadFiles(ts, [{ filename: 'bigger.bin', content: Buffer.alloc(25 * MIB + 1, 2) }], { auth: ann });
    t.equal(res.status, 400, 'status 400');
    t.same(res.body, { result: 'error', msg: "File is larger than this server's configured maximum upload size (25 MiB).", code: 'BAD_REQUEST' }, 'the reference error');
    t.ok(!existsSync(tmpDir) || readdirSync(tmpDir).length === 0, 'the partial file is removed');
    const list = await ts.as(ann)('GET', '/attachments');
    t.equal(list.body.attachments.length, 1, 'no attachment was recorded');
    t.equal(list.body.upload_space_used, 25 * MIB, 'upload_space_used is unchanged');
  });
});
