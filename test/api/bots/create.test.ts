import t from 'tap';
import { ROLE } from '../../../src/model/types.js';
import { createUser, startTestServer } from '../../helpers/server.js';
import { restart, setRealmSetting, setRoles } from '../users/restart.js';

const INSUFFICIENT = { result: 'error', msg: 'Insufficient permission', code: 'BAD_REQUEST' };

t.test('POST /bots', async (t) => {
  const ts = await startTestServer(t, { embeddedBotsEnabled: true });
  const member = await createUser(ts, 'member@example.com', 'Member');
  const guest = await createUser(ts, 'guest@example.com', 'Guest');
  await ts.request('PATCH', `/users/${guest.userId}`, { params: { role: ROLE.guest } });
  const host = new URL(`http://${ts.server.config.externalHost}`).hostname;

  t.test('creates each type of bot, with the reference\'s email form', async (t) => {
    const generic = await ts.request('POST', '/bots', { params: { full_name: 'Generic Bot', short_name: 'generic' } });
    t.equal(generic.status, 200, 'generic bot created');
    t.match(generic.body, { default_sending_stream: null, default_events_register_stream: null, default_all_public_streams: false }, 'no default channels');
    const user = await ts.request('GET', `/users/${generic.body.user_id}`);
    t.equal(user.body.user.email, `generic-bot@${host}`, 'email is <short_name>-bot@<host>');
    t.match(user.body.user, { is_bot: true, bot_type: 1, bot_owner_id: ts.owner.userId, role: ROLE.member }, 'a member bot owned by its creator');

    const incoming = await ts.request('POST', '/bots', { params: { full_name: 'Hook Bot', short_name: 'hook', bot_type: 2, service_name: 'github' } });
    t.equal(incoming.status, 200, 'incoming webhook bot created');
    const outgoing = await ts.request('POST', '/bots', { params: { full_name: 'Out Bot', short_name: 'out', bot_type: 3, payload_url: JSON.stringify('http://127.0.0.1:9/hook'), interface_type: 2 } });
    t.equal(outgoing.status, 200, 'outgoing webhook bot created');
    const embedded = await ts.request('POST', '/bots', { params: { full_name: 'Embedded Bot', short_name: 'emb', bot_type: 4, service_name: 'helloworld' } });
    t.equal(embedded.status, 200, 'embedded bot created');

    const reg = await ts.request('POST', '/register', { params: { fetch_event_types: ['realm_bot'] } });
    const bots = reg.body.realm_bots as any[];
    const out = bots.find((b) => b.user_id === outgoing.body.user_id);
    t.match(out, { email: `out-bot@${host}`, bot_type: 3, owner_id: ts.owner.userId, is_active: true, api_key: outgoing.body.api_key }, 'realm_bots lists the outgoing bot');
    t.same(out.services.map((s: any) => [s.base_url, s.interface]), [['http://127.0.0.1:9/hook', 2]], 'with its service');
    t.match(out.services[0].token, /^[A-Za-z0-9]{32}$/, 'and a token');
    const emb = bots.find((b) => b.user_id === embedded.body.user_id);
    t.same(emb.services, [{ config_data: {}, service_name: 'helloworld' }], 'embedded bot service');
    t.same(bots.find((b) => b.user_id === incoming.body.user_id).services, [], 'incoming webhook bots have no service');

    const subs = await ts.request('GET', '/users/me/subscriptions', { auth: { email: `generic-bot@${host}`, apiKey: generic.body.api_key } });
    t.same(subs.body.subscriptions, [], 'bots join no default channels');
  });

  t.test('default channels are resolved by name, and must be accessible', async (t) => {
    const res = await ts.request('POST', '/bots', { params: { full_name: 'Chan Bot', short_name: 'chan', default_sending_stream: 'general', default_events_register_stream: 'general', default_all_public_streams: true } });
    t.match(res.body, { default_sending_stream: 'general', default_events_register_stream: 'general', default_all_public_streams: true }, 'echoed');
    const bad = await ts.request('POST', '/bots', { params: { full_name: 'Nowhere Bot', short_name: 'nowhere', default_sending_stream: 'no such channel' } });
    t.same(bad.body, { result: 'error', msg: "Invalid channel name 'no such channel'", code: 'BAD_REQUEST' }, 'unknown channel');
  });

  t.test('errors, in the reference\'s words', async (t) => {
    const cases: [Record<string, unknown>, string][] = [
      [{ full_name: 'X Bot', short_name: '   ' }, 'Bad name or username'],
      [{ full_name: 'X Bot', short_name: 'has space' }, 'Bad name or username'],
      [{ full_name: '', short_name: 'x' }, 'Name too short!'],
      [{ full_name: 'Generic Bot', short_name: 'other' }, 'Name is already in use.'],
      [{ full_name: 'Another', short_name: 'generic' }, 'Username already in use'],
      [{ full_name: 'Typed', short_name: 'typed', bot_type: 9 }, 'Invalid bot type'],
      [{ full_name: 'Iface', short_name: 'iface', bot_type: 3, interface_type: 7 }, 'Invalid interface type'],
      [{ full_name: 'Url', short_name: 'url', bot_type: 3, payload_url: JSON.stringify('not a url') }, 'payload_url is not a URL'],
      [{ full_name: 'Int', short_name: 'int', bot_type: 2, service_name: 'nosuch' }, "Invalid integration 'nosuch'."],
      [{ full_name: 'Emb', short_name: 'emb2', bot_type: 4, service_name: 'nosuch' }, 'Invalid embedded bot name.'],
    ];
    for (const [params, msg] of cases) {
      const res = await ts.request('POST', '/bots', { params });
      t.same(res.body, { result: 'error', msg, code: 'BAD_REQUEST' }, `${JSON.stringify(params)}: ${msg}`);
    }
    const missing = await ts.request('POST', '/bots', { params: { full_name: 'No Short' } });
    t.same(missing.body, { result: 'error', msg: "Missing 'short_name' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'short_name' }, 'short_name is required');
  });

  t.test('guests and bots may not create bots', async (t) => {
    const asGuest = await ts.as(guest)('POST', '/bots', { params: { full_name: 'Guest Bot', short_name: 'gb' } });
    t.same(asGuest.body, { result: 'error', msg: 'Not allowed for guest users', code: 'BAD_REQUEST' }, 'guest refused');
    const created = await ts.as(member)('POST', '/bots', { params: { full_name: 'Member Bot', short_name: 'mb' } });
    t.equal(created.status, 200, 'a member may');
    const asBot = await ts.request('POST', '/bots', { auth: { email: `mb-bot@${host}`, apiKey: created.body.api_key }, params: { full_name: 'Bot Bot', short_name: 'bb' } });
    t.same(asBot.body, { result: 'error', msg: 'This endpoint does not accept bot requests.', code: 'BAD_REQUEST' }, 'a bot refused');
    const list = await ts.as(guest)('GET', '/bots');
    t.same(list.body.msg, 'Not allowed for guest users', 'GET /bots refused to guests too');
  });
});

t.test('POST /bots: can_create_bots_group and can_create_write_only_bots_group', async (t) => {
  const ts = await startTestServer(t);
  const member = await createUser(ts, 'member@example.com', 'Member');
  const admin = await createUser(ts, 'admin@example.com', 'Admin');
  const reg = await ts.request('POST', '/register', { params: { fetch_event_types: ['realm_user_groups'] } });
  const groups = reg.body.realm_user_groups as { id: number; name: string }[];
  const gid = (name: string) => groups.find((g) => g.name === name)!.id;
  // Nobody may create bots in general; members may still create incoming webhook bots.
  await restart(t, ts, async (config) => {
    await setRoles({ [admin.email]: ROLE.administrator })(config);
    await setRealmSetting('can_create_bots_group', gid('role:administrators'))(config);
  });
  const generic = await ts.as(member)('POST', '/bots', { params: { full_name: 'G', short_name: 'g' } });
  t.same(generic.body, INSUFFICIENT, 'a member may not create a generic bot');
  const outgoing = await ts.as(member)('POST', '/bots', { params: { full_name: 'O', short_name: 'o', bot_type: 3 } });
  t.same(outgoing.body, INSUFFICIENT, 'nor an outgoing webhook bot');
  const incoming = await ts.as(member)('POST', '/bots', { params: { full_name: 'I', short_name: 'i', bot_type: 2 } });
  t.equal(incoming.status, 200, 'but an incoming webhook bot, with can_create_write_only_bots_group');
  const byAdmin = await ts.as(admin)('POST', '/bots', { params: { full_name: 'A', short_name: 'a' } });
  t.equal(byAdmin.status, 200, 'an administrator is in can_create_bots_group');
  const embedded = await ts.as(admin)('POST', '/bots', { params: { full_name: 'E', short_name: 'e', bot_type: 4, service_name: 'helloworld' } });
  t.same(embedded.body.msg, 'Embedded bots are not enabled.', 'embedded bots are off by default');
  await ts.request('PATCH', '/realm', { params: { can_create_write_only_bots_group: JSON.stringify({ new: gid('role:administrators') }) } });
  const refused = await ts.as(member)('POST', '/bots', { params: { full_name: 'I2', short_name: 'i2', bot_type: 2 } });
  t.same(refused.body, INSUFFICIENT, 'without either group, not even an incoming webhook bot');
});
