import t from 'tap';
import { startTestServer } from '../helpers/server.js';

/**
 * A path served with other methods answers as the reference's rest_dispatch does: 405 with the
 * methods it takes in `allowed_methods` and in an `Allow` header (HEAD wherever GET is), and
 * OPTIONS lists them with no body.
 */
t.test('405 Method Not Allowed names the allowed methods', async (t) => {
  const ts = await startTestServer(t);
  const cases: [string, string, string[]][] = [
    ['PUT', '/users/me', ['GET', 'DELETE', 'HEAD']],
    ['DELETE', '/messages', ['POST', 'GET', 'HEAD']],
    ['GET', '/fetch_api_key', ['POST']],
  ];
  for (const [method, path, expected] of cases) {
    const res = await ts.request(method, path, { unchecked: true });
    t.equal(res.status, 405, `${method} ${path}: 405`);
    t.same(res.body, { result: 'error', msg: 'Method Not Allowed', code: 'BAD_REQUEST', allowed_methods: expected }, 'the reference\'s body, with the methods the path takes');
    t.equal(res.headers.allow, expected.join(', '), 'and an Allow header');
  }

  const options = await fetch(`http://127.0.0.1:${ts.port}/api/v1/users/me`, { method: 'OPTIONS', headers: { host: ts.server.config.externalHost } });
  t.equal(options.status, 204, 'OPTIONS: 204');
  t.equal(options.headers.get('allow'), 'GET, DELETE, HEAD', 'with the Allow header');
  t.equal(await options.text(), '', 'and no body');

  const unknown = await ts.request('PUT', '/no/such/thing', { unchecked: true });
  t.equal(unknown.status, 404, 'an unknown path is still a 404');
  t.notOk(unknown.headers.allow, 'without an Allow header');
});
