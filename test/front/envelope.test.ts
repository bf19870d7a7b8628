import t from 'tap';
import { startTestServer } from '../helpers/server.js';

t.test('front end: envelope and errors', async (t) => {
  const ts = await startTestServer(t);

  t.test('an unknown endpoint is a JSON 404', async (t) => {
    const res = await ts.request('GET', '/no/such/endpoint');
    t.equal(res.status, 404, 'status 404');
    t.match(res.body, { result: 'error', code: 'BAD_REQUEST' }, 'Zulip error envelope');
    t.type(res.body.msg, 'string', 'msg is a string');
  });

  t.test('a known path with the wrong method is a JSON 405', async (t) => {
    const res = await ts.request('PUT', '/users/me');
    t.equal(res.status, 405, 'status 405');
    t.equal(res.body.result, 'error', 'error envelope');
  });

  t.test('a malformed JSON body is INVALID_JSON', async (t) => {
    const res = await rawRequest(ts.port, ts.server.config.externalHost, 'POST', '/api/v1/users', '{"email": ', 'application/json');
    t.equal(res.status, 400, 'status 400');
    t.equal(res.body.code, 'INVALID_JSON', 'code INVALID_JSON');
  });

  t.test('a malformed JSON field is INVALID_JSON and changes nothing', async (t) => {
    const res = await ts.request('GET', '/users', { params: { user_ids: '[1,' } });
    t.equal(res.status, 400, 'status 400');
    t.equal(res.body.code, 'INVALID_JSON', 'code INVALID_JSON');
    t.match(res.body.msg, /user_ids/, 'the message names the parameter');
  });

  t.test('a missing parameter is REQUEST_VARIABLE_MISSING with var_name', async (t) => {
    const res = await ts.request('GET', '/get_stream_id');
    t.equal(res.status, 400, 'status 400');
    t.same(res.body, { result: 'error', msg: "Missing 'stream' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'stream' }, 'reference shape');
  });

  t.test('a badly typed parameter is REQUEST_VARIABLE_INVALID with var_name', async (t) => {
    const res = await ts.request('GET', '/users', { params: { client_gravatar: 'maybe' } });
    t.equal(res.status, 400, 'status 400');
    t.equal(res.body.code, 'REQUEST_VARIABLE_INVALID', 'code REQUEST_VARIABLE_INVALID');
    t.equal(res.body.var_name, 'client_gravatar', 'var_name names the parameter');
  });

  t.test('parameters arrive the same way in every encoding', async (t) => {
    for (const encoding of ['query', 'form', 'multipart', 'json'] as const) {
      const res = await ts.request('GET', '/users/me', { params: { extra: 'x' }, encoding });
      t.equal(res.status, 200, `${encoding}: status 200`);
      t.same(res.body.ignored_parameters_unsupported, ['extra'], `${encoding}: the unknown parameter is reported`);
    }
  });

  t.test('query string and body are merged', async (t) => {
    const query = `?username=${encodeURIComponent(ts.owner.email)}`;
    const body = `password=${encodeURIComponent(ts.owner.password)}`;
    const res = await rawRequest(ts.port, ts.server.config.externalHost, 'POST', `/api/v1/fetch_api_key${query}`, body, 'application/x-www-form-urlencoded');
    t.equal(res.status, 200, 'login succeeds with the username from the query and the password from the body');
    t.equal(res.body.api_key, ts.owner.apiKey, 'the owner key comes back');
  });
});

async function rawRequest(port: number, host: string, method: string, path: string, body: string, type: string, auth?: { email: string; apiKey: string }) {
  const { request } = await import('node:http');
  const headers: Record<string, string> = { host, 'content-type': type, 'content-length': String(Buffer.byteLength(body)) };
  if (auth) headers.authorization = `Basic ${Buffer.from(`${auth.email}:${auth.apiKey}`).toString('base64')}`;
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
