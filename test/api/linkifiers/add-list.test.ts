import t from 'tap';
import { createUser, startTestServer } from '../../helpers/server.js';

t.test('POST /realm/filters and GET /realm/linkifiers', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');

  t.test('GET /realm/linkifiers: an empty list at first', async (t) => {
    const res = await ts.request('GET', '/realm/linkifiers');
    t.equal(res.status, 200, 'status 200');
    t.same(res.body, { result: 'success', msg: '', linkifiers: [] }, 'no linkifiers');
  });

  t.test('POST /realm/filters: adds a linkifier and answers its id', async (t) => {
    const res = await ts.request('POST', '/realm/filters', {
      params: { pattern: '#(?P<id>[0-9]+)', url_template: 'https://github.com/zulip/zulip/issues/{id}' },
    });
    t.equal(res.status, 200, 'status 200');
    t.type(res.body.id, 'number', 'the new id');
    const list = await ts.request('GET', '/realm/linkifiers');
    t.same(list.body.linkifiers, [{ id: res.body.id, pattern: '#(?P<id>[0-9]+)', url_template: 'https://github.com/zulip/zulip/issues/{id}' }], 'listed in the reference shape');
  });

  t.test('POST /realm/filters: new linkifiers come last, with increasing ids', async (t) => {
    const before = (await ts.request('GET', '/realm/linkifiers')).body.linkifiers;
    const a = await ts.request('POST', '/realm/filters', { params: { pattern: 'ZUL-(?P<id>\\d+)', url_template: 'https://realm.com/my_realm_filter/#hashtag/{id}' } });
    const b = await ts.request('POST', '/realm/filters', { params: { pattern: 'lp:(?P<id>[0-9]+)', url_template: 'https://realm.com/my_realm_filter/?sort=reverse&value={id}' } });
    t.ok(b.body.id > a.body.id, 'ids increase');
    const after = (await ts.request('GET', '/realm/linkifiers')).body.linkifiers;
    t.same(after.map((l: { id: number }) => l.id), [...before.map((l: { id: number }) => l.id), a.body.id, b.body.id], 'appended in creation order');
  });

  t.test('POST /realm/filters: pattern and template are stored stripped', async (t) => {
    const res = await ts.request('POST', '/realm/filters', { params: { pattern: '  PR (?P<id>[0-9]+)\n', url_template: ' https://example.com/~user/web#view_type=type&id={id}  ' } });
    t.equal(res.status, 200, 'accepted');
    const list = (await ts.request('GET', '/realm/linkifiers')).body.linkifiers;
    t.match(list.at(-1), { id: res.body.id, pattern: 'PR (?P<id>[0-9]+)', url_template: 'https://example.com/~user/web#view_type=type&id={id}' }, 'whitespace removed at both ends');
  });

  t.test('POST /realm/filters: RFC 6570 templates the reference accepts', async (t) => {
    const cases: [string, string][] = [
      ['(?P<org>[a-zA-Z0-9_-]+)/(?P<repo>[a-zA-Z0-9_-]+)#(?P<id>[0-9]+)', 'https://github.com/{org}/{repo}/issue/{id}'],
      [
        'FOO_(?P<id>[a-f]{5});(?P<zone>[a-f]);(?P<domain>[a-z]+);(?P<location>[a-z]+);(?P<name>[a-z]{2,8});(?P<chapter>[0-9]{2,3});(?P<fragment>[a-z]{2,8})',
        'https://zone_{zone}{.domain}.net/ticket{/location}{/id}{?name,chapter}{#fragment:5}',
      ],
      ['ZUL-URL-(?P<id>\\d+)', 'https://example.com/%ba/{id}'],
      ['!(?P<id>[0-9]+)', 'https://realm.com/index.pl?Action=AgentTicketZoom;TicketNumber={id}'],
      ['ZULZ-(?P<hello>\\d+)-(?P<world>\\d+)', 'https://realm.com/my_realm_filter/{hello}/{world}'],
      ['plain-word', 'https://example.com/%%(foo)s'],
      ['(?P<q>[a-z]+)\\?', 'https://example.com/search{?q}{&q}'],
      ['(?P<path>[a-z/]+)@@', 'https://example.com{+path}{;path*}'],
    ];
    for (const [pattern, url_template] of cases) {
      const res = await ts.request('POST', '/realm/filters', { params: { pattern, url_template } });
      t.equal(res.status, 200, `${url_template} is accepted`);
    }
  });

  t.test('GET /realm/linkifiers: any user of the realm may list them', async (t) => {
    const owner = await ts.request('GET', '/realm/linkifiers');
    const member = await ts.as(ann)('GET', '/realm/linkifiers');
    t.equal(member.status, 200, 'a member lists them');
    t.same(member.body.linkifiers, owner.body.linkifiers, 'the same list as the owner');
  });

  t.test('GET /realm/linkifiers: credentials are required', async (t) => {
    const res = await ts.request('GET', '/realm/linkifiers', { auth: null });
    t.equal(res.status, 401, 'status 401');
    t.equal(res.body.code, 'UNAUTHORIZED', 'UNAUTHORIZED');
  });

  t.test('POST /realm/filters: parameters arrive in every encoding', async (t) => {
    const multipart = await ts.request('POST', '/realm/filters', { encoding: 'multipart', params: { pattern: 'MP-(?P<n>[0-9]+)', url_template: 'https://mp.example.com/{n}' } });
    t.equal(multipart.status, 200, 'multipart/form-data (zulip-js)');
    const json = await ts.request('POST', '/realm/filters', { encoding: 'json', params: { pattern: 'JS-(?P<n>[0-9]+)', url_template: 'https://js.example.com/{n}' } });
    t.equal(json.status, 200, 'a JSON body');
    const extra = await ts.request('POST', '/realm/filters', { params: { pattern: 'EX-(?P<n>[0-9]+)', url_template: 'https://ex.example.com/{n}', url_format_string: 'x' } });
    t.same(extra.body.ignored_parameters_unsupported, ['url_format_string'], 'an unknown parameter is reported as ignored');
  });
});
