import t from 'tap';
import { inaccessibleUserView } from '../../src/api/users/views.js';
import { startTestServer } from '../helpers/server.js';

/** The avatar that "Unknown user" placeholders (restricted guests' view of others) point at. */
t.test('GET the placeholder avatar', async (t) => {
  const ts = await startTestServer(t);
  const path = String(inaccessibleUserView('http://localhost', 7).avatar_url);
  const res = await fetch(`http://127.0.0.1:${ts.port}${path}`);
  t.equal(res.status, 200, `${path} is served, without credentials`);
  t.equal(res.headers.get('content-type'), 'image/png', 'as a PNG');
  t.match(res.headers.get('cache-control'), /max-age=\d+/, 'cacheable');
  const bytes = Buffer.from(await res.arrayBuffer());
  t.same([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'with the PNG signature');
  t.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR', 'and an image header');
});
