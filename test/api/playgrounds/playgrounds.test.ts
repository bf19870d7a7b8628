import t from 'tap';
import { convergenceHarness } from '../../helpers/convergence.js';
import { startTestServer } from '../../helpers/server.js';
import { listen } from '../streams/queues.js';
import { startWorld, type Person } from '../streams/world.js';

const ADMIN_ONLY = { result: 'error', msg: 'Must be an organization administrator', code: 'UNAUTHORIZED_PRINCIPAL' };

t.test('code playgrounds', async (t) => {
  const w = await startWorld(t);
  const { owner, admin, hamlet, polonius } = w.root;
  const add = (who: Person, params: Record<string, unknown>) => w.as(who)('POST', '/realm/playgrounds', { params });
  const list = async (who: Person = hamlet) => (await w.as(who)('POST', '/register', { params: { fetch_event_types: ['realm_playgrounds'] } })).body.realm_playgrounds;
  const python = { name: ' Python playground ', pygments_language: 'Python', url_template: 'https://python.example.com?code={code}' };

  let id = 0;
  t.test('adding one: every user hears of it', async (t) => {
    const q = await listen(w.as(polonius), { event_types: ['realm_playgrounds'] });
    const res = await add(admin, python);
    t.same(Object.keys(res.body).sort(), ['id', 'msg', 'result'], 'the new id');
    id = res.body.id;
    const expected = [{ id, name: 'Python playground', pygments_language: 'Python', url_template: 'https://python.example.com?code={code}' }];
    t.same(await list(), expected, 'in /register, stripped');
    t.same(await q.drain(t), [{ type: 'realm_playgrounds', realm_playgrounds: expected }], 'the event: the whole list, guests included');
    const msg = await w.as(hamlet)('POST', '/messages/render', { params: { content: '```python\nprint(1)\n```' } });
    t.notMatch(msg.body.rendered, /python\.example\.com/, 'rendered code blocks are unchanged: clients offer the link');
  });

  t.test('errors', async (t) => {
    const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ['the same language and name', python, { msg: 'Realm playground with this Realm, Pygments language and Name already exists.', errors: { __all__: ['Realm playground with this Realm, Pygments language and Name already exists.'] } }],
      ['no code variable', { ...python, name: 'x', url_template: 'https://x.example.com?q={query}' }, { msg: '"code" should be the only variable present in the URL template', errors: { __all__: ['"code" should be the only variable present in the URL template'] } }],
      ['two variables', { ...python, name: 'x', url_template: 'https://x.example.com/{lang}?code={code}' }, { msg: '"code" should be the only variable present in the URL template' }],
      ['a broken template', { ...python, name: 'x', url_template: 'https://x.example.com?code={code' }, { msg: 'Invalid URL template.', errors: { url_template: ['Invalid URL template.'] } }],
      ['a blank name', { ...python, name: '  ' }, { msg: 'This field cannot be blank.', errors: { name: ['This field cannot be blank.'] } }],
      ['a blank language', { ...python, name: 'x', pygments_language: '' }, { msg: 'This field cannot be blank.', errors: { pygments_language: ['This field cannot be blank.'] } }],
      ['odd characters in the language', { ...python, pygments_language: 'Py$thon' }, { msg: 'Invalid characters in pygments language' }],
      ['a language over 40 characters', { ...python, pygments_language: 'P'.repeat(41) }, { msg: 'pygments_language is too long (limit: 40 characters)' }],
      ['no template', { name: 'x', pygments_language: 'Python' }, { msg: "Missing 'url_template' argument", code: 'REQUEST_VARIABLE_MISSING' }],
    ];
    for (const [name, params, expected] of cases) {
      const res = await add(admin, params);
      t.equal(res.status, 400, `${name}: 400`);
      t.match(res.body, { result: 'error', ...expected }, name);
    }
    t.equal((await add(admin, { ...python, name: 'Another' })).status, 200, 'the same language under another name is fine');
    for (const [role, who] of [['member', hamlet], ['guest', polonius]] as const) {
      t.same((await add(who, { ...python, name: 'Mine' })).body, ADMIN_ONLY, `${role}: may not add`);
      t.same((await w.as(who)('DELETE', `/realm/playgrounds/${id}`)).body, ADMIN_ONLY, `${role}: may not remove`);
    }
    t.match((await w.as(admin)('DELETE', '/realm/playgrounds/9999')).body, { msg: 'Invalid playground' }, 'an unknown playground');
    t.match((await w.asOther(w.other.owner)('DELETE', `/realm/playgrounds/${id}`)).body, { msg: 'Invalid playground' }, "another realm's playground");
    t.same((await w.asOther(w.other.owner)('POST', '/register', { params: { fetch_event_types: ['realm_playgrounds'] } })).body.realm_playgrounds, [], 'which has none of its own');
  });

  t.test('removing, and clients converging', async (t) => {
    const { converges } = convergenceHarness(t, w.ts);
    await converges('a playground added', () => add(owner, { name: 'JS', pygments_language: 'JavaScript', url_template: 'https://js.example.com/#{code}' }), [hamlet, polonius], { sections: ['realm_playgrounds'] });
    await converges('a playground removed', () => w.as(admin)('DELETE', `/realm/playgrounds/${id}`), [hamlet, polonius], { sections: ['realm_playgrounds'] });
    t.same((await list()).map((p: { name: string }) => p.name), ['Another', 'JS'], 'the others stay, in order');
  });

  t.test('playgrounds survive a restart', async (t) => {
    const before = await list();
    await w.ts.close();
    const ts = await startTestServer(t, {}, { dataDir: w.ts.dataDir });
    const after = (await ts.as(hamlet)('POST', '/register', { params: { fetch_event_types: ['realm_playgrounds'] } })).body.realm_playgrounds;
    t.same(after, before, 'the same playgrounds');
    const next = await ts.as(admin)('POST', '/realm/playgrounds', { params: { name: 'Go', pygments_language: 'Go', url_template: 'https://go.example.com/{code}' } });
    t.ok(next.body.id > Math.max(...before.map((p: { id: number }) => p.id)), 'ids keep increasing');
  });
});
