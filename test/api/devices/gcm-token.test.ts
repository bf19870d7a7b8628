import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

const TOKEN = 'fcm:APA91bH-example_registration-token.with.any-chars';

t.test('POST/DELETE /users/me/android_gcm_reg_id', async (t) => {
  const ts = await startTestServer(t);
  const other = await createUser(ts, 'fcm-other@example.com');

  t.test('registers and removes a token', async (t) => {
    let res = await ts.request('POST', '/users/me/android_gcm_reg_id', { params: { token: TOKEN } });
    t.equal(res.status, 200, 'registered');
    t.same(res.body, { result: 'success', msg: '' }, 'a simple success');
    res = await ts.request('POST', '/users/me/android_gcm_reg_id', { params: { token: TOKEN }, encoding: 'json' });
    t.equal(res.status, 200, 'registering again succeeds');
    res = await ts.as(other)('DELETE', '/users/me/android_gcm_reg_id', { params: { token: TOKEN } });
    t.match(res.body, { msg: 'Token does not exist', code: 'BAD_REQUEST' }, 'another user cannot remove it');
    res = await ts.request('DELETE', '/users/me/android_gcm_reg_id', { params: { token: TOKEN } });
    t.equal(res.status, 200, 'removed by its owner');
    res = await ts.request('DELETE', '/users/me/android_gcm_reg_id', { params: { token: TOKEN } });
    t.match(res.body, { msg: 'Token does not exist', code: 'BAD_REQUEST' }, 'gone after removal');
  });

  t.test('refuses missing, empty and oversized tokens', async (t) => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['POST', {}, "Missing 'token' argument"],
      ['POST', { token: '' }, 'Empty or invalid length token'],
      ['POST', { token: 'x'.repeat(4097) }, 'Empty or invalid length token'],
      ['DELETE', {}, "Missing 'token' argument"],
      ['DELETE', { token: '' }, 'Empty or invalid length token'],
    ];
    for (const [method, params, msg] of cases) {
      const res = await ts.request(method, '/users/me/android_gcm_reg_id', { params, encoding: method === 'POST' ? 'form' : 'query' });
      t.equal(res.status, 400, `${method} ${JSON.stringify(params).slice(0, 30)}: status 400`);
      t.equal(res.body.msg, msg, `message: ${msg}`);
    }
    for (const token of ['x'.repeat(4096), 'y'.repeat(4096), '#hash-like']) {
      let res = await ts.request('POST', '/users/me/android_gcm_reg_id', { params: { token } });
      t.equal(res.status, 200, `a ${token.length}-character token is accepted`);
      res = await ts.request('DELETE', '/users/me/android_gcm_reg_id', { params: { token } });
      t.equal(res.status, 200, `and removed`);
      res = await ts.request('DELETE', '/users/me/android_gcm_reg_id', { params: { token } });
      t.match(res.body, { msg: 'Token does not exist' }, 'once');
    }
  });

  t.test('needs authentication', async (t) => {
    const res = await ts.request('POST', '/users/me/android_gcm_reg_id', { params: { token: TOKEN }, auth: null });
    t.equal(res.status, 401, 'status 401');
  });
});
