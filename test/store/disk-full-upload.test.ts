import { existsSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import t from 'tap';
import { field } from '../cli/run.js';
import { multipartBody } from '../helpers/upload.js';
import { canMount, smallDisk } from './full-disk.js';

/**
 * An upload while the disk is full: the front end's write of the temporary file fails with
 * ENOSPC. The request must be answered, with a clear JSON error, and leave no temporary file;
 * once space returns, uploads work again. (It was never answered, even after space returned, and
 * its temporary file stayed.)
 */
t.test('an upload on a full disk is answered and leaves nothing behind', { skip: canMount ? false : 'needs unshare --mount (a private tmpfs)' }, async (t) => {
  t.setTimeout(180_000);
  const disk = await smallDisk(t);
  const server = await disk.start();
  t.teardown(() => server.child.kill('SIGKILL'));
  const owner = { email: field(server.out(), 'owner email')!, apiKey: field(server.out(), 'owner API key')! };
  const upload = (content: Buffer) =>
    new Promise<{ status: number; body: any; connection?: string }>((resolve, reject) => {
      const { body, contentType } = multipartBody([{ filename: 'big.bin', content }]);
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          method: 'POST',
          path: '/api/v1/user_uploads',
          agent: false,
          headers: { host: `localhost:${server.port}`, 'content-type': contentType, 'content-length': body.length, authorization: `Basic ${Buffer.from(`${owner.email}:${owner.apiKey}`).toString('base64')}` },
        },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text), connection: res.headers.connection }));
        },
      );
      // The server may close as soon as it has answered, while the rest of the body is on its way.
      req.on('error', reject);
      req.end(body);
    });
  const tmp = join(disk.inside, 'uploads', 'tmp');
  const leftovers = () => (existsSync(tmp) ? readdirSync(tmp) : []);

  // About 200 KB free, a 2 MB file.
  disk.fill(200 * 1024);
  const full = await upload(Buffer.alloc(2 * 1024 * 1024, 7));
  t.equal(full.status, 503, 'answered 503');
  t.match(full.body, { result: 'error', code: 'STORAGE_ERROR', msg: /could not store the uploaded file/ }, 'with a clear JSON error');
  t.equal(full.connection, 'close', 'and the connection closes (the rest of the body stays unread)');
  t.same(leftovers(), [], 'no temporary file is left');
  t.notMatch(server.out(), /unhandled/i, 'no unhandled rejection');
  t.equal(server.child.exitCode, null, 'the server runs on');

  disk.free();
  const after = await upload(Buffer.alloc(64 * 1024, 8));
  t.equal(after.status, 200, 'uploads work once space returns');
  t.match(after.body.url, /^\/user_uploads\//, 'with the file');
  t.same(leftovers(), [], 'and leave no temporary file');
  server.child.kill('SIGTERM');
  t.equal((await server.exited).code, 0, 'stops cleanly');
});
