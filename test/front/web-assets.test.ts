import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import t from 'tap';
import { createUser, startTestServer } from '../helpers/server.js';
import { browse, logIn } from '../helpers/browser-http.js';

/**
 * The web app's files as the server sends them: `/` is the app with a session cookie and the
 * login page without; scripts and styles have content hashes, a year's cache and a compressed
 * twin; the page forbids inline script and framing. (`npm run build` makes dist/web.)
 */
t.test('web app assets', async (t) => {
  // Served over https (by a proxy in front): the cookies are Secure and __Host- prefixed.
  const ts = await startTestServer(t, { scheme: 'https' });
  await createUser(ts, 'alice@example.com', 'Alice', 'alice-password-1');
  const jar = await logIn(ts, 'alice@example.com', 'alice-password-1');
  t.same([...jar.cookies.keys()].sort(), ['__Host-csrftoken', '__Host-sessionid'], 'over https the cookies are __Host- prefixed');
  const login = await browse(ts, 'POST', '/login/', { form: { username: 'alice@example.com', password: 'alice-password-1' } });
  t.ok(login.setCookies.every((c) => /; Secure/.test(c) && /; Path=\//.test(c)), 'and Secure, for the whole site');

  const page = await browse(ts, 'GET', '/', { jar });
  t.equal(page.status, 200, '/ with a session: the app');
  t.match(page.headers['content-type'], /^text\/html/, 'an HTML page');
  const csp = String(page.headers['content-security-policy']);
  t.match(csp, /script-src 'self'(;|$)/, 'scripts only from this site');
  t.notMatch(csp, /unsafe-inline'[^;]*;?\s*$|script-src[^;]*unsafe/, 'no inline or eval script');
  t.match(csp, /frame-ancestors 'none'/, 'no framing');
  t.match(csp, /object-src 'none'/, 'no plugins');
  t.equal(page.headers['x-frame-options'], 'DENY', 'and X-Frame-Options for older browsers');
  t.equal(page.headers['cache-control'], 'no-cache', 'the page itself is revalidated');
  t.notMatch(page.text, /<script>|<script [^>]*>[^<]/, 'no inline script in the page');
  // A browser opening the app again (a reload, a second tab) revalidates the page it holds.
  const revalidated = await browse(ts, 'GET', '/', { jar, headers: { 'if-none-match': String(page.headers.etag) } });
  t.equal(revalidated.status, 304, 'the page revalidated with a session: 304, not a 404');
  const noSession = await browse(ts, 'GET', '/', { headers: { 'if-none-match': String(page.headers.etag) } });
  t.equal(noSession.status, 302, 'without a session the same request is sent to log in');

  const js = /src="(\/static\/web\/app-[0-9A-Z]{8}\.js)"/.exec(page.text)?.[1];
  const css = /href="(\/static\/web\/app-[0-9A-Z]{8}\.css)"/.exec(page.text)?.[1];
  t.ok(js && css, 'it names a hashed script and stylesheet');

  const plain = await browse(ts, 'GET', js!, { headers: { 'accept-encoding': 'identity' } });
  t.equal(plain.status, 200, 'the script');
  t.match(plain.headers['content-type'], /javascript/, 'as JavaScript');
  t.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable', 'cached for a year');
  t.equal(plain.headers['content-encoding'], undefined, 'uncompressed when not accepted');

  const raw = await rawGet(ts.port, js!, 'gzip, deflate, br');
  t.equal(raw.headers['content-encoding'], 'br', 'brotli when accepted');
  t.equal(brotliDecompressSync(raw.body).toString(), plain.text, 'the same bytes, compressed');
  t.match(String(raw.headers.vary), /Accept-Encoding/, 'Vary: Accept-Encoding');
  const gz = await rawGet(ts.port, css!, 'gzip');
  t.equal(gz.headers['content-encoding'], 'gzip', 'gzip when only that is accepted');
  t.ok(gunzipSync(gz.body).length > gz.body.length, 'and smaller');

  const again = await browse(ts, 'GET', js!, { headers: { 'if-none-match': String(plain.headers.etag) } });
  t.equal(again.status, 304, 'a revalidation answers 304');

  const icon = await rawGet(ts.port, '/favicon.ico', 'identity');
  t.equal(icon.status, 200, '/favicon.ico');
  t.equal(icon.headers['content-type'], 'image/png', 'an image');
  t.same([...icon.body.subarray(1, 4)], [...Buffer.from('PNG')], 'PNG bytes');

  t.equal((await browse(ts, 'GET', '/static/web/index.html')).status, 404, 'index.html is served only at /');
  t.equal((await browse(ts, 'GET', '/static/web/nothing-ABCDEFGH.js')).status, 404, 'an unknown asset is 404');
});

function rawGet(port: number, path: string, encoding: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return import('node:http').then(
    ({ request }) =>
      new Promise((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, headers: { 'accept-encoding': encoding }, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        });
        req.on('error', reject);
        req.end();
      }),
  );
}
