import t from 'tap';
import { startTestServer } from '../../helpers/server.js';

t.test('PATCH and DELETE /realm/filters/{filter_id}', async (t) => {
  const ts = await startTestServer(t);
  const add = async (pattern: string, url_template: string) => {
    const res = await ts.request('POST', '/realm/filters', { params: { pattern, url_template } });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body.id as number;
  };
  const list = async () => (await ts.request('GET', '/realm/linkifiers')).body.linkifiers as { id: number; pattern: string; url_template: string }[];
  const a = await add('1#(?P<id>[123])', 'https://filter.com/foo/{id}');
  const b = await add('2#(?P<id>[123])', 'https://filter.com/bar/{id}');
  const c = await add('3#(?P<id>[123])', 'https://filter.com/baz/{id}');
  const missing = c + 1000;

  t.test('PATCH /realm/filters/{filter_id}: changes pattern and template in place', async (t) => {
    const res = await ts.request('PATCH', `/realm/filters/${b}`, { params: { pattern: '#(?P<id>[0-9]+)', url_template: 'https://realm.com/my_realm_filter/issues/{id}' } });
    t.equal(res.status, 200, 'status 200');
    t.same(res.body, { result: 'success', msg: '' }, 'a bare success');
    t.same(await list(), [
      { id: a, pattern: '1#(?P<id>[123])', url_template: 'https://filter.com/foo/{id}' },
      { id: b, pattern: '#(?P<id>[0-9]+)', url_template: 'https://realm.com/my_realm_filter/issues/{id}' },
      { id: c, pattern: '3#(?P<id>[123])', url_template: 'https://filter.com/baz/{id}' },
    ], 'same id, same place, new values');
  });

  t.test('PATCH /realm/filters/{filter_id}: a linkifier may keep its own pattern', async (t) => {
    const res = await ts.request('PATCH', `/realm/filters/${b}`, { params: { pattern: ' #(?P<id>[0-9]+) ', url_template: 'https://realm.com/v2/{id}' } });
    t.equal(res.status, 200, 'not a duplicate of itself');
    t.match((await list())[1], { id: b, pattern: '#(?P<id>[0-9]+)', url_template: 'https://realm.com/v2/{id}' }, 'stored stripped');
  });

  t.test('PATCH /realm/filters/{filter_id}: errors', async (t) => {
    const before = await list();
    let res = await ts.request('PATCH', `/realm/filters/${missing}`, { params: { pattern: '#(?P<id>[123])', url_template: 'https://realm.com/{id}' } });
    t.same(res.body, { result: 'error', msg: 'Linkifier not found.', code: 'BAD_REQUEST' }, 'an unknown id');
    res = await ts.request('PATCH', `/realm/filters/${missing}`, { params: { pattern: '(foo', url_template: 'x' } });
    t.equal(res.body.msg, 'Linkifier not found.', 'an unknown id is reported before the values');
    res = await ts.request('PATCH', `/realm/filters/${a}`, { params: { pattern: 'ZUL-(?P<id>\\d????)', url_template: 'https://realm.com/{id}' } });
    t.equal(res.body.msg, 'Bad regular expression: bad repetition operator: ????', 'a bad pattern');
    res = await ts.request('PATCH', `/realm/filters/${a}`, { params: { pattern: 'ZUL-(?P<id>\\d+)', url_template: '$fgfg' } });
    t.equal(res.body.msg, "Group 'id' in linkifier pattern is not present in URL template.", 'a template without the group');
    res = await ts.request('PATCH', `/realm/filters/${a}`, { params: { pattern: '#(?P<id>[123])', url_template: '{id' } });
    t.same(res.body.errors, { url_template: ['Invalid URL template.'] }, 'an invalid template');
    res = await ts.request('PATCH', `/realm/filters/${a}`, { params: { pattern: '3#(?P<id>[123])', url_template: 'https://x/{id}' } });
    t.equal(res.body.msg, 'Realm filter with this Realm and Pattern already exists.', "another linkifier's pattern");
    res = await ts.request('PATCH', `/realm/filters/${a}`, { params: { pattern: '#(?P<id>[123])' } });
    t.equal(res.body.code, 'REQUEST_VARIABLE_MISSING', 'url_template is required');
    res = await ts.request('PATCH', `/realm/filters/${a}`, { params: { url_template: 'https://x/{id}' } });
    t.equal(res.body.code, 'REQUEST_VARIABLE_MISSING', 'pattern is required');
    t.same(await list(), before, 'nothing changed');
  });

  t.test('DELETE /realm/filters/{filter_id}: removes one, the others keep their order', async (t) => {
    const res = await ts.request('DELETE', `/realm/filters/${b}`);
    t.same(res.body, { result: 'success', msg: '' }, 'removed');
    t.same((await list()).map((l) => l.id), [a, c], 'a and c remain, in order');
    const again = await ts.request('DELETE', `/realm/filters/${b}`);
    t.same(again.body, { result: 'error', msg: 'Linkifier not found.', code: 'BAD_REQUEST' }, 'a second delete finds nothing');
    const unknown = await ts.request('DELETE', `/realm/filters/${missing}`);
    t.equal(unknown.body.msg, 'Linkifier not found.', 'an unknown id');
    t.same((await list()).map((l) => l.id), [a, c], 'nothing else removed');
  });

  t.test('a removed pattern may be added again, with a new id', async (t) => {
    const id = await add('2#(?P<id>[123])', 'https://filter.com/bar/{id}');
    t.ok(id > c, 'a fresh id, never the removed one');
    t.same((await list()).map((l) => l.id), [a, c, id], 'appended last');
  });
});
