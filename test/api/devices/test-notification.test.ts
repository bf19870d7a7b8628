import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

// POST /mobile_push/test_notification: a known device (or all of them) succeeds, as the reference
// does with no push service configured; a token the user has not registered is its error.
t.test('POST /mobile_push/test_notification', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const token = 'c0ffee'.repeat(8);
  t.equal((await ts.request('POST', '/users/me/android_gcm_reg_id', { params: { token } })).status, 200, 'a device registered');

  const all = await ts.request('POST', '/mobile_push/test_notification');
  t.same([all.status, all.body], [200, { result: 'success', msg: '' }], 'to every device of the user');
  const one = await ts.request('POST', '/mobile_push/test_notification', { params: { token } });
  t.equal(one.status, 200, 'to the device named');

  const unknown = await ts.request('POST', '/mobile_push/test_notification', { params: { token: 'feed'.repeat(8) } });
  t.same([unknown.status, unknown.body], [400, { result: 'error', msg: 'Device not recognized', code: 'INVALID_PUSH_DEVICE_TOKEN' }], 'an unknown token');
  const others = await ts.as(ann)('POST', '/mobile_push/test_notification', { params: { token } });
  t.same([others.status, others.body.code], [400, 'INVALID_PUSH_DEVICE_TOKEN'], "another user's token is not Ann's");
  const none = await ts.as(ann)('POST', '/mobile_push/test_notification');
  t.equal(none.status, 200, 'a user without devices has nothing to send to');
});
