import t from 'tap';
import { restart } from '../users/restart.js';
import { startWorld, type Person } from '../streams/world.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });

t.test("users' custom profile field values", async (t) => {
  const w = await startWorld(t);
  const { admin, owner, hamlet, othello, polonius, bot } = w.root;
  const ids: Record<string, number> = {};
  for (const [key, params] of [
    ['short', { name: 'Phone', field_type: 1 }],
    ['long', { name: 'Bio', field_type: 2 }],
    ['select', { name: 'Editor', field_type: 3, field_data: { vim: { text: 'Vim', order: '1' }, emacs: { text: 'Emacs', order: '2' } } }],
    ['date', { name: 'Birthday', field_type: 4 }],
    ['link', { name: 'Website', field_type: 5 }],
    ['users', { name: 'Mentor', field_type: 6 }],
    ['account', { field_type: 7, field_data: { subtype: 'github' } }],
    ['pronouns', { name: 'Pronouns', field_type: 8 }],
    ['locked', { name: 'Employee id', field_type: 1, editable_by_user: false }],
  ] as const) {
    ids[key] = (await w.as(admin)('POST', '/realm/profile_fields', { params })).body.id;
  }
  const setOwn = (who: Person, data: unknown) => w.as(who)('PATCH', '/users/me/profile_data', { params: { data } });
  const profile = async (who: Person, viewer: Person = othello) => (await w.as(viewer)('GET', `/users/${who.userId}`, { params: { include_custom_profile_fields: true } })).body.user.profile_data;

  t.test('a user sets every type of value', async (t) => {
    const res = await setOwn(hamlet, [
      { id: ids.short, value: '+1 555 0100' },
      { id: ids.long, value: 'I like **bold** ideas' },
      { id: ids.select, value: 'vim' },
      { id: ids.date, value: '1990-02-28' },
      { id: ids.link, value: 'https://example.com/hamlet' },
      { id: ids.users, value: [othello.userId, admin.userId] },
      { id: ids.account, value: 'hamlet-gh' },
      { id: ids.pronouns, value: 'he/him' },
    ]);
    t.same(res.body, { result: 'success', msg: '' }, 'accepted');
    t.same(await profile(hamlet), {
      [ids.short]: { value: '+1 555 0100', rendered_value: '<p>+1 555 0100</p>' },
      [ids.long]: { value: 'I like **bold** ideas', rendered_value: '<p>I like <strong>bold</strong> ideas</p>' },
      [ids.select]: { value: 'vim' },
      [ids.date]: { value: '1990-02-28' },
      [ids.link]: { value: 'https://example.com/hamlet' },
      [ids.users]: { value: JSON.stringify([othello.userId, admin.userId]) },
      [ids.account]: { value: 'hamlet-gh' },
      [ids.pronouns]: { value: 'he/him' },
    }, 'stored, the text types rendered as Markdown, a user list as JSON text');
    const me = await w.as(hamlet)('GET', '/users/me');
    t.same(me.body.profile_data[ids.select], { value: 'vim' }, 'GET /users/me has them');
    const list = await w.as(polonius)('GET', '/users', { params: { include_custom_profile_fields: true } });
    t.same(list.body.members.find((u: { user_id: number }) => u.user_id === hamlet.userId).profile_data[ids.date], { value: '1990-02-28' }, 'GET /users has them when asked');
    const plain = await w.as(polonius)('GET', '/users');
    t.notOk('profile_data' in plain.body.members.find((u: { user_id: number }) => u.user_id === hamlet.userId), 'and not otherwise');
    const reg = await w.as(othello)('POST', '/register', { params: { fetch_event_types: ['realm_user'] } });
    t.same(reg.body.realm_users.find((u: { user_id: number }) => u.user_id === hamlet.userId).profile_data[ids.pronouns], { value: 'he/him' }, 'realm_users has them');
  });

  t.test('values are checked per type', async (t) => {
    const cases: [string, unknown, string][] = [
      ['short text too long', { id: ids.short, value: 'x'.repeat(51) }, 'Phone is too long (limit: 50 characters)'],
      ['long text too long', { id: ids.long, value: 'x'.repeat(501) }, 'Bio is too long (limit: 500 characters)'],
      ['text given a list', { id: ids.short, value: [1] }, 'Phone is not a string'],
      ['an unknown choice', { id: ids.select, value: 'nano' }, "'nano' is not a valid choice for 'Editor'."],
      ['not a date', { id: ids.date, value: '28/02/1990' }, 'Birthday is not a date'],
      ['no such day', { id: ids.date, value: '1990-02-30' }, 'Birthday is not a date'],
      ['not a URL', { id: ids.link, value: 'example dot com' }, 'Website is not a URL'],
      ['an unknown user', { id: ids.users, value: [99999] }, 'Invalid user ID: 99999'],
      ['a bot', { id: ids.users, value: [bot.userId] }, `User with ID ${bot.userId} is a bot`],
      ['users as text', { id: ids.users, value: 'othello' }, 'User IDs is not a list'],
      ["another realm's user", { id: ids.users, value: [w.other.hamlet.userId] }, `Invalid user ID: ${w.other.hamlet.userId}`],
      ['an account name too long', { id: ids.account, value: 'g'.repeat(51) }, 'GitHub username is too long (limit: 50 characters)'],
      ['an unknown field', { id: 99999, value: 'x' }, 'Field id 99999 not found.'],
      ['a field users may not edit', { id: ids.locked, value: 'E-1' }, 'You are not allowed to change this field. Contact an administrator to update it.'],
    ];
    const before = await profile(hamlet);
    for (const [what, entry, msg] of cases) t.same((await setOwn(hamlet, [{ id: ids.pronouns, value: 'they/them' }, entry])).body, bad(msg), what);
    t.same(await profile(hamlet), before, 'a request with one bad value changes nothing');
    t.equal((await setOwn(hamlet, [{ id: ids.short }])).status, 400, 'an entry needs a value');
    t.equal((await setOwn(hamlet, 'nope')).body.code, 'INVALID_JSON', 'data must be JSON');
    t.same((await setOwn(bot, [{ id: ids.short, value: '1' }])).body, bad('This endpoint does not accept bot requests.'), 'bots have no profile');
    t.equal((await setOwn(polonius, [{ id: ids.pronouns, value: 'she/her' }])).status, 200, 'a guest sets their own');
  });

  t.test('removing values', async (t) => {
    const res = await w.as(hamlet)('DELETE', '/users/me/profile_data', { params: { data: [ids.pronouns, ids.account, ids.short] } });
    t.equal(res.status, 200, 'removed');
    const data = await profile(hamlet);
    t.notOk(ids.pronouns in data || ids.account in data || ids.short in data, 'gone');
    t.equal((await w.as(hamlet)('DELETE', '/users/me/profile_data', { params: { data: [ids.short] } })).status, 200, 'removing a value not set is fine');
    t.same((await w.as(hamlet)('DELETE', '/users/me/profile_data', { params: { data: [99999] } })).body, bad('Field id 99999 not found.'), 'an unknown field');
    t.same((await w.as(hamlet)('DELETE', '/users/me/profile_data', { params: { data: [ids.locked] } })).body, bad('You are not allowed to change this field. Contact an administrator to update it.'), 'a locked field');
  });

  t.test('administrators set and clear values through PATCH /users/{user_id}', async (t) => {
    const res = await w.as(admin)('PATCH', `/users/${hamlet.userId}`, { params: { profile_data: [{ id: ids.locked, value: 'E-42' }, { id: ids.short, value: '555' }, { id: ids.long, value: '' }] } });
    t.equal(res.status, 200, 'accepted');
    const data = await profile(hamlet);
    t.same(data[ids.locked], { value: 'E-42', rendered_value: '<p>E-42</p>' }, 'a locked field, by an administrator');
    t.same(data[ids.short].value, '555', 'a value set');
    t.notOk(ids.long in data, 'an empty value removes');
    t.same((await w.as(othello)('PATCH', `/users/${hamlet.userId}`, { params: { profile_data: [{ id: ids.short, value: '1' }] } })).body, bad('Insufficient permission'), 'a member may not');
    t.same((await w.as(admin)('PATCH', `/users/${hamlet.userId}`, { params: { profile_data: [{ id: ids.date, value: 'soon' }], full_name: 'Hamlet Prince' } })).body, bad('Birthday is not a date'), 'a bad value is refused...');
    t.equal((await w.as(othello)('GET', `/users/${hamlet.userId}`)).body.user.full_name, 'hamlet', '...and the rest of the request is not applied');
    t.same((await w.as(admin)('PATCH', `/users/${hamlet.userId}`, { params: { profile_data: [{ id: 99999, value: 'x' }] } })).body, bad('Field id 99999 not found.'), 'an unknown field');
    t.equal((await w.as(owner)('PATCH', `/users/${bot.userId}`, { params: { profile_data: [{ id: ids.short, value: '1' }] } })).status, 200, 'a bot may be given values by an administrator');
    t.notOk('profile_data' in (await w.as(owner)('GET', `/users/${bot.userId}`, { params: { include_custom_profile_fields: true } })).body.user, 'but bots show none');
  });

  t.test('a choice that goes away takes its values with it; a deleted field, all of them', async (t) => {
    await setOwn(othello, [{ id: ids.select, value: 'emacs' }]);
    await w.as(admin)('PATCH', `/realm/profile_fields/${ids.select}`, { params: { field_data: { vim: { text: 'Vim', order: '1' } } } });
    t.notOk(ids.select in (await profile(othello, hamlet)), "othello's emacs is gone");
    t.same((await profile(hamlet))[ids.select], { value: 'vim' }, "hamlet's vim stays");
    await w.as(admin)('DELETE', `/realm/profile_fields/${ids.select}`);
    t.notOk(ids.select in (await profile(hamlet)), 'deleting the field removes its values');
  });

  t.test('values survive a restart', async (t) => {
    const before = await profile(hamlet);
    await restart(t, w.ts, async () => undefined);
    t.same(await profile(hamlet), before, 'the same values');
    t.same((await profile(polonius))[ids.pronouns], { value: 'she/her' }, "and the guest's");
  });
});
