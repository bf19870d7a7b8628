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

/**
 * With `bigBlueButton` configured, the join link creates the meeting on the BigBlueButton server
 * (its API's create call, checksummed with the shared secret) and sends the browser to its join
 * URL: moderator for the call's creator, viewer for the others. Here a small HTTP server plays
 * BigBlueButton's API and checks every checksum.
 */
t.test('GET /calls/bigbluebutton/join with a BigBlueButton server', async (t) => {
  const { createServer } = await import('node:http');
  const { createHash } = await import('node:crypto');
  const secret = 'bbb-shared-secret';
  const calls: { call: string; params: URLSearchParams; checksumOk: boolean }[] = [];
  let answer = (_call: string) => '<response><returncode>SUCCESS</returncode><createTime>1700000000123</createTime></response>';
  const bbb = createServer((req, res) => {
    const url = new URL(req.url!, 'http://bbb');
    const call = url.pathname.replace('/bigbluebutton/api/', '');
    const query = url.search.slice(1).replace(/&checksum=[0-9a-f]+$/, '');
    const checksumOk = createHash('sha256').update(call + query + secret).digest('hex') === url.searchParams.get('checksum');
    calls.push({ call, params: url.searchParams, checksumOk });
    res.setHeader('content-type', 'text/xml');
    res.end(checksumOk ? answer(call) : '<response><returncode>FAILED</returncode><messageKey>checksumError</messageKey></response>');
  });
  await new Promise<void>((resolve) => bbb.listen(0, '127.0.0.1', resolve));
  t.teardown(() => bbb.close());
  const base = `http://127.0.0.1:${(bbb.address() as { port: number }).port}/bigbluebutton/`;
  const ts = await startTestServer(t, { bigBlueButton: { url: base, secret } });
  const { createUser } = await import('../../helpers/server.js');
  const guest = await createUser(ts, 'viewer@example.com', 'Vi Ewer');
  const link = (await ts.request('GET', '/calls/bigbluebutton/create', { params: { meeting_name: 'standup' } })).body.url as string;
  const open = (creds: { email: string; apiKey: string } | null, url = link) =>
    fetch(`http://127.0.0.1:${ts.port}${url}`, { redirect: 'manual', headers: { host: ts.server.config.externalHost, ...(creds ? { authorization: `Basic ${Buffer.from(`${creds.email}:${creds.apiKey}`).toString('base64')}` } : {}) } });

  const asOwner = await open(ts.owner);
  t.equal(asOwner.status, 302, 'the creator is sent on');
  const create = calls.find((c) => c.call === 'create')!;
  t.ok(create?.checksumOk, 'after a create call with a valid checksum');
  t.equal(create.params.get('name'), 'standup', 'naming the meeting');
  const location = new URL(asOwner.headers.get('location')!);
  t.equal(`${location.origin}${location.pathname}`, `${base}api/join`, 'to the server\'s join call');
  const joinQuery = location.search.slice(1).replace(/&checksum=[0-9a-f]+$/, '');
  t.equal(createHash('sha256').update(`join${joinQuery}${secret}`).digest('hex'), location.searchParams.get('checksum'), 'checksummed with the secret');
  t.same([location.searchParams.get('role'), location.searchParams.get('fullName'), location.searchParams.get('createTime'), location.searchParams.get('meetingID')], ['MODERATOR', 'Stoa Owner', '1700000000123', create.params.get('meetingID')], 'as moderator, by name, in the meeting just created');

  const asViewer = await open(guest);
  t.equal(new URL(asViewer.headers.get('location')!).searchParams.get('role'), 'VIEWER', 'anyone else joins as a viewer');

  const anonymous = await open(null);
  t.equal(anonymous.status, 401, 'without credentials the link asks to log in');
  t.match(await anonymous.text(), /Log in to join this call/, 'in a page');

  const tampered = await open(ts.owner, link.replace(/:[\w-]+$/, ':AAAA'));
  t.equal(tampered.status, 400, 'a link whose signature does not match is refused');
  t.match(await tampered.text(), /Invalid signature\./, 'saying so');

  answer = () => '<response><returncode>FAILED</returncode><messageKey>idNotUnique</messageKey></response>';
  const failed = await open(ts.owner);
  t.equal(failed.status, 502, 'a refused create is a 502 page');
  t.match(await failed.text(), /BigBlueButton server returned an unexpected error\./, 'with the reference\'s message');
  bbb.close();
  bbb.closeAllConnections();
  const down = await open(ts.owner);
  t.match(await down.text(), /Error connecting to the BigBlueButton server\./, 'and an unreachable server says so');
});

/**
 * A join link is posted in a message and opened later, perhaps after a restart: it is signed
 * with a key the shard's store keeps, not one that lives as long as the thread.
 */
t.test('GET /calls/bigbluebutton/join: a link made before a restart still opens', async (t) => {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-bbb-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  // A BigBlueButton address where nothing listens: a link whose signature holds gets as far as
  // trying to reach it.
  const bigBlueButton = { url: 'http://127.0.0.1:9/bigbluebutton/', secret: 's' };
  const before = await startTestServer(t, { bigBlueButton }, { dataDir });
  const link = (await before.request('GET', '/calls/bigbluebutton/create', { params: { meeting_name: 'later' } })).body.url as string;
  const owner = before.owner;
  await before.close();
  const after = await startTestServer(t, { bigBlueButton }, { dataDir });
  const res = await fetch(`http://127.0.0.1:${after.port}${link}`, { headers: { authorization: `Basic ${Buffer.from(`${owner.email}:${owner.apiKey}`).toString('base64')}` } });
  const text = await res.text();
  t.notMatch(text, /Invalid signature/, 'the signature still holds');
  t.match(text, /Error connecting to the BigBlueButton server\./, 'and the link gets as far as calling the server');
});
