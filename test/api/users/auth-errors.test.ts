import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

t.test('authentication errors on a real endpoint (GET /users/me)', async (t) => {
  const ts = await startTestServer(t);
  const member = await createUser(ts, 'ann@example.com');

  t.test('GET /users/me: missing credentials -> 401 UNAUTHORIZED with a Basic challenge', async (t) => {
    const res = await ts.request('GET', '/users/me', { auth: null });
    t.equal(res.status, 401, 'status 401');
    t.equal(res.body.code, 'UNAUTHORIZED', 'code UNAUTHORIZED');
    t.equal(res.body.result, 'error', 'error envelope');
    t.equal(res.headers['www-authenticate'], 'Basic realm="zulip"', 'WWW-Authenticate names the Basic scheme');
  });

  t.test('GET /users/me: a non-Basic Authorization header -> 401', async (t) => {
    const res = await ts.request('GET', '/users/me', { authorization: `Bearer ${member.apiKey}` });
    t.equal(res.status, 401, 'status 401');
    t.equal(res.body.code, 'UNAUTHORIZED', 'code UNAUTHORIZED');
  });

  // The reference's authenticated_rest_api_view answers every Basic-auth failure with
  // json_unauthorized(msg): code UNAUTHORIZED (its API test suite's test_invalid_api_key).
  t.test('GET /users/me: a wrong API key -> 401 UNAUTHORIZED "Invalid API key"', async (t) => {
    const res = await ts.request('GET', '/users/me', { auth: { email: member.email, apiKey: 'x'.repeat(32) } });
    t.equal(res.status, 401, 'status 401');
    t.equal(res.body.code, 'UNAUTHORIZED', 'code UNAUTHORIZED');
    t.equal(res.body.msg, 'Invalid API key', 'reference message');
    t.equal(res.headers['www-authenticate'], 'Basic realm="zulip"', 'with the Basic challenge');
  });

  t.test('GET /users/me: a key not of the API key shape -> 401 UNAUTHORIZED "Malformed API key"', async (t) => {
    const res = await ts.request('GET', '/users/me', { auth: { email: member.email, apiKey: 'abcedrsdfd' } });
    t.equal(res.status, 401, 'status 401');
    t.equal(res.body.code, 'UNAUTHORIZED', 'code UNAUTHORIZED');
    t.equal(res.body.msg, 'Malformed API key', 'reference message (has_api_key_format)');
  });

  t.test('GET /users/me: an unknown email -> 401 UNAUTHORIZED, like a wrong key', async (t) => {
    const res = await ts.request('GET', '/users/me', { auth: { email: 'nobody@example.com', apiKey: member.apiKey } });
    t.equal(res.status, 401, 'status 401');
    t.equal(res.body.code, 'UNAUTHORIZED', 'code UNAUTHORIZED');
    t.equal(res.body.msg, 'Invalid API key', 'an unknown user is not told apart from a wrong key');
  });

  // The reference's authenticated_rest_api_view answers every refusal of an API key as
  // UNAUTHORIZED with its Basic challenge, keeping the refusal's text.
  t.test('GET /users/me: a deactivated user -> 401 UNAUTHORIZED, "Account is deactivated"', async (t) => {
    const gone = await createUser(ts, 'gone@example.com');
    const del = await ts.request('DELETE', `/users/${gone.userId}`);
    t.equal(del.status, 200, 'the owner deactivates the user');
    const res = await ts.as(gone)('GET', '/users/me');
    t.equal(res.status, 401, 'status 401');
    t.equal(res.body.code, 'UNAUTHORIZED', 'code UNAUTHORIZED');
    t.equal(res.body.msg, 'Account is deactivated', 'reference message');
    t.equal(res.headers['www-authenticate'], 'Basic realm="zulip"', 'with the Basic challenge');
    const list = await ts.as(gone)('GET', '/users');
    t.same([list.status, list.body.code, list.body.msg], [401, 'UNAUTHORIZED', 'Account is deactivated'], 'the same on GET /users, whose authentication is optional');
  });

  t.test('GET /users: missing credentials without spectator access -> 401 UNAUTHORIZED', async (t) => {
    const res = await ts.request('GET', '/users', { auth: null });
    t.equal(res.status, 401, 'status 401');
    t.equal(res.body.code, 'UNAUTHORIZED', 'code UNAUTHORIZED');
    t.equal(res.headers['www-authenticate'], 'Basic realm="zulip"', 'WWW-Authenticate header');
    t.notOk(res.body.members, 'no member list leaks');
  });

  t.test('GET /users: a wrong key is refused, not treated as a spectator', async (t) => {
    const res = await ts.request('GET', '/users', { auth: { email: member.email, apiKey: 'y'.repeat(32) } });
    t.equal(res.status, 401, 'status 401');
    t.equal(res.body.code, 'UNAUTHORIZED', 'code UNAUTHORIZED');
    t.equal(res.body.msg, 'Invalid API key', 'reference message');
  });
});
