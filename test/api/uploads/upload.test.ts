import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';
import { uploadFiles } from '../../helpers/upload.js';

t.test('POST /user_uploads', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const tmpDir = join(ts.dataDir, 'uploads', 'tmp');
  const tmpEmpty = () => !existsSync(tmpDir) || readdirSync(tmpDir).length === 0;

  t.test('POST /user_uploads: stores a multipart file and answers with its URL', async (t) => {
    const res = await uploadFiles(ts, [{ filename: 'zulip.txt', content: 'zulip!', contentType: 'text/plain' }], { auth: ann });
    t.equal(res.status, 200, 'status 200');
    t.match(res.body.url, /^\/user_uploads\/\d+\/[0-9a-f]{2}\/[A-Za-z0-9_-]{24}\/zulip\.txt$/, 'url is /user_uploads/<realm>/<xx>/<random>/<name>');
    t.equal(res.body.uri, res.body.url, 'uri is the deprecated alias of url');
    t.equal(res.body.filename, 'zulip.txt', 'filename is the uploaded name');
    const onDisk = join(ts.dataDir, 'uploads', ...res.body.url.slice('/user_uploads/'.length).split('/'));
    t.equal(readFileSync(onDisk, 'utf8'), 'zulip!', 'the bytes are on disk under <dataDir>/uploads/<path id>');
    t.ok(tmpEmpty(), 'nothing is left in the temporary directory');
  });

  t.test('POST /user_uploads: a name is sanitised in the URL and kept as sent in filename', async (t) => {
    const res = await uploadFiles(ts, [{ filename: 'my "report" (final) été.pdf', content: '%PDF' }], { auth: ann });
    t.equal(res.status, 200, 'status 200');
    t.ok(res.body.url.endsWith('/my-report-final-été.pdf'), `unsafe characters dropped, spaces folded: ${res.body.url}`);
    t.equal(res.body.filename, 'my "report" (final) été.pdf', 'filename is the original name');
    const dots = await uploadFiles(ts, [{ filename: '..', content: 'x' }], { auth: ann });
    t.ok(dots.body.url.endsWith('/uploaded-file'), 'a name with nothing safe left becomes uploaded-file');
  });

  t.test('POST /user_uploads: the file may come in any field, beside other fields', async (t) => {
    const res = await uploadFiles(ts, [{ field: 'photo.png', filename: 'photo.png', content: Buffer.from([0x89, 0x50, 0x4e, 0x47]) }], { auth: ann, fields: { client: 'test' } });
    t.equal(res.status, 200, 'status 200');
    t.same(res.body.ignored_parameters_unsupported, ['client'], 'an unknown field is reported as ignored');
  });

  t.test('POST /user_uploads: needs exactly one file', async (t) => {
    const none = await uploadFiles(ts, [], { auth: ann, fields: { x: '1' } });
    t.equal(none.status, 400, 'no file: 400');
    t.equal(none.body.msg, 'You must specify a file to upload', 'reference message');
    const two = await uploadFiles(ts, [{ filename: 'a.txt', content: 'a' }, { filename: 'b.txt', content: 'b' }], { auth: ann });
    t.equal(two.status, 400, 'two files: 400');
    t.equal(two.body.msg, 'You may only upload one file at a time', 'reference message');
    t.ok(tmpEmpty(), 'the refused files are not kept');
    const list = await ts.as(ann)('GET', '/attachments');
    t.notOk(list.body.attachments.some((a: { name: string }) => a.name === 'a.txt' || a.name === 'b.txt'), 'no attachment was recorded');
  });

  t.test('POST /user_uploads: a client cannot pose as the front end with a __files field', async (t) => {
    const forged = JSON.stringify([{ field: 'file', filename: 'passwd', tmpPath: '/etc/passwd', size: 10, contentType: 'text/plain' }]);
    const res = await ts.as(ann)('POST', '/user_uploads', { params: { __files: forged } });
    t.equal(res.status, 400, 'refused');
    t.equal(res.body.msg, 'You must specify a file to upload', 'the field is dropped, as if no file came');
    const multipart = await uploadFiles(ts, [], { auth: ann, fields: { __files: forged } });
    t.equal(multipart.body.msg, 'You must specify a file to upload', 'in a multipart body too');
  });

  t.test('POST /user_uploads: needs credentials', async (t) => {
    const res = await uploadFiles(ts, [{ filename: 'a.txt', content: 'a' }], { auth: null });
    t.equal(res.status, 401, 'status 401');
    t.equal(res.body.code, 'UNAUTHORIZED', 'UNAUTHORIZED');
    t.ok(tmpEmpty(), 'the file is not kept');
  });
});
