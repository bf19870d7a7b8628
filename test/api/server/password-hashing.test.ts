import { randomBytes } from 'node:crypto';
import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';
import { uploadFiles } from '../../helpers/upload.js';

/**
 * Password hashing has a thread of its own (lib/hasher.ts), not libuv's threadpool, which file
 * I/O shares, and a bounded queue. Eight concurrent logins with made-up names once held another
 * person's 1 KB upload for 14 to 27 s: each 32 MiB scrypt took one of the pool's four threads.
 */
t.test('concurrent bad logins do not stall another user\'s upload', async (t) => {
  t.setTimeout(180_000);
  // The failed-login limits are not what this is about.
  const ts = await startTestServer(t, { fetchApiKeyRateLimit: { failures: 1000, windowSeconds: 60 } });
  const other = await createUser(ts, 'uploader@example.com');
  const order: string[] = [];
  const logins = Array.from({ length: 12 }, (_, i) =>
    ts.request('POST', '/fetch_api_key', { params: { username: `nobody${i}-${randomBytes(3).toString('hex')}@example.com`, password: 'a-guess' }, auth: null, unchecked: true }).then((res) => {
      order.push(`login ${res.status}`);
      return res;
    }),
  );
  // The logins are on their way first.
  await new Promise((r) => setTimeout(r, 50));
  const upload = uploadFiles(ts, [{ filename: 'note.txt', content: 'x'.repeat(1024), contentType: 'text/plain' }], { auth: other }).then((res) => {
    order.push(`upload ${res.status}`);
    return res;
  });
  const [uploaded, answered] = await Promise.all([upload, Promise.all(logins)]);
  t.equal(uploaded.status, 200, 'the upload succeeds');
  t.same(answered.map((r) => r.body.code), answered.map(() => 'AUTHENTICATION_FAILED'), 'every login was hashed and refused');
  const before = order.indexOf('upload 200');
  t.ok(before < answered.length / 2, `the upload finished before half the logins were answered (after ${before} of ${answered.length}): ${order.join(', ')}`);
});

t.test('beyond the hashing queue, logins are refused with 429', async (t) => {
  t.setTimeout(180_000);
  const ts = await startTestServer(t, { fetchApiKeyRateLimit: { failures: 1000, windowSeconds: 60 } });
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, i) => ts.request('POST', '/fetch_api_key', { params: { username: `flood${i}-${randomBytes(3).toString('hex')}@example.com`, password: 'a-guess' }, auth: null, unchecked: true })),
  );
  const refused = answers.filter((a) => a.status === 429);
  t.ok(refused.length > 0, `some were refused (${refused.length} of 40)`);
  t.same(new Set(answers.map((a) => a.status)), new Set([401, 429]), 'the others were hashed and failed');
  t.match(refused[0]?.body, { result: 'error', code: 'RATE_LIMIT_HIT', msg: 'API usage exceeded rate limit' }, 'RATE_LIMIT_HIT');
  t.ok(refused[0]?.body['retry-after'] > 0, 'with retry-after');
  t.ok(Number(refused[0]?.headers['retry-after']) >= 1, 'and a Retry-After header');
  const right = await ts.request('POST', '/fetch_api_key', { params: { username: ts.owner.email, password: ts.owner.password }, auth: null });
  t.equal(right.status, 200, 'once the flood has passed, the right password logs in');
});
