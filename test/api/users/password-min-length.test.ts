import t from 'tap';
import { startTestServer } from '../../helpers/server.js';

// config.passwordMinLength is the reference's PASSWORD_MIN_LENGTH. The reference's API test
// suite (python_examples.create_user) creates newbie@zulip.com with the password "temp", which
// its test server accepts; a server configured like it must too, and report the setting.
t.test('passwordMinLength configures the password policy', async (t) => {
  t.test('default 6: "temp" is too weak, and /register says 6', async (t) => {
    const ts = await startTestServer(t);
    const res = await ts.request('POST', '/users', { params: { email: 'newbie@example.com', password: 'temp', full_name: 'New User' } });
    t.same([res.status, res.body.msg], [400, 'The password is too weak.'], 'refused');
    const reg = await ts.request('POST', '/register', { params: { fetch_event_types: ['realm'] } });
    t.equal(reg.body.password_min_length, 6, 'password_min_length 6');
  });

  t.test('0: "temp" makes an account that can log in, and /register says 0', async (t) => {
    const ts = await startTestServer(t, { passwordMinLength: 0 });
    const res = await ts.request('POST', '/users', { params: { email: 'newbie@example.com', password: 'temp', full_name: 'New User' } });
    t.equal(res.status, 200, 'created');
    const again = await ts.request('POST', '/users', { params: { email: 'newbie@example.com', password: 'temp', full_name: 'New User' } });
    t.same([again.status, again.body.msg], [400, "Email 'newbie@example.com' already in use"], 'the suite\'s second call: email already used');
    const login = await ts.request('POST', '/fetch_api_key', { auth: null, params: { username: 'newbie@example.com', password: 'temp' } });
    t.equal(login.status, 200, 'the password logs in');
    const reg = await ts.request('POST', '/register', { params: { fetch_event_types: ['realm'] } });
    t.equal(reg.body.password_min_length, 0, 'password_min_length 0');
  });

  t.test('the setting is checked: a negative length stops the start', async (t) => {
    await t.rejects(startTestServer(t, { passwordMinLength: -1 }), /passwordMinLength/, 'refused with a message naming it');
  });
});
