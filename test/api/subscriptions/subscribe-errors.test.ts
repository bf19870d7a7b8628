import t, { type Test } from 'tap';
import { startWorld, type World } from '../streams/world.js';

type Expect = { msg: string; code?: string; var_name?: string };

async function rejects(t: Test, w: World, who: keyof World['root'], params: Record<string, unknown>, expect: Expect, what: string) {
  const before = await w.as(w.root.owner)('GET', '/streams', { params: { include_all: true } });
  const res = await w.as(w.root[who])('POST', '/users/me/subscriptions', { params });
  t.equal(res.status, 400, `${what}: status 400`);
  t.equal(res.body.result, 'error', `${what}: error envelope`);
  t.equal(res.body.msg, expect.msg, `${what}: message`);
  t.equal(res.body.code, expect.code ?? 'BAD_REQUEST', `${what}: code`);
  if (expect.var_name) t.equal(res.body.var_name, expect.var_name, `${what}: var_name`);
  const after = await w.as(w.root.owner)('GET', '/streams', { params: { include_all: true } });
  t.same(after.body.streams.map((s: { name: string }) => s.name), before.body.streams.map((s: { name: string }) => s.name), `${what}: no channel was created`);
}

const sub = (name: string, extra: Record<string, unknown> = {}) => ({ subscriptions: [{ name }], ...extra });

t.test('POST /users/me/subscriptions: errors', async (t) => {
  const w = await startWorld(t);

  t.test('POST /users/me/subscriptions: rejects bad channel names', async (t) => {
    await rejects(t, w, 'hamlet', sub('   '), { msg: "Channel name can't be empty." }, 'blank name');
    await rejects(t, w, 'hamlet', sub('x'.repeat(61)), { msg: 'Channel name too long (limit: 60 characters).' }, '61 characters');
    await rejects(t, w, 'hamlet', sub('bad\u0007bell'), { msg: 'Invalid character in channel name, at position 4.' }, 'a control character');
    await rejects(t, w, 'hamlet', sub('non\uFFFEchar'), { msg: 'Invalid character in channel name, at position 4.' }, 'a non-character');
    const emoji = await w.as(w.root.hamlet)('POST', '/users/me/subscriptions', { params: sub('🎭'.repeat(60)) });
    t.equal(emoji.status, 200, '60 emoji are 60 characters, not 120');
  });

  t.test('POST /users/me/subscriptions: rejects a description over 1024 characters', async (t) => {
    await rejects(t, w, 'hamlet', { subscriptions: [{ name: 'long', description: 'd'.repeat(1025) }] },
      { msg: 'subscriptions[0][description] is too long (limit: 1024 characters)', code: 'REQUEST_VARIABLE_INVALID', var_name: 'subscriptions' }, 'long description');
  });

  t.test('POST /users/me/subscriptions: rejects malformed parameters', async (t) => {
    await rejects(t, w, 'hamlet', {}, { msg: "Missing 'subscriptions' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'subscriptions' }, 'no subscriptions');
    await rejects(t, w, 'hamlet', { subscriptions: 'not json' }, { msg: 'Argument "subscriptions" is not valid JSON.', code: 'INVALID_JSON' }, 'not JSON');
    await rejects(t, w, 'hamlet', { subscriptions: { name: 'x' } }, { msg: 'subscriptions is not a list', code: 'REQUEST_VARIABLE_INVALID', var_name: 'subscriptions' }, 'not a list');
    await rejects(t, w, 'hamlet', { subscriptions: [{ description: 'x' }] }, { msg: "Missing 'name' argument", code: 'REQUEST_VARIABLE_MISSING' }, 'an item without name');
    await rejects(t, w, 'hamlet', sub('x', { invite_only: 'perhaps' }), { msg: 'invite_only is not a boolean', code: 'REQUEST_VARIABLE_INVALID', var_name: 'invite_only' }, 'bad boolean');
    await rejects(t, w, 'hamlet', { subscriptions: [{ name: 'x', color: 'red' }] }, { msg: 'subscriptions[0][color] is not a hex color code' }, 'bad color');
  });

  t.test('POST /users/me/subscriptions: guests may not use it', async (t) => {
    await rejects(t, w, 'polonius', sub('general'), { msg: 'Not allowed for guest users' }, 'guest joining');
    await rejects(t, w, 'polonius', sub('guesthouse'), { msg: 'Not allowed for guest users' }, 'guest creating');
  });

  t.test('POST /users/me/subscriptions: only administrators make default channels, never private ones', async (t) => {
    await rejects(t, w, 'hamlet', sub('lobby', { is_default_stream: true }), { msg: 'Insufficient permission' }, 'member making a default channel');
    await rejects(t, w, 'admin', sub('lobby', { is_default_stream: true, invite_only: true }), { msg: 'A default channel cannot be private.' }, 'private default channel');
  });

  t.test('POST /users/me/subscriptions: web-public channels need spectator access and permission', async (t) => {
    await rejects(t, w, 'owner', sub('web', { is_web_public: true }), { msg: 'Web-public channels are not enabled.' }, 'spectator access off');
  });

  t.test('POST /users/me/subscriptions: message retention is for owners, with valid values', async (t) => {
    await rejects(t, w, 'admin', sub('kept', { message_retention_days: 10 }), { msg: 'Must be an organization owner', code: 'UNAUTHORIZED_PRINCIPAL' }, 'administrator setting retention');
    await rejects(t, w, 'owner', sub('kept', { message_retention_days: 0 }), { msg: "Bad value for 'message_retention_days': 0", code: 'REQUEST_VARIABLE_INVALID', var_name: 'message_retention_days' }, 'zero days');
    await rejects(t, w, 'owner', sub('kept', { message_retention_days: 'forever-ish' }), { msg: "Bad value for 'message_retention_days': forever-ish", code: 'REQUEST_VARIABLE_INVALID', var_name: 'message_retention_days' }, 'unknown word');
  });

  t.test('POST /users/me/subscriptions: group settings must name valid groups and users', async (t) => {
    const general = (await w.as(w.root.owner)('GET', '/streams')).body.streams.find((s: { name: string }) => s.name === 'general');
    const everyone = general.can_send_message_group;
    await rejects(t, w, 'hamlet', sub('g', { can_send_message_group: 99999 }), { msg: 'Invalid user group' }, 'unknown group');
    await rejects(t, w, 'hamlet', sub('g', { can_add_subscribers_group: everyone }), { msg: "'can_add_subscribers_group' setting cannot be set to 'role:everyone' group." }, 'role:everyone where not allowed');
    await rejects(t, w, 'hamlet', sub('g', { can_subscribe_group: { direct_members: [99999], direct_subgroups: [] } }), { msg: 'Invalid user ID: 99999' }, 'unknown user');
    await rejects(t, w, 'hamlet', sub('g', { can_subscribe_group: { direct_members: [w.other.hamlet.userId], direct_subgroups: [] } }), { msg: `Invalid user ID: ${w.other.hamlet.userId}` }, 'a user of another realm');
    await rejects(t, w, 'hamlet', sub('g', { can_subscribe_group: { direct_members: [w.root.othello.userId], direct_subgroups: [99999] } }), { msg: 'Invalid user group ID: 99999' }, 'unknown subgroup');
    await rejects(t, w, 'hamlet', sub('g', { can_subscribe_group: { members: [1] } }), { msg: 'can_subscribe_group is not a valid group setting value', code: 'REQUEST_VARIABLE_INVALID', var_name: 'can_subscribe_group' }, 'malformed value');
  });

  t.test('POST /users/me/subscriptions: rejects principals that are not users of this realm', async (t) => {
    await rejects(t, w, 'hamlet', sub('p', { principals: [99999] }), { msg: 'No such user' }, 'unknown id');
    await rejects(t, w, 'hamlet', sub('p', { principals: ['nobody@example.com'] }), { msg: 'No such user' }, 'unknown email');
    await rejects(t, w, 'hamlet', sub('p', { principals: [w.other.othello.userId] }), { msg: 'No such user' }, 'a user id of another realm');
    await rejects(t, w, 'hamlet', sub('p', { principals: [w.other.othello.email] }), { msg: 'No such user' }, 'an email of another realm');
    await rejects(t, w, 'hamlet', sub('p', { principals: [w.root.othello.userId, w.root.othello.email] }),
      { msg: 'principals is not a list of user IDs or a list of emails', code: 'REQUEST_VARIABLE_INVALID', var_name: 'principals' }, 'mixed ids and emails');
  });
});

t.test('POST /users/me/subscriptions: creation follows the realm permission settings', async (t) => {
  const w = await startWorld(t, {
    groupSettings: { can_create_public_channel_group: 'role:administrators', can_create_private_channel_group: 'role:moderators' },
  });

  t.test('POST /users/me/subscriptions: a member may not create a channel when only administrators may', async (t) => {
    await rejects(t, w, 'hamlet', sub('agora'), { msg: 'Insufficient permission' }, 'member creating a public channel');
    await rejects(t, w, 'hamlet', sub('cabal', { invite_only: true }), { msg: 'Insufficient permission' }, 'member creating a private channel');
    const admin = await w.as(w.root.admin)('POST', '/users/me/subscriptions', { params: sub('agora') });
    t.equal(admin.status, 200, 'an administrator may');
    const join = await w.as(w.root.hamlet)('POST', '/users/me/subscriptions', { params: sub('agora') });
    t.equal(join.status, 200, 'the member may still join the existing channel');
  });
});

t.test('POST /users/me/subscriptions: web-public channels, with spectator access on', async (t) => {
  const w = await startWorld(t, { settings: { enable_spectator_access: true } });

  t.test('POST /users/me/subscriptions: only owners create web-public channels by default', async (t) => {
    await rejects(t, w, 'admin', sub('web', { is_web_public: true }), { msg: 'Insufficient permission' }, 'an administrator');
    await rejects(t, w, 'owner', sub('web', { is_web_public: true, invite_only: true }), { msg: 'Invalid parameters' }, 'web-public and private');
    const res = await w.as(w.root.owner)('POST', '/users/me/subscriptions', { params: sub('web', { is_web_public: true }) });
    t.equal(res.status, 200, 'the owner may');
  });
});
