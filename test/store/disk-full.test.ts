import t from 'tap';
import { field, http } from '../cli/run.js';
import { canMount, smallDisk } from './full-disk.js';

/**
 * A full disk, for real (full-disk.ts: a 16 MiB tmpfs in a mount namespace of its own, nearly
 * filled by a ballast file). Sends go on until commits fail; the server must answer each failed
 * one with a JSON error, keep serving reads, log the cause, take writes again once the ballast
 * is gone, and have lost nothing it acknowledged after a restart.
 */
t.test('a full disk fails writes, not the server', { skip: canMount ? false : 'needs unshare --mount (a private tmpfs)' }, async (t) => {
  t.setTimeout(240_000);
  const disk = await smallDisk(t);
  let server = await disk.start();
  t.teardown(() => server.child.kill('SIGKILL'));
  const owner = { email: field(server.out(), 'owner email')!, apiKey: field(server.out(), 'owner API key')! };
  const call = (method: string, path: string, form?: Record<string, string>) => http(server.port, { method, path, host: `localhost:${server.port}`, auth: owner, form });
  const content = (i: number) => `message ${i}: ${'lorem ipsum dolor sit amet '.repeat(150)}`;
  const send = (i: number) => call('POST', '/messages', { type: 'stream', to: 'general', topic: 'full', content: content(i) });

  // Leave about 300 KB: a few dozen sends.
  disk.fill(300 * 1024);

  const acked: number[] = [];
  let failures = 0;
  for (let i = 0; i < 400 && failures < 5; i++) {
    const res = await send(i);
    if (res.status === 200) acked.push(res.body.id);
    else {
      failures++;
      t.equal(res.status, 503, `a failed send is a 503 (send ${i})`);
      t.equal(res.body.code, 'STORAGE_ERROR', 'STORAGE_ERROR, in JSON');
    }
  }
  t.equal(failures, 5, `sends failed once the disk was full (after ${acked.length} succeeded)`);
  t.ok(acked.length > 0, 'some sends succeeded first');
  t.equal(server.child.exitCode, null, 'the server is still running');
  t.equal((await call('GET', '/users/me')).status, 200, 'reads go on');
  const page = await call('GET', `/messages?${new URLSearchParams({ anchor: 'newest', num_before: '1000', num_after: '0', narrow: JSON.stringify([['topic', 'full']]) })}`);
  t.same(page.body.messages.map((m: { id: number }) => m.id), acked, 'every acknowledged message is there, and nothing else');
  t.match(server.out(), /LMDB commit failed/, 'the failure is logged');
  t.match(server.out(), /"cause"|"err":\{[^}]*"message":"(No space|Input\/output|MDB_)/, 'with its cause');

  disk.free();
  let after = await send(1000);
  for (let tries = 0; after.status !== 200 && tries < 10; tries++) {
    await new Promise((r) => setTimeout(r, 200));
    after = await send(1000 + tries + 1);
  }
  t.equal(after.status, 200, 'writes work again once space is freed');
  acked.push(after.body.id);

  server.child.kill('SIGTERM');
  t.equal((await server.exited).code, 0, 'a clean stop');
  server = await disk.start();
  const again = await call('GET', `/messages?${new URLSearchParams({ anchor: 'newest', num_before: '1000', num_after: '0', narrow: JSON.stringify([['topic', 'full']]) })}`);
  t.same(again.body.messages.map((m: { id: number }) => m.id), acked, 'after a restart: what was acknowledged, and only that');
  server.child.kill('SIGTERM');
  t.equal((await server.exited).code, 0, 'stops cleanly');
});
