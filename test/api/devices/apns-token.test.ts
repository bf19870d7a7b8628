import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

const TOKEN = 'c0ffee'.repeat(10) + 'abcd';
const APP = 'org.zulip.Zulip';

t.test('POST/DELETE /users/me/apns_device_token', async (t) => {
  const ts = await startTestServer(t);
  const other = await createUser(ts, 'apns-other@example.com');
  const asOther = ts.as(other);

  t.test('registers a token, idempotently', async (t) => {
    let res = await ts.request('POST', '/users/me/apns_device_token', { params: { token: TOKEN, appid: APP } });
    t.equal(res.status, 200, 'status 200');
    t.same(res.body, { result: 'success', msg: '' }, 'a simple success');
    res = await ts.request('POST', '/users/me/apns_device_token', { params: { token: TOKEN, appid: APP } });
    t.equal(res.status, 200, 'registering again succeeds');
  });

  t.test('refuses bad tokens and app ids', async (t) => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ appid: APP }, "Missing 'token' argument", 'REQUEST_VARIABLE_MISSING'],
      [{ token: TOKEN }, "Missing 'appid' argument", 'REQUEST_VARIABLE_MISSING'],
      [{ token: '', appid: APP }, 'Empty or invalid length token', 'BAD_REQUEST'],
      [{ token: 'ab'.repeat(2049), appid: APP }, 'Empty or invalid length token', 'BAD_REQUEST'],
      [{ token: 'not-hex!', appid: APP }, 'Invalid APNS token', 'BAD_REQUEST'],
      [{ token: 'abc', appid: APP }, 'Invalid APNS token', 'BAD_REQUEST'],
      [{ token: TOKEN, appid: 'org zulip/../x' }, 'Invalid app ID', 'BAD_REQUEST'],
    ];
    for (const [params, msg, code] of cases) {
      const res = await ts.request('POST', '/users/me/apns_device_token', { params });
      t.equal(res.status, 400, `${msg}: status 400`);
      t.equal(res.body.msg, msg, `message: ${msg}`);
      t.equal(res.body.code, code, `code: ${code}`);
    }
    const res = await ts.request('DELETE', '/users/me/apns_device_token', { params: { token: 'zz' } });
    t.equal(res.body.msg, 'Invalid APNS token', 'removal validates the token too');
  });

  t.test('one user cannot remove another user\'s token', async (t) => {
    let res = await asOther('DELETE', '/users/me/apns_device_token', { params: { token: TOKEN } });
    t.equal(res.status, 400, 'status 400');
    t.match(res.body, { msg: 'Token does not exist', code: 'BAD_REQUEST' }, 'the token is not theirs');
    res = await ts.request('DELETE', '/users/me/apns_device_token', { params: { token: TOKEN } });
    t.equal(res.status, 200, 'the owner of the token still can');
  });

  t.test('removing an unknown token', async (t) => {
    const res = await ts.request('DELETE', '/users/me/apns_device_token', { params: { token: TOKEN } });
    t.equal(res.status, 400, 'status 400');
    t.match(res.body, { msg: 'Token does not exist', code: 'BAD_REQUEST' }, 'already removed');
  });

  t.test('two users may register the same token', async (t) => {
    let res = await ts.request('POST', '/users/me/apns_device_token', { params: { token: TOKEN, appid: APP } });
    t.equal(res.status, 200, 'owner registers');
    res = await asOther('POST', '/users/me/apns_device_token', { params: { token: TOKEN, appid: APP }, encoding: 'multipart' });
    t.equal(res.status, 200, 'the other user registers the same token');
    res = await asOther('DELETE', '/users/me/apns_device_token', { params: { token: TOKEN } });
    t.equal(res.status, 200, 'the other user removes theirs');
    res = await ts.request('DELETE', '/users/me/apns_device_token', { params: { token: TOKEN } });
    t.equal(res.status, 200, 'the owner\'s registration was not touched');
  });

  t.test('an APNs token is not an FCM token', async (t) => {
    await ts.request('POST', '/users/me/apns_device_token', { params: { token: TOKEN, appid: APP } });
    const res = await ts.request('DELETE', '/users/me/android_gcm_reg_id', { params: { token: TOKEN } });
    t.match(res.body, { msg: 'Token does not exist' }, 'the kinds are kept apart');
  });
});
