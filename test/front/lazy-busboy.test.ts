import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { basic, rawExchange, rawRequest } from '../helpers/raw.js';
import { startTestServer } from '../helpers/server.js';
import { uploadFiles } from '../helpers/upload.js';

/**
 * busboy loads with the first multipart body (front/body.ts), not with the server. The first
 * such bodies must read as before: two arriving together (both wait for the one load), fields
 * and a file. The test's process is the server's main thread, so its module cache is the server's.
 */
const require = createRequire(import.meta.url);
const busboyLoaded = () => Object.keys(require.cache).some((file) => /[\\/]node_modules[\\/]busboy[\\/]/.test(file));

t.test('busboy loads with the first multipart body, which reads as before', async (t) => {
  const ts = await startTestServer(t);
  t.teardown(() => ts.close());
  t.notOk(busboyLoaded(), 'not loaded by the start');
  await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'form', content: 'a form' } });
  t.notOk(busboyLoaded(), 'nor by a form body');

  const [first, second] = await Promise.all([
    ts.request('POST', '/messages', { encoding: 'multipart', params: { type: 'stream', to: 'general', topic: 'multipart', content: 'first **multipart** body' } }),
    uploadFiles(ts, [{ filename: 'first.txt', content: 'the first file', contentType: 'text/plain' }], { fields: { client: 'test' } }),
  ]);
  t.ok(busboyLoaded(), 'loaded by them');
  t.equal(first.status, 200, 'the multipart send: 200');
  const got = await ts.request('GET', `/messages/${first.body.id as number}`);
  t.equal(got.body.message.content, '<p>first <strong>multipart</strong> body</p>', 'its fields read');
  t.equal(second.status, 200, 'the upload beside it: 200');
  t.same(second.body.ignored_parameters_unsupported, ['client'], 'its field read');
  const onDisk = join(ts.dataDir, 'uploads', ...(second.body.url as string).slice('/user_uploads/'.length).split('/'));
  t.equal(readFileSync(onDisk, 'utf8'), 'the first file', 'its file stored');

  const body = 'no boundary';
  const head = rawRequest('POST', '/api/v1/messages', { Host: ts.server.config.externalHost, Authorization: basic(ts.owner), 'Content-Type': 'multipart/form-data', 'Content-Length': String(body.length) });
  const malformed = await rawExchange(ts.port, [head, body]);
  t.equal(malformed.status, 400, 'a multipart body without a boundary is still refused');
});
