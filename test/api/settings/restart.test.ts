import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { BOT_TYPE } from '../../../src/model/types.js';
import { createUser, startTestServer } from '../../helpers/server.js';
import { editRealms, restart } from '../users/restart.js';

t.test('settings survive a restart', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-test-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startTestServer(t, {}, { dataDir });
  const ann = await createUser(first, 'ann@example.com', 'Ann');
  const res = await first.as(ann)('PATCH', '/settings', {
    params: { full_name: 'Ann Smith', timezone: 'Asia/Tokyo', color_scheme: 3, emojiset: 'twitter', enable_sounds: false, old_password: ann.password, new_password: 'a-new-long-password' },
  });
  t.equal(res.status, 200, 'changed');
  await first.close();

  const second = await startTestServer(t, {}, { dataDir });
  const state = (await second.as(ann)('POST', '/register', { params: { fetch_event_types: ['user_settings', 'realm_user'] } })).body;
  t.equal(state.full_name, 'Ann Smith', 'the name');
  t.equal(state.user_settings.timezone, 'Asia/Tokyo', 'the time zone');
  t.equal(state.realm_users.find((u: { user_id: number }) => u.user_id === ann.userId).timezone, 'Asia/Tokyo', 'the time zone in realm_users');
  t.equal(state.user_settings.color_scheme, 3, 'an integer setting');
  t.equal(state.user_settings.emojiset, 'twitter', 'a string setting');
  t.equal(state.user_settings.enable_sounds, false, 'a boolean setting');
  const login = await second.request('POST', '/fetch_api_key', { params: { username: ann.email, password: 'a-new-long-password' }, auth: null });
  t.equal(login.status, 200, 'the new password');
});

t.test('bots may not use PATCH /settings', async (t) => {
  const ts = await startTestServer(t);
  const bot = await createUser(ts, 'bot@example.com', 'A Bot');
  // No endpoint creates bots yet: an account becomes one offline.
  await restart(t, ts, editRealms((realm) => {
    const user = realm.userByEmail(bot.email)!;
    Object.assign(user, { isBot: true, botType: BOT_TYPE.generic, botOwnerId: 1 });
  }));
  const res = await ts.as(bot)('PATCH', '/settings', { params: { full_name: 'Renamed Bot' } });
  t.equal(res.status, 400, 'refused');
  t.equal(res.body.msg, 'This endpoint does not accept bot requests.', "the reference's message");
  t.equal((await ts.as(bot)('GET', '/users/me')).body.full_name, 'A Bot', 'the name did not change');
});
