import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { devicesOf } from '../../../src/api/devices/actions.js';
import { startTestServer } from '../../helpers/server.js';
import { ROLE, startShard } from '../realm/harness.js';

t.test('push device tokens: bots, storage and restarts', async (t) => {
  t.test('bots are refused before their parameters are looked at', async (t) => {
    const h = await startShard(t);
    const bot = await h.user(ROLE.member, { isBot: true });
    for (const op of ['devices.addApns', 'devices.removeApns', 'devices.addGcm', 'devices.removeGcm']) {
      const res = await h.call(op, bot, {});
      t.equal(res.status, 400, `${op}: status 400`);
      t.equal(res.body.msg, 'This endpoint does not accept bot requests.', `${op}: bots are refused`);
    }
  });

  t.test('tokens are stored per user and kind', async (t) => {
    const h = await startShard(t);
    const user = await h.user(ROLE.member);
    await h.call('devices.addApns', h.owner, { token: 'ab12', appid: 'org.zulip.Zulip' });
    await h.call('devices.addGcm', h.owner, { token: 'fcm-token' });
    await h.call('devices.addGcm', user, { token: 'fcm-token' });
    const mine = devicesOf(h.shard, h.realm, h.owner.id);
    t.same(mine.map((d) => [d.kind, d.token, d.appid, d.userId]).sort(), [['apns', 'ab12', 'org.zulip.Zulip', h.owner.id], ['gcm', 'fcm-token', null, h.owner.id]], "the owner's two devices");
    t.same(devicesOf(h.shard, h.realm, user.id).map((d) => d.token), ['fcm-token'], "the member's one device");
  });

  t.test('a registered token survives a restart', async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'stoa-devices-test-'));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    let ts = await startTestServer(t, {}, { dataDir });
    let res = await ts.request('POST', '/users/me/android_gcm_reg_id', { params: { token: 'kept-token' } });
    t.equal(res.status, 200, 'registered');
    await ts.close();
    ts = await startTestServer(t, {}, { dataDir });
    res = await ts.request('DELETE', '/users/me/android_gcm_reg_id', { params: { token: 'kept-token' } });
    t.equal(res.status, 200, 'still there after the restart, and removed');
  });
});
