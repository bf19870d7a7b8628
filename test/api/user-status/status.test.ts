import t from 'tap';
import { restart } from '../users/restart.js';
import { startWorld } from '../streams/world.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });

t.test('POST /users/me/status and GET /users/{user_id}/status', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello, polonius, bot, admin } = w.root;
  const status = async (id: number, as = othello) => (await w.as(as)('GET', `/users/${id}/status`)).body;

  t.test('a user who never set one has none', async (t) => {
    t.same(await status(hamlet.userId), { result: 'success', msg: '', status: {} }, 'an empty status');
  });

  t.test('text and emoji by name: the code and type are looked up', async (t) => {
    const res = await w.as(hamlet)('POST', '/users/me/status', { params: { status_text: '  on vacation  ', emoji_name: 'car' } });
    t.same(res.body, { result: 'success', msg: '' }, 'accepted');
    t.same((await status(hamlet.userId)).status, { status_text: 'on vacation', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' }, 'stripped text, the emoji with its code');
    t.same((await status(hamlet.userId, polonius)).status.status_text, 'on vacation', 'a guest who can access everyone sees it');
  });

  t.test('a request changes only what it names', async (t) => {
    await w.as(hamlet)('POST', '/users/me/status', { params: { status_text: 'in a meeting' } });
    t.same((await status(hamlet.userId)).status, { status_text: 'in a meeting', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' }, 'the emoji stays');
    await w.as(hamlet)('POST', '/users/me/status', { params: { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' } });
    t.same((await status(hamlet.userId)).status, { status_text: 'in a meeting', emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' }, 'the text stays');
    await w.as(hamlet)('POST', '/users/me/status', { params: { emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji' } });
    t.equal((await status(hamlet.userId)).status.emoji_code, '1f44d', "a name from Zulip's own table with its code is accepted, as reactions accept it");
  });

  t.test('empty values clear', async (t) => {
    await w.as(hamlet)('POST', '/users/me/status', { params: { emoji_name: '', emoji_code: '1f44d' } });
    t.same((await status(hamlet.userId)).status, { status_text: 'in a meeting' }, 'an empty emoji name clears the emoji, whatever code came with it');
    await w.as(hamlet)('POST', '/users/me/status', { params: { status_text: '' } });
    t.same((await status(hamlet.userId)).status, {}, 'an empty text clears the text');
    const reg = await w.as(othello)('POST', '/register', { params: { fetch_event_types: ['user_status'] } });
    t.notOk(String(hamlet.userId) in reg.body.user_status, 'a cleared status is not listed in /register');
  });

  t.test('errors', async (t) => {
    const post = (params: Record<string, unknown>) => w.as(othello)('POST', '/users/me/status', { params });
    t.same((await post({})).body, bad('Client did not pass any new values.'), 'nothing to change');
    t.same((await post({ emoji_code: '1f697' })).body, bad('Client did not pass any new values.'), 'a code alone is nothing to change');
    t.same((await post({ status_text: 'x', emoji_code: '1f697' })).body, bad('Client must pass emoji_name if they pass either emoji_code or reaction_type.'), 'a code without a name');
    t.same((await post({ status_text: 'x', reaction_type: 'unicode_emoji' })).body, bad('Client must pass emoji_name if they pass either emoji_code or reaction_type.'), 'a type without a name');
    const long = await post({ status_text: 'x'.repeat(61) });
    t.same(long.body, bad('status_text is too long (limit: 60 characters)'), 'over 60 characters: BAD_REQUEST, as the reference documents it');
    t.equal(long.status, 400, 'status 400');
    t.equal((await post({ status_text: ` ${'é'.repeat(60)} ` })).status, 200, '60 characters after stripping, counted as characters, are fine');
    t.same((await post({ emoji_name: 'no_such_emoji_xyz' })).body, bad("Emoji 'no_such_emoji_xyz' does not exist"), 'an unknown emoji name');
    t.same((await post({ emoji_name: 'car', emoji_code: 'ffffff', reaction_type: 'unicode_emoji' })).body, bad('Invalid emoji code.'), 'an unknown code');
    t.same((await post({ emoji_name: 'Not A Name', emoji_code: '1f697', reaction_type: 'unicode_emoji' })).body, bad('Invalid emoji name.'), 'a name that cannot be one');
    t.same((await post({ emoji_name: 'party', emoji_code: '1', reaction_type: 'realm_emoji' })).body, bad('Invalid custom emoji.'), 'an unknown custom emoji');
    t.same((await post({ emoji_name: 'car', emoji_code: '1f697', reaction_type: 'sticker' })).body, bad('Invalid emoji type.'), 'an unknown type');
    t.same((await post({ emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji', away: 'maybe' })).body.code, 'REQUEST_VARIABLE_INVALID', 'away must be a boolean');
    t.same((await status(othello.userId)).status, { status_text: 'é'.repeat(60) }, 'refused requests changed nothing');
  });

  t.test('bots have no status of their own, and none can be read', async (t) => {
    const res = await w.as(bot)('POST', '/users/me/status', { params: { status_text: 'beep' } });
    t.same(res.body, bad('This endpoint does not accept bot requests.'), 'a bot is refused');
    t.same((await w.as(hamlet)('GET', `/users/${bot.userId}/status`)).body, bad('No such user'), "a bot's status is no user's");
    t.same((await w.as(hamlet)('GET', '/users/99999/status')).body, bad('No such user'), 'an unknown id');
    t.same((await w.as(admin)('GET', `/users/${w.other.hamlet.userId}/status`)).body, bad('No such user'), "another realm's user is unknown here");
  });

  t.test('away is the presence_enabled setting, seen from the other side', async (t) => {
    await w.as(othello)('POST', '/users/me/status', { params: { away: true } });
    t.same((await status(othello.userId, hamlet)).status, { away: true, status_text: 'é'.repeat(60) }, 'away shows for the user');
    const reg = await w.as(othello)('POST', '/register', { params: { fetch_event_types: ['user_settings', 'user_status'] } });
    t.equal(reg.body.user_settings.presence_enabled, false, 'presence_enabled is off');
    t.same(reg.body.user_status[String(othello.userId)], { away: true, status_text: 'é'.repeat(60) }, 'in /register too');
    await w.as(othello)('PATCH', '/settings', { params: { presence_enabled: true } });
    t.same((await status(othello.userId)).status, { status_text: 'é'.repeat(60) }, 'switching presence back on clears away');
  });
});

t.test('POST /users/{user_id}/status: administrators only', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello, polonius, bot, admin, owner } = w.root;
  const post = (as: typeof hamlet, id: number, params: Record<string, unknown>) => w.as(as)('POST', `/users/${id}/status`, { params });

  t.test('members, guests and bots are refused', async (t) => {
    for (const [name, who] of [['member', othello], ['guest', polonius], ['bot', bot]] as const) {
      t.same((await post(who, hamlet.userId, { status_text: 'hacked' })).body, bad('Insufficient permission'), `${name}: refused`);
    }
    t.same((await w.as(hamlet)('GET', `/users/${hamlet.userId}/status`)).body.status, {}, 'nothing changed');
  });

  t.test('an administrator sets and clears another user\'s status', async (t) => {
    const res = await post(admin, hamlet.userId, { status_text: 'out sick', emoji_name: 'car', away: true });
    t.equal(res.status, 200, 'accepted');
    t.same(res.body.ignored_parameters_unsupported, ['away'], 'away is the user\'s own setting and is ignored');
    t.same((await w.as(othello)('GET', `/users/${hamlet.userId}/status`)).body.status, { status_text: 'out sick', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' }, 'set');
    t.equal((await post(owner, hamlet.userId, { status_text: '' })).status, 200, 'the owner clears the text');
    t.same((await w.as(othello)('GET', `/users/${hamlet.userId}/status`)).body.status, { emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' }, 'cleared');
  });

  t.test('errors', async (t) => {
    t.same((await post(admin, hamlet.userId, {})).body, bad('Client did not pass any new values.'), 'nothing to change');
    t.same((await post(admin, hamlet.userId, { emoji_name: 'nope_not_here' })).body, bad("Emoji 'nope_not_here' does not exist"), 'an unknown emoji');
    t.same((await post(admin, hamlet.userId, { status_text: 'x', reaction_type: 'unicode_emoji' })).body, bad('Client must pass emoji_name if they pass either emoji_code or reaction_type.'), 'a type without a name');
    t.same((await post(admin, hamlet.userId, { emoji_name: 'Bad Name', emoji_code: '1f697', reaction_type: 'unicode_emoji' })).body, bad('Invalid emoji name.'), 'an invalid name');
    t.same((await post(admin, hamlet.userId, { emoji_name: 'party', emoji_code: '7', reaction_type: 'realm_emoji' })).body, bad('Invalid custom emoji.'), 'an unknown custom emoji');
    t.same((await post(admin, bot.userId, { status_text: 'x' })).body, bad('No such user'), 'bots have no status');
    t.same((await post(admin, 99999, { status_text: 'x' })).body, bad('No such user'), 'an unknown user');
    t.equal((await post(admin, hamlet.userId, { status_text: 'y'.repeat(61) })).body.msg, 'status_text is too long (limit: 60 characters)', 'too long');
  });

  t.test('statuses survive a restart, and a deactivated user\'s is not shown', async (t) => {
    await post(admin, othello.userId, { status_text: 'kept', emoji_name: 'zulip' });
    await restart(t, w.ts, async () => undefined);
    t.same((await w.as(hamlet)('GET', `/users/${othello.userId}/status`)).body.status, { status_text: 'kept', emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' }, 'kept across the restart');
    const reg = await w.as(hamlet)('POST', '/register', { params: { fetch_event_types: ['user_status'] } });
    t.same(reg.body.user_status[String(othello.userId)], { status_text: 'kept', emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' }, 'and in /register');
    t.equal((await w.as(admin)('DELETE', `/users/${othello.userId}`)).status, 200, 'othello deactivated');
    t.same((await w.as(hamlet)('GET', `/users/${othello.userId}/status`)).body, bad('User is deactivated'), 'GET refuses a deactivated user');
    const after = await w.as(hamlet)('POST', '/register', { params: { fetch_event_types: ['user_status'] } });
    t.notOk(String(othello.userId) in after.body.user_status, '/register lists active users only');
  });
});

t.test('restricted guests see only the statuses of users they can access', async (t) => {
  const w = await startWorld(t, { groupSettings: { can_access_all_users_group: 'role:members' } });
  const { hamlet, othello, polonius, admin } = w.root;
  // polonius shares "general" with everyone; a private channel gives hamlet someone he does not share.
  await w.as(admin)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'secret' }], principals: [admin.userId], invite_only: true } });
  await w.as(admin)('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['general'] } });
  await w.as(admin)('POST', '/users/me/status', { params: { status_text: 'hidden' } });
  await w.as(othello)('POST', '/users/me/status', { params: { status_text: 'visible' } });
  const reg = await w.as(polonius)('POST', '/register', { params: { queue_lifespan_secs: 60 } });
  t.same(reg.body.user_status, { [String(othello.userId)]: { status_text: 'visible' } }, "the guest's /register has the accessible user's status only");
  t.same((await w.as(polonius)('GET', `/users/${admin.userId}/status`)).body, bad('Insufficient permission'), 'GET refuses an inaccessible user');
  await w.as(admin)('POST', '/users/me/status', { params: { status_text: 'still hidden' } });
  await w.as(hamlet)('POST', '/users/me/status', { params: { status_text: 'seen' } });
  const events = await w.as(polonius)('GET', '/events', { params: { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true } });
  const about = events.body.events.filter((e: { type: string }) => e.type === 'user_status').map((e: { user_id: number }) => e.user_id);
  t.same(about, [hamlet.userId], 'only the accessible user\'s change reaches the guest');
});
