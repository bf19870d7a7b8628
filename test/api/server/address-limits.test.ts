import { createHash, randomBytes } from 'node:crypto';
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { startWorld } from '../streams/world.js';

/**
 * The per-address limit counts every request that does not authenticate, wherever it fails,
 * once for the whole server (front/guard.ts). Carrying credentials once bypassed it: any
 * Authorization header or api_key= in the URL, valid or not, skipped the count.
 */
const garbage = `Basic ${Buffer.from('nobody@example.com:not-a-key').toString('base64')}`;

t.test('credentials that do not authenticate do not bypass the per-address limit', async (t) => {
  const ts = await startTestServer(t, { rateLimits: { enabled: true, perUser: [[60, 100]], perIp: [[60, 3]] } });
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await ts.request('GET', '/server_settings', { authorization: garbage })).status);
  t.same(statuses, [200, 200, 200, 429], 'GET /server_settings with a made-up Authorization header: counted, then 429');
  const withKey = await ts.request('GET', '/server_settings?api_key=made-up', { auth: null });
  t.equal(withKey.status, 429, 'an api_key in the URL is no way around it');
  t.equal(withKey.body.code, 'RATE_LIMIT_HIT', 'RATE_LIMIT_HIT');
  const owner = await ts.request('GET', '/server_settings', { auth: ts.owner });
  t.equal(owner.status, 429, 'real credentials on an endpoint that authenticates nobody are no way around it either');
  const login = await ts.request('POST', '/fetch_api_key', { params: { username: `x${randomBytes(4).toString('hex')}@example.com`, password: 'guess' }, authorization: garbage });
  t.equal(login.status, 429, 'nor for POST /fetch_api_key');
  t.equal((await ts.request('GET', '/users/me')).status, 200, 'a request whose credentials authenticate still passes, uncounted');
});

t.test('authenticated requests are given back to their address', async (t) => {
  const ts = await startTestServer(t, { rateLimits: { enabled: true, perUser: [[60, 100]], perIp: [[60, 3]] } });
  for (let i = 0; i < 10; i++) if ((await ts.request('GET', '/users/me')).status !== 200) return t.fail(`authenticated request ${i} refused`);
  const anonymous: number[] = [];
  for (let i = 0; i < 4; i++) anonymous.push((await ts.request('GET', '/server_settings', { auth: null })).status);
  t.same(anonymous, [200, 200, 200, 429], 'the address still has its whole allowance for requests that do not authenticate');
});

t.test('an address is counted once across shards', async (t) => {
  // "north" hashes to shard 1 of 2, the root realm to shard 0 (store/directory.ts reserve).
  t.equal(createHash('sha256').update('north').digest().readUInt32BE(0) % 2, 1, 'the two realms live on different shards');
  const w = await startWorld(t, { otherSubdomain: 'north', config: { rateLimits: { enabled: true, perUser: [[60, 100]], perIp: [[60, 4]] } } });
  const wrongRoot = { ...w.root.hamlet, apiKey: 'x'.repeat(32) };
  const wrongOther = { ...w.other.hamlet, apiKey: 'y'.repeat(32) };
  const statuses: number[] = [];
  for (let i = 0; i < 2; i++) statuses.push((await w.as(wrongRoot)('GET', '/users/me')).status);
  for (let i = 0; i < 2; i++) statuses.push((await w.asOther(wrongOther)('GET', '/users/me')).status);
  statuses.push((await w.asOther(wrongOther)('GET', '/users/me')).status);
  statuses.push((await w.as(wrongRoot)('GET', '/users/me')).status);
  t.same(statuses, [401, 401, 401, 401, 429, 429], 'failures in both realms share one allowance');
  t.equal((await w.asOther(w.other.hamlet)('GET', '/users/me')).status, 200, 'good credentials still pass');
});

t.test('password logins for unknown usernames count against the address', async (t) => {
  // Rate limits off (the test default): the failed-login limits hold regardless, as the per-account one does.
  const ts = await startTestServer(t, { fetchApiKeyRateLimit: { failures: 3, windowSeconds: 600 } });
  const login = (username: string, password = 'a-wrong-guess') => ts.request('POST', '/fetch_api_key', { params: { username, password }, auth: null, unchecked: true });
  const known = await login(ts.owner.email);
  t.equal(known.status, 401, 'a wrong password for an account that exists');
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await login(`guess${i}-${randomBytes(3).toString('hex')}@example.com`)).status);
  t.same(statuses, [401, 401, 401, 429], 'three names nobody has, then 429 for the address (the wrong password for a real account did not count here)');
  const refused = await login(`another-${randomBytes(3).toString('hex')}@example.com`);
  t.equal(refused.body.code, 'RATE_LIMIT_HIT', 'RATE_LIMIT_HIT');
  t.ok(refused.body['retry-after'] > 0, 'with retry-after');
  const right = await login(ts.owner.email, ts.owner.password);
  t.equal(right.status, 429, 'the address is refused logins until the window passes');
  const page = await fetch(`http://127.0.0.1:${ts.port}/login/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: `http://127.0.0.1:${ts.port}` },
    body: new URLSearchParams({ username: 'nobody-at-all@example.com', password: 'guess' }),
  });
  t.equal(page.status, 429, 'the login page too');
  t.match(await page.text(), /making too many attempts to sign in\. Try again in \d+ seconds or contact your organization administrator for help\./, "in the reference's words for a login over its limit");
  t.ok(Number(page.headers.get('retry-after')) > 0, 'with Retry-After');
});
