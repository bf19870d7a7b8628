import t from 'tap';
import { ROLE } from '../../../src/model/types.js';
import { convergenceHarness } from '../../helpers/convergence.js';
import { createUser, startTestServer } from '../../helpers/server.js';

t.test('GET /bots, PATCH and DELETE /bots/{bot_id}, API keys', async (t) => {
  const ts = await startTestServer(t);
  const alice = await createUser(ts, 'alice@example.com', 'Alice');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const admin = await createUser(ts, 'admin@example.com', 'Admin');
  await ts.request('PATCH', `/users/${admin.userId}`, { params: { role: ROLE.administrator } });
  const asAlice = ts.as(alice);
  const created = await asAlice('POST', '/bots', { params: { full_name: 'Alice Bot', short_name: 'alice' } });
  const botId = created.body.user_id as number;
  const botEmail = (await ts.request('GET', `/users/${botId}`)).body.user.email as string;
  const h = convergenceHarness(t, ts);
  // The credentials objects themselves: Alice's key changes below.
  const viewers = [alice, bob, admin];

  t.test('GET /bots lists the requester\'s own active bots', async (t) => {
    const mine = await asAlice('GET', '/bots');
    t.same(mine.body.bots.map((b: any) => [b.username, b.full_name, b.api_key]), [[botEmail, 'Alice Bot', created.body.api_key]], 'Alice\'s bot');
    t.same((await ts.as(bob)('GET', '/bots')).body.bots, [], 'Bob has none');
    t.same((await ts.as(admin)('GET', '/bots')).body.bots, [], 'administrators see only their own here');
  });

  t.test('who may manage a bot', async (t) => {
    const asBob = ts.as(bob);
    for (const [method, path, params] of [
      ['PATCH', `/bots/${botId}`, { full_name: 'Hijacked' }],
      ['DELETE', `/bots/${botId}`, {}],
      ['POST', `/bots/${botId}/api_key/regenerate`, {}],
    ] as const) {
      const res = await asBob(method, path, { params });
      t.same(res.body, { result: 'error', msg: 'Insufficient permission', code: 'BAD_REQUEST' }, `${method} ${path}: not by another member`);
    }
    const human = await asAlice('PATCH', `/bots/${bob.userId}`, { params: { full_name: 'X' } });
    t.same(human.body.msg, 'No such bot', 'a human is no bot');
    const none = await asAlice('DELETE', '/bots/99999');
    t.same(none.body.msg, 'No such bot', 'nor an unknown id');
    const byAdmin = await ts.as(admin)('PATCH', `/bots/${botId}`, { params: { full_name: 'Alice Bot' } });
    t.equal(byAdmin.status, 200, 'an administrator may');
  });

  await h.converges(
    'PATCH /bots/{bot_id}: name, default channels, owner; events converge',
    async () => {
      const res = await h.ok(alice, 'PATCH', `/bots/${botId}`, { full_name: 'Renamed Bot', default_sending_stream: 'general', default_all_public_streams: true, bot_owner_id: bob.userId });
      t.match(res, { full_name: 'Renamed Bot', default_sending_stream: 'general', default_events_register_stream: null, default_all_public_streams: true, bot_owner: 'bob@example.com', service_interface: 1, service_payload_url: null, config_data: null }, 'the reference\'s answer');
    },
    viewers,
  );

  t.test('the new owner manages it; the old one no longer does', async (t) => {
    t.same((await asAlice('DELETE', `/bots/${botId}`)).body.msg, 'Insufficient permission', 'Alice lost it');
    const reg = await ts.as(bob)('POST', '/register', { params: { fetch_event_types: ['realm_bot'] } });
    t.match(reg.body.realm_bots, [{ user_id: botId, full_name: 'Renamed Bot', owner_id: bob.userId, default_sending_stream: 'general' }], 'Bob\'s realm_bots');
  });

  t.test('PATCH errors', async (t) => {
    const asBob = ts.as(bob);
    const cases: [Record<string, unknown>, string][] = [
      [{ bot_owner_id: 99999 }, 'Failed to change owner, no such user'],
      [{ bot_owner_id: botId }, "Failed to change owner, bots can't own other bots"],
      [{ full_name: 'Alice' }, 'Name is already in use.'],
      [{ default_sending_stream: 'nowhere' }, "Invalid channel name 'nowhere'"],
      [{ role: 7 }, 'Invalid role'],
      [{ service_payload_url: JSON.stringify('http://x.example/'), service_interface: 9 }, 'Invalid interface type'],
    ];
    for (const [params, msg] of cases) t.same((await asBob('PATCH', `/bots/${botId}`, { params })).body.msg, msg, msg);
    const role = await asBob('PATCH', `/bots/${botId}`, { params: { role: ROLE.moderator } });
    t.same(role.body, { result: 'error', msg: 'Must be an organization administrator', code: 'UNAUTHORIZED_PRINCIPAL' }, 'only administrators change roles');
    const owner = await ts.as(admin)('PATCH', `/bots/${botId}`, { params: { role: ROLE.owner } });
    t.same(owner.body.msg, 'Must be an organization owner', 'only owners make owners');
    const ok = await ts.as(admin)('PATCH', `/bots/${botId}`, { params: { role: ROLE.moderator } });
    t.equal(ok.status, 200, 'an administrator changes the role');
    t.equal((await ts.request('GET', `/users/${botId}`)).body.user.role, ROLE.moderator, 'the bot is a moderator');
  });

  await h.converges(
    'POST /bots/{bot_id}/api_key/regenerate: a new key, the old one dead',
    async () => {
      const oldKey = (await ts.as(bob)('GET', '/bots')).body.bots[0].api_key;
      const res = await h.ok(bob, 'POST', `/bots/${botId}/api_key/regenerate`);
      t.not(res.api_key, oldKey, 'a new key');
      const old = await ts.request('GET', '/users/me', { auth: { email: botEmail, apiKey: oldKey } });
      t.equal(old.status, 401, 'the old key is refused');
      const fresh = await ts.request('GET', '/users/me', { auth: { email: botEmail, apiKey: res.api_key } });
      t.equal(fresh.status, 200, 'the new one works');
    },
    viewers,
  );

  t.test('POST /users/me/api_key/regenerate: humans only', async (t) => {
    const res = await ts.as(alice)('POST', '/users/me/api_key/regenerate');
    t.match(res.body.api_key, /^[A-Za-z0-9]{32}$/, 'a new key');
    t.equal((await ts.as(alice)('GET', '/users/me')).status, 401, 'the old key is dead');
    alice.apiKey = res.body.api_key;
    t.equal((await ts.as(alice)('GET', '/users/me')).status, 200, 'the new one works');
    const key = (await ts.as(bob)('GET', '/bots')).body.bots[0].api_key;
    const asBot = await ts.request('POST', '/users/me/api_key/regenerate', { auth: { email: botEmail, apiKey: key } });
    t.same(asBot.body, { result: 'error', msg: 'This endpoint does not accept bot requests.', code: 'BAD_REQUEST' }, 'bots are refused');
  });

  await h.converges(
    'DELETE /bots/{bot_id} deactivates; reactivation gives the bot back',
    async () => {
      await h.ok(bob, 'DELETE', `/bots/${botId}`);
      t.equal((await ts.request('GET', `/users/${botId}`)).body.user.is_active, false, 'deactivated');
      t.same((await ts.as(bob)('GET', '/bots')).body.bots, [], 'no longer listed by GET /bots');
    },
    viewers,
  );

  await h.converges(
    'deactivating the owner deactivates the bot; an administrator reactivating it becomes its owner',
    async () => {
      await h.ok(bob, 'POST', `/users/${botId}/reactivate`);
      await h.ok(ts.owner, 'DELETE', `/users/${bob.userId}`);
      t.equal((await ts.request('GET', `/users/${botId}`)).body.user.is_active, false, 'the bot went with its owner');
      await h.ok(admin, 'POST', `/users/${botId}/reactivate`);
      t.equal((await ts.request('GET', `/users/${botId}`)).body.user.bot_owner_id, admin.userId, 'the reactivating administrator owns it');
    },
    [viewers[0], viewers[2]],
  );
});
