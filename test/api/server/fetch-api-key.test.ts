import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

t.test('POST /fetch_api_key', async (t) => {
  const ts = await startTestServer(t, { fetchApiKeyRateLimit: { failures: 3, windowSeconds: 60 } });
  const login = (username: string, password: string) => ts.request('POST', '/fetch_api_key', { auth: null, params: { username, password } });

  t.test('POST /fetch_api_key: the right password gives the API key, email and user id', async (t) => {
    const res = await login(ts.owner.email, ts.owner.password);
    t.equal(res.status, 200, 'status 200 (and the body matched the OpenAPI schema)');
    t.same(res.body, { result: 'success', msg: '', api_key: ts.owner.apiKey, email: ts.owner.email, user_id: ts.owner.userId }, 'the owner\'s credentials');
    const me = await ts.as({ email: res.body.email, apiKey: res.body.api_key })('GET', '/users/me');
    t.equal(me.status, 200, 'the key authenticates');
  });

  t.test('POST /fetch_api_key: the username is matched case-insensitively, multipart works', async (t) => {
    const res = await ts.request('POST', '/fetch_api_key', { auth: null, encoding: 'multipart', params: { username: ts.owner.email.toUpperCase(), password: ts.owner.password } });
    t.equal(res.status, 200, 'status 200');
    t.equal(res.body.user_id, ts.owner.userId, 'the same account');
  });

  t.test('POST /fetch_api_key: a wrong password -> 401 AUTHENTICATION_FAILED', async (t) => {
    const user = await createUser(ts, 'wrong@example.com');
    const res = await login(user.email, 'not-the-password');
    t.equal(res.status, 401, 'status 401');
    t.equal(res.body.code, 'AUTHENTICATION_FAILED', 'code AUTHENTICATION_FAILED');
    t.equal(res.body.msg, 'Your username or password is incorrect', 'reference message');
    t.notOk('api_key' in res.body, 'no key');
  });

  t.test('POST /fetch_api_key: an unknown user -> the same 401 AUTHENTICATION_FAILED', async (t) => {
    const res = await login('nobody@example.com', 'whatever-password');
    t.equal(res.status, 401, 'status 401');
    t.equal(res.body.code, 'AUTHENTICATION_FAILED', 'indistinguishable from a wrong password');
    t.equal(res.body.msg, 'Your username or password is incorrect', 'reference message');
  });

  t.test('POST /fetch_api_key: a deactivated user -> 401 USER_DEACTIVATED', async (t) => {
    const user = await createUser(ts, 'deact@example.com');
    await ts.request('DELETE', `/users/${user.userId}`);
    const res = await login(user.email, user.password);
    t.equal(res.status, 401, 'status 401');
    t.equal(res.body.code, 'USER_DEACTIVATED', 'code USER_DEACTIVATED');
    t.equal(res.body.msg, 'Account is deactivated', 'reference message');
  });

  t.test('POST /fetch_api_key: missing parameters -> REQUEST_VARIABLE_MISSING', async (t) => {
    const noUser = await ts.request('POST', '/fetch_api_key', { auth: null, params: { password: 'x' } });
    t.equal(noUser.body.code, 'REQUEST_VARIABLE_MISSING', 'without username');
    t.equal(noUser.body.var_name, 'username', 'names username');
    const noPass = await ts.request('POST', '/fetch_api_key', { auth: null, params: { username: ts.owner.email } });
    t.equal(noPass.body.var_name, 'password', 'without password: names password');
  });

  t.test('POST /fetch_api_key: a username that is not an email -> BAD_REQUEST', async (t) => {
    const res = await login('not an email', 'x');
    t.equal(res.status, 400, 'status 400');
    t.equal(res.body.msg, 'Enter a valid email address.', 'reference message');
  });

  t.test('POST /fetch_api_key: credentials in an Authorization header are not needed nor used', async (t) => {
    const res = await ts.request('POST', '/fetch_api_key', { authorization: 'Bearer junk', params: { username: ts.owner.email, password: ts.owner.password } });
    t.equal(res.status, 200, 'an unrelated Authorization header does not matter');
  });

  t.test('POST /fetch_api_key: failures are rate limited per username, even for the right password', async (t) => {
    const user = await createUser(ts, 'limited@example.com');
    const other = await createUser(ts, 'other@example.com');
    for (let i = 1; i <= 3; i++) {
      const res = await login(user.email, `wrong-${i}`);
      t.equal(res.body.code, 'AUTHENTICATION_FAILED', `failure ${i} is a normal failure`);
    }
    const limited = await login(user.email, user.password);
    t.equal(limited.status, 429, 'the next attempt, with the right password, gets 429');
    t.equal(limited.body.code, 'RATE_LIMIT_HIT', 'code RATE_LIMIT_HIT');
    t.equal(limited.body.msg, 'API usage exceeded rate limit', 'reference message');
    t.ok(limited.body['retry-after'] > 0 && limited.body['retry-after'] <= 60, 'retry-after within the window');
    t.match(limited.headers['retry-after'], /^\d+$/, 'Retry-After header in whole seconds');
    t.notOk('api_key' in limited.body, 'no key while limited');

    const mixedCase = await login(user.email.toUpperCase(), user.password);
    t.equal(mixedCase.status, 429, 'the limit holds for another spelling of the same username');
    const unaffected = await login(other.email, other.password);
    t.equal(unaffected.status, 200, 'another username is not limited');
  });

  t.test('POST /fetch_api_key: the limit lifts when the window has passed', async (t) => {
    // A server of its own with a one-failure limit and a short window. The window must outlast
    // one password hash on a loaded machine, or the failure ages out before the second attempt.
    const quick = await startTestServer(t, { fetchApiKeyRateLimit: { failures: 1, windowSeconds: 5 } });
    const attempt = (password: string) => quick.request('POST', '/fetch_api_key', { auth: null, params: { username: quick.owner.email, password } });
    t.equal((await attempt('wrong')).status, 401, 'one failure');
    const limited = await attempt(quick.owner.password);
    t.equal(limited.status, 429, 'limited at once, right password or not');
    // Wait as long as the server says, and no more than the window.
    const wait = limited.body['retry-after'] as number;
    t.ok(wait > 0 && wait <= 5, 'retry-after is within the window');
    await new Promise((r) => setTimeout(r, wait * 1000 + 100));
    t.equal((await attempt(quick.owner.password)).status, 200, 'after the window the right password works again');
  });

  t.test('POST /fetch_api_key: a success clears earlier failures', async (t) => {
    const user = await createUser(ts, 'clears@example.com');
    await login(user.email, 'wrong-1');
    await login(user.email, 'wrong-2');
    t.equal((await login(user.email, user.password)).status, 200, 'two failures, then a success');
    await login(user.email, 'wrong-3');
    await login(user.email, 'wrong-4');
    t.equal((await login(user.email, user.password)).status, 200, 'the count restarted: two more failures are not yet the limit');
  });

  t.test('POST /fetch_api_key: unknown usernames are limited too', async (t) => {
    for (let i = 0; i < 3; i++) await login('ghost@example.com', 'guess');
    const res = await login('ghost@example.com', 'guess');
    t.equal(res.status, 429, 'guessing at a nonexistent account is limited like any other');
  });
});
