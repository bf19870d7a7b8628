import t from 'tap';
import { startTestServer } from '../../helpers/server.js';

// GET /calls/bigbluebutton/create answers a signed join link, as the reference does whether or
// not BigBlueButton is configured; the link says that it is not.
t.test('GET /calls/bigbluebutton/create', async (t) => {
  const ts = await startTestServer(t);
  const res = await ts.request('GET', '/calls/bigbluebutton/create', { params: { meeting_name: 'general meeting', voice_only: true } });
  t.equal(res.status, 200, 'created');
  t.match(res.body.url, /^\/calls\/bigbluebutton\/join\?bigbluebutton=[\w-]+:[\w-]+$/, 'a signed join link');
  const [payload] = res.body.url.split('=')[1].split(':');
  t.same(JSON.parse(Buffer.from(payload, 'base64url').toString()), { meeting_id: JSON.parse(Buffer.from(payload, 'base64url').toString()).meeting_id, name: 'general meeting', lock_settings_disable_cam: true, moderator: ts.owner.userId }, 'naming the meeting, its camera lock and its moderator');
  const second = await ts.request('GET', '/calls/bigbluebutton/create', { params: { meeting_name: 'general meeting' } });
  t.not(second.body.url, res.body.url, 'each call is a new meeting');

  const missing = await ts.request('GET', '/calls/bigbluebutton/create', { unchecked: true });
  t.same([missing.status, missing.body.code], [400, 'REQUEST_VARIABLE_MISSING'], 'meeting_name is required');
  const anonymous = await ts.request('GET', '/calls/bigbluebutton/create', { params: { meeting_name: 'x' }, auth: null, unchecked: true });
  t.equal(anonymous.status, 401, 'credentials are required');

  const join = await fetch(`http://127.0.0.1:${ts.port}${res.body.url}`);
  t.equal(join.status, 400, 'the join link fails');
  t.match(await join.text(), /BigBlueButton is not configured\./, 'saying why, in a page');
});
