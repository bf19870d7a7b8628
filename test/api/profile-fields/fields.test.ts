import t from 'tap';
import { restart } from '../users/restart.js';
import { startWorld } from '../streams/world.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
const ADMIN_ONLY = { result: 'error', msg: 'Must be an organization administrator', code: 'UNAUTHORIZED_PRINCIPAL' };

t.test('custom profile fields: /realm/profile_fields', async (t) => {
  const w = await startWorld(t);
  const { admin, owner, hamlet, polonius, bot } = w.root;
  const create = (params: Record<string, unknown>, as = admin) => w.as(as)('POST', '/realm/profile_fields', { params });
  const fields = async () => (await w.as(hamlet)('GET', '/realm/profile_fields')).body.custom_fields;
  const ids: Record<string, number> = {};

  t.test('every field type can be created', async (t) => {
    const specs: [string, Record<string, unknown>][] = [
      ['short', { name: 'Phone number', field_type: 1, hint: 'With the country code' }],
      ['long', { name: 'Biography', field_type: 2 }],
      ['select', { name: 'Favorite editor', field_type: 3, field_data: { vim: { text: 'Vim', order: '1' }, emacs: { text: 'Emacs', order: '2' } } }],
      ['date', { name: 'Birthday', field_type: 4, required: true }],
      ['link', { name: 'Website', field_type: 5, display_in_profile_summary: true }],
      ['users', { name: 'Mentor', field_type: 6, editable_by_user: false }],
      ['github', { field_type: 7, field_data: { subtype: 'github' } }],
      ['custom', { name: 'Mastodon', field_type: 7, field_data: { subtype: 'custom', url_pattern: 'https://mastodon.social/@%(username)s' } }],
      ['pronouns', { name: 'Pronouns', field_type: 8, display_in_profile_summary: true }],
    ];
    for (const [key, params] of specs) {
      const res = await create(params);
      t.equal(res.status, 200, `${key}: created`);
      ids[key] = res.body.id;
    }
    const list = await fields();
    t.same(list.map((f: { id: number }) => f.id), Object.values(ids), 'listed in creation order');
    const byId = (id: number) => list.find((f: { id: number }) => f.id === id);
    t.same(byId(ids.short), { id: ids.short, name: 'Phone number', type: 1, hint: 'With the country code', field_data: '', order: ids.short, required: false, editable_by_user: true }, 'a short text field, in the reference shape');
    t.equal(byId(ids.select).field_data, JSON.stringify({ vim: { text: 'Vim', order: '1' }, emacs: { text: 'Emacs', order: '2' } }), 'choices kept as JSON text');
    t.equal(byId(ids.date).required, true, 'required');
    t.equal(byId(ids.link).display_in_profile_summary, true, 'shown in the summary');
    t.notOk('display_in_profile_summary' in byId(ids.short), 'the summary flag only when set');
    t.equal(byId(ids.users).editable_by_user, false, 'not editable by users');
    t.same([byId(ids.github).name, byId(ids.github).hint, byId(ids.github).field_data], ['GitHub username', '', '{"subtype":"github"}'], "a known external account takes the server's label");
    t.equal(byId(ids.custom).field_data, '{"subtype":"custom","url_pattern":"https://mastodon.social/@%(username)s"}', 'a custom one keeps its URL pattern');
    t.equal(byId(ids.long).field_data, '', 'other types keep no field_data');
  });

  t.test('creation errors', async (t) => {
    const before = await fields();
    const cases: [string, Record<string, unknown>, string][] = [
      ['no label', { name: '   ', field_type: 1 }, 'Label cannot be blank.'],
      ['a long label', { name: 'x'.repeat(41), field_type: 1 }, 'name is too long (limit: 40 characters)'],
      ['a long hint', { name: 'Hinted', hint: 'h'.repeat(81), field_type: 1 }, 'hint is too long (limit: 80 characters)'],
      ['an unknown type', { name: 'Odd', field_type: 99 }, 'Invalid field type.'],
      ['a taken label', { name: 'Phone number', field_type: 2 }, 'A field with that label already exists.'],
      ['a known account twice', { field_type: 7, field_data: { subtype: 'github' } }, 'A field with that label already exists.'],
      ['no choices', { name: 'Empty', field_type: 3, field_data: {} }, 'Field must have at least one choice.'],
      ['a blank choice key', { name: 'C', field_type: 3, field_data: { ' ': { text: 'A', order: '1' } } }, "'value' cannot be blank."],
      ['a choice without text', { name: 'C', field_type: 3, field_data: { a: { order: '1' } } }, 'text key is missing from field_data'],
      ['a blank choice text', { name: 'C', field_type: 3, field_data: { a: { text: ' ', order: '1' } } }, 'field_data["text"] cannot be blank.'],
      ['a choice with extra keys', { name: 'C', field_type: 3, field_data: { a: { text: 'A', order: '1', color: 'red' } } }, 'Unexpected arguments: color'],
      ['a choice that is not a dict', { name: 'C', field_type: 3, field_data: { a: 'A' } }, 'field_data is not a dict'],
      ['duplicate choices', { name: 'C', field_type: 3, field_data: { a: { text: 'A', order: '1' }, b: { text: 'A', order: '2' } } }, 'Field must not have duplicate choices.'],
      ['an account without subtype', { name: 'Acct', field_type: 7, field_data: {} }, 'subtype key is missing from field_data'],
      ['an unknown account', { name: 'Acct', field_type: 7, field_data: { subtype: 'myspace' } }, 'Invalid external account type'],
      ['a custom account without pattern', { name: 'Acct', field_type: 7, field_data: { subtype: 'custom' } }, 'Custom external account must define URL pattern'],
      ['a pattern without the user', { name: 'Acct', field_type: 7, field_data: { subtype: 'custom', url_pattern: 'https://example.com/' } }, "URL pattern must contain '%(username)s'."],
      ['a pattern that is no URL', { name: 'Acct', field_type: 7, field_data: { subtype: 'custom', url_pattern: 'not a url %(username)s' } }, 'field_data["url_pattern"] is not a URL'],
      ['a long text in the summary', { name: 'Essay', field_type: 2, display_in_profile_summary: true }, 'Only 2 custom profile fields can be displayed in the profile summary.'],
    ];
    for (const [what, params, msg] of cases) t.same((await create(params)).body, bad(msg), what);
    const missing = await create({ name: 'No type' });
    t.same(missing.body, { result: 'error', msg: "Missing 'field_type' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'field_type' }, 'field_type is required');
    t.same(await fields(), before, 'nothing was created');
  });

  t.test('only administrators change fields; everyone lists them', async (t) => {
    for (const [name, who] of [['member', hamlet], ['guest', polonius], ['bot', bot]] as const) {
      t.same((await create({ name: 'Nope', field_type: 1 }, who)).body, ADMIN_ONLY, `${name}: create refused`);
      t.same((await w.as(who)('PATCH', `/realm/profile_fields/${ids.short}`, { params: { name: 'Nope' } })).body, ADMIN_ONLY, `${name}: update refused`);
      t.same((await w.as(who)('DELETE', `/realm/profile_fields/${ids.short}`)).body, ADMIN_ONLY, `${name}: delete refused`);
      t.same((await w.as(who)('PATCH', '/realm/profile_fields', { params: { order: Object.values(ids) } })).body, ADMIN_ONLY, `${name}: reorder refused`);
      const list = await w.as(who)('GET', '/realm/profile_fields');
      t.equal(list.status, 200, `${name}: may list`);
      t.equal(list.body.custom_fields.length, Object.keys(ids).length, `${name}: every field`);
    }
    t.equal((await create({ name: 'By the owner', field_type: 1 }, owner)).status, 200, 'the owner may create');
    const other = await w.asOther(w.other.owner)('GET', '/realm/profile_fields');
    t.same(other.body.custom_fields, [], "another realm's fields are its own");
  });

  t.test('updating', async (t) => {
    const upd = (id: number, params: Record<string, unknown>) => w.as(admin)('PATCH', `/realm/profile_fields/${id}`, { params });
    t.equal((await upd(ids.short, { name: ' Mobile ', hint: '', required: true, editable_by_user: false })).status, 200, 'label, hint and flags');
    const short = (await fields()).find((f: { id: number }) => f.id === ids.short);
    t.same([short.name, short.hint, short.required, short.editable_by_user], ['Mobile', '', true, false], 'changed, the label stripped');
    t.equal((await upd(ids.select, { field_data: { vim: { text: 'Vim', order: '2' }, nano: { text: 'Nano', order: '1' } } })).status, 200, 'new choices');
    t.same(JSON.parse((await fields()).find((f: { id: number }) => f.id === ids.select).field_data), { vim: { text: 'Vim', order: '2' }, nano: { text: 'Nano', order: '1' } }, 'stored');
    t.equal((await upd(ids.github, { display_in_profile_summary: false, required: true })).status, 200, "a known account's display and flags may change");
    t.same((await upd(ids.github, { name: 'My GitHub' })).body, bad('Default custom field cannot be updated.'), 'but not its label');
    t.same((await upd(ids.github, { field_data: { subtype: 'twitter' } })).body, bad('Default custom field cannot be updated.'), 'nor its subtype');
    t.equal((await upd(ids.github, { name: 'GitHub username', hint: '' })).status, 200, 'sending its current label is fine');
    t.same((await upd(99999, { name: 'X' })).body, bad('Field id 99999 not found.'), 'an unknown field');
    t.same((await upd(ids.long, { name: 'Website' })).body, bad('A field with that label already exists.'), 'a taken label');
    t.same((await upd(ids.long, { name: '' })).body, bad('Label cannot be blank.'), 'a blank label');
    t.same((await upd(ids.long, { display_in_profile_summary: true })).body, bad('Only 2 custom profile fields can be displayed in the profile summary.'), 'the summary is full');
    t.equal((await upd(ids.link, { display_in_profile_summary: false })).status, 200, 'one leaves the summary');
    t.same((await upd(ids.long, { display_in_profile_summary: true })).body, bad('Field type not supported for display in profile summary.'), 'a long text never joins it');
    t.equal((await upd(ids.date, { display_in_profile_summary: true })).status, 200, 'a date may');
    t.same((await upd(ids.select, { field_data: {} })).body, bad('Field must have at least one choice.'), 'choices are checked');
  });

  t.test('reordering', async (t) => {
    const current = (await fields()).map((f: { id: number }) => f.id);
    const reversed = [...current].reverse();
    t.equal((await w.as(admin)('PATCH', '/realm/profile_fields', { params: { order: reversed } })).status, 200, 'reordered');
    const after = await fields();
    t.same(after.map((f: { id: number }) => f.id), reversed, 'listed in the new order');
    t.same(after.map((f: { order: number }) => f.order), reversed.map((_, i) => i), 'order is the position');
    t.same((await w.as(admin)('PATCH', '/realm/profile_fields', { params: { order: reversed.slice(1) } })).body, bad('Invalid order mapping.'), 'every field must be named');
    t.same((await w.as(admin)('PATCH', '/realm/profile_fields', { params: {} })).body.code, 'REQUEST_VARIABLE_MISSING', 'order is required');
  });

  t.test('deleting', async (t) => {
    t.equal((await w.as(admin)('DELETE', `/realm/profile_fields/${ids.pronouns}`)).status, 200, 'deleted');
    t.notOk((await fields()).some((f: { id: number }) => f.id === ids.pronouns), 'gone');
    t.same((await w.as(admin)('DELETE', `/realm/profile_fields/${ids.pronouns}`)).body, bad(`Field id ${ids.pronouns} not found.`), 'twice');
    const theirs = await w.asOther(w.other.owner)('DELETE', `/realm/profile_fields/${ids.long}`);
    t.same(theirs.body, bad(`Field id ${ids.long} not found.`), "another realm's administrator cannot delete this realm's field");
  });

  t.test('fields survive a restart; ids keep increasing', async (t) => {
    const before = await fields();
    await restart(t, w.ts, async () => undefined);
    t.same(await fields(), before, 'the same fields in the same order');
    const res = await create({ name: 'After restart', field_type: 1 });
    t.ok(res.body.id > Math.max(...Object.values(ids)), 'a new id');
    const reg = await w.as(hamlet)('POST', '/register', { params: { fetch_event_types: ['custom_profile_fields'] } });
    t.same(reg.body.custom_profile_fields, await fields(), '/register lists them');
    t.equal(reg.body.custom_profile_field_types.PRONOUNS.id, 8, 'with the field types');
  });
});
