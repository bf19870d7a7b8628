import t from 'tap';
import { ROLE } from '../../../src/model/types.js';
import { createUser, startTestServer } from '../../helpers/server.js';
import { addRealm, restart, setRoles } from '../users/restart.js';

const ADMIN_ONLY = { result: 'error', msg: 'Must be an organization administrator', code: 'UNAUTHORIZED_PRINCIPAL' };

t.test('linkifiers: who may do what', async (t) => {
  const ts = await startTestServer(t);
  const member = await createUser(ts, 'member@example.com', 'Member');
  const moderator = await createUser(ts, 'moderator@example.com', 'Moderator');
  const guest = await createUser(ts, 'guest@example.com', 'Guest');
  const admin = await createUser(ts, 'admin@example.com', 'Admin');
  // One restart (the helper supports one per server): roles the API cannot set yet, and a second realm.
  const other = await restart(t, ts, async (config) => {
    await setRoles({ [moderator.email]: ROLE.moderator, [guest.email]: ROLE.guest, [admin.email]: ROLE.administrator })(config);
    return addRealm('other', 'boss@other.example')(config);
  });
  const created = await ts.request('POST', '/realm/filters', { params: { pattern: '#(?P<id>[0-9]+)', url_template: 'https://example.com/{id}' } });
  const id = created.body.id as number;
  const list = async () => (await ts.request('GET', '/realm/linkifiers')).body.linkifiers;

  t.test('members, moderators and guests are refused every write', async (t) => {
    const before = await list();
    for (const [name, creds] of [['member', member], ['moderator', moderator], ['guest', guest]] as const) {
      const as = ts.as(creds);
      const add = await as('POST', '/realm/filters', { params: { pattern: 'M-(?P<id>[0-9]+)', url_template: 'https://m.example.com/{id}' } });
      t.same(add.body, ADMIN_ONLY, `${name}: POST /realm/filters refused`);
      t.equal(add.status, 400, `${name}: status 400`);
      const update = await as('PATCH', `/realm/filters/${id}`, { params: { pattern: 'M-(?P<id>[0-9]+)', url_template: 'https://m.example.com/{id}' } });
      t.same(update.body, ADMIN_ONLY, `${name}: PATCH /realm/filters/{filter_id} refused`);
      const remove = await as('DELETE', `/realm/filters/${id}`);
      t.same(remove.body, ADMIN_ONLY, `${name}: DELETE /realm/filters/{filter_id} refused`);
      const reorder = await as('PATCH', '/realm/linkifiers', { params: { ordered_linkifier_ids: [id] } });
      t.same(reorder.body, ADMIN_ONLY, `${name}: PATCH /realm/linkifiers refused`);
      const bad = await as('POST', '/realm/filters', { params: {} });
      t.same(bad.body, ADMIN_ONLY, `${name}: the role is checked before the parameters`);
    }
    t.same(await list(), before, 'nothing changed');
  });

  t.test('members and guests may list the linkifiers', async (t) => {
    for (const [name, creds] of [['member', member], ['guest', guest]] as const) {
      const res = await ts.as(creds)('GET', '/realm/linkifiers');
      t.equal(res.status, 200, `${name}: status 200`);
      t.same(res.body.linkifiers, [{ id, pattern: '#(?P<id>[0-9]+)', url_template: 'https://example.com/{id}' }], `${name}: the realm's linkifiers`);
    }
  });

  t.test('an administrator who is not an owner may add, edit, reorder and remove', async (t) => {
    const as = ts.as(admin);
    const add = await as('POST', '/realm/filters', { params: { pattern: 'A-(?P<id>[0-9]+)', url_template: 'https://a.example.com/{id}' } });
    t.equal(add.status, 200, 'added');
    const update = await as('PATCH', `/realm/filters/${add.body.id}`, { params: { pattern: 'B-(?P<id>[0-9]+)', url_template: 'https://b.example.com/{id}' } });
    t.equal(update.status, 200, 'edited');
    const reorder = await as('PATCH', '/realm/linkifiers', { params: { ordered_linkifier_ids: [add.body.id, id] } });
    t.equal(reorder.status, 200, 'reordered');
    t.same((await list()).map((l: { id: number }) => l.id), [add.body.id, id], 'in the new order');
    const remove = await as('DELETE', `/realm/filters/${add.body.id}`);
    t.equal(remove.status, 200, 'removed');
  });

  t.test('unauthenticated writes are refused', async (t) => {
    const res = await ts.request('POST', '/realm/filters', { auth: null, params: { pattern: 'U-(?P<id>[0-9]+)', url_template: 'https://u.example.com/{id}' } });
    t.equal(res.status, 401, 'status 401');
  });

  t.test('realms do not see or touch each other\'s linkifiers', async (t) => {
    const host = `other.${ts.server.config.externalHost}`;
    const boss = ts.as({ email: other.owner.email, apiKey: other.owner.apiKey });
    const theirs = await boss('GET', '/realm/linkifiers', { host });
    t.same(theirs.body.linkifiers, [], 'the other realm starts with none');
    const remove = await boss('DELETE', `/realm/filters/${id}`, { host });
    t.equal(remove.body.msg, 'Linkifier not found.', 'the root realm\'s linkifier is not found from the other realm');
    const update = await boss('PATCH', `/realm/filters/${id}`, { host, params: { pattern: 'X-(?P<id>[0-9]+)', url_template: 'https://x.example.com/{id}' } });
    t.equal(update.body.msg, 'Linkifier not found.', 'nor edited');
    const reorder = await boss('PATCH', '/realm/linkifiers', { host, params: { ordered_linkifier_ids: [id] } });
    t.equal(reorder.body.msg, 'The ordered list must enumerate all existing linkifiers exactly once', 'nor reordered');
    const same = await boss('POST', '/realm/filters', { host, params: { pattern: '#(?P<id>[0-9]+)', url_template: 'https://other.example/{id}' } });
    t.equal(same.status, 200, 'the same pattern is free in another realm');
    t.same(await list(), [{ id, pattern: '#(?P<id>[0-9]+)', url_template: 'https://example.com/{id}' }], 'the root realm\'s list is untouched');
    const foreign = await ts.as(member)('GET', '/realm/linkifiers', { host });
    t.equal(foreign.status, 401, 'root realm credentials do not list the other realm\'s linkifiers');
  });
});
