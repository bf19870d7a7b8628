import t from 'tap';
import { startTestServer } from '../../helpers/server.js';

const TEMPLATE = 'https://realm.com/my_realm_filter/{id}';

t.test('POST /realm/filters: validation errors', async (t) => {
  const ts = await startTestServer(t);
  const add = (pattern: unknown, url_template: unknown) => ts.request('POST', '/realm/filters', { params: { pattern, url_template } });
  const list = async () => (await ts.request('GET', '/realm/linkifiers')).body.linkifiers;

  t.test('a pattern RE2 refuses: "Bad regular expression: ..." with RE2\'s wording', async (t) => {
    const cases: [string, string][] = [
      ['(foo', 'Bad regular expression: missing ): (foo'],
      ['ZUL-(?P<id>\\d????)', 'Bad regular expression: bad repetition operator: ????'],
      ['[abc(?P<id>x)', 'Bad regular expression: missing ]: [abc(?P<id>x)'],
      ['(?P<id>x))', 'Bad regular expression: unexpected ): (?P<id>x))'],
      ['*(?P<id>x)', 'Bad regular expression: no argument for repetition operator: *'],
      ['(?P<id>\\q)', 'Bad regular expression: invalid escape sequence: \\q'],
      ['(?P<id>x{2,1})', 'Bad regular expression: invalid repetition size: {2,1}'],
      ['(?P<id>[z-a])', 'Bad regular expression: invalid character class range: z-a'],
      ['(?=look)(?P<id>x)', 'Bad regular expression: invalid perl operator: (?='],
      ['(?P<id>x)(?P<id>y)', 'Bad regular expression: invalid named capture group: (?P<id>'],
    ];
    for (const [pattern, msg] of cases) {
      const res = await add(pattern, TEMPLATE);
      t.equal(res.status, 400, `${pattern}: status 400`);
      t.same(res.body, { result: 'error', msg, code: 'BAD_REQUEST', errors: { __all__: [msg] } }, `${pattern}: the reference's error and errors data`);
    }
  });

  t.test('a URL template that is not RFC 6570: "Invalid URL template."', async (t) => {
    for (const url_template of ['https://example.com/{id', 'https://example.com/{{id}', 'https://example.com/{//id}', 'https://example.com/{id++}', 'https://example.com/id}/{id}', 'https://example.com/{}{id}', 'https://example.com/{=id}', 'https://example.com/{id:0}']) {
      const res = await add('#(?P<id>[0-9]+)', url_template);
      t.same(res.body, { result: 'error', msg: 'Invalid URL template.', code: 'BAD_REQUEST', errors: { url_template: ['Invalid URL template.'] } }, `${url_template} is refused`);
    }
  });

  t.test('template variables and pattern groups must agree', async (t) => {
    let res = await add('ZUL-(?P<id>\\d+)', 'https://realm.com/my_realm_filter/{hello}');
    t.equal(res.body.msg, "Group 'hello' in URL template is not present in linkifier pattern.", 'a template variable the pattern lacks');
    t.same(res.body.errors, { __all__: [res.body.msg] }, 'a non-field error');
    res = await add('ZUL-(?P<id>\\d+)-(?P<hello>\\d+)', 'https://realm.com/my_realm_filter/{hello}');
    t.equal(res.body.msg, "Group 'id' in linkifier pattern is not present in URL template.", 'a pattern group the template lacks');
    res = await add('ZUL-(?P<id>\\d+)', 'https://realm.com/my_realm_filter/');
    t.equal(res.body.msg, "Group 'id' in linkifier pattern is not present in URL template.", 'a template without variables');
    res = await add('ZUL-(?P<id>\\d+)', '$fgfg');
    t.equal(res.body.msg, "Group 'id' in linkifier pattern is not present in URL template.", 'a template that is not a URL at all');
    res = await add('X-(?P<zed>\\d+)-(?P<alpha>\\d+)', 'https://x/{zed}/{beta}/{aaa}');
    t.equal(res.body.msg, "Group 'aaa' in URL template is not present in linkifier pattern.", 'the first missing name in sort order, template side first');
    t.equal(res.status, 400, 'status 400');
  });

  t.test('blank values: "This field cannot be blank."', async (t) => {
    let res = await add('', TEMPLATE);
    t.equal(res.body.msg, 'This field cannot be blank.', 'an empty pattern');
    t.same(res.body.errors, { pattern: ['This field cannot be blank.'], __all__: ["Group 'id' in URL template is not present in linkifier pattern."] }, 'every problem is listed, field errors first');
    res = await add('   ', TEMPLATE);
    t.same(res.body.errors?.pattern, ['This field cannot be blank.'], 'a pattern of spaces is blank once stripped');
    res = await add('#(?P<id>[0-9]+)', '');
    t.equal(res.body.msg, 'This field cannot be blank.', 'an empty template');
    t.same(res.body.errors, { url_template: ['This field cannot be blank.'], __all__: ["Group 'id' in linkifier pattern is not present in URL template."] }, 'the template error and the group mismatch');
  });

  t.test('a bad template is reported before a bad pattern', async (t) => {
    const res = await add('(foo', 'https://x/{id');
    t.equal(res.body.msg, 'Invalid URL template.', 'the field error comes first');
    t.same(res.body.errors, { url_template: ['Invalid URL template.'], __all__: ['Bad regular expression: missing ): (foo'] }, 'both are listed');
  });

  t.test('a pattern already used in the realm', async (t) => {
    const first = await add('#(?P<id>[0-9]+)', TEMPLATE);
    t.equal(first.status, 200, 'the first is added');
    const again = await add('  #(?P<id>[0-9]+)', 'https://other.example.com/{id}');
    t.same(again.body, { result: 'error', msg: 'Realm filter with this Realm and Pattern already exists.', code: 'BAD_REQUEST', errors: { __all__: ['Realm filter with this Realm and Pattern already exists.'] } }, 'refused, also after stripping');
  });

  t.test('missing and mistyped parameters', async (t) => {
    let res = await ts.request('POST', '/realm/filters', { params: { url_template: TEMPLATE } });
    t.same(res.body, { result: 'error', msg: "Missing 'pattern' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'pattern' }, 'no pattern');
    res = await ts.request('POST', '/realm/filters', { params: { pattern: '#(?P<id>[0-9]+)' } });
    t.same(res.body, { result: 'error', msg: "Missing 'url_template' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'url_template' }, 'no url_template');
    res = await ts.request('POST', '/realm/filters', { encoding: 'json', params: { pattern: { id: 1 }, url_template: TEMPLATE } });
    t.same(res.body, { result: 'error', msg: 'pattern is not a string', code: 'REQUEST_VARIABLE_INVALID', var_name: 'pattern' }, 'a pattern that is not a string');
  });

  t.test('refused requests change nothing', async (t) => {
    const before = await list();
    await add('(foo', TEMPLATE);
    await add('#(?P<id>[0-9]+)', 'https://x/{id');
    await add('', '');
    t.same(await list(), before, 'the list is unchanged');
    t.equal(before.length, 1, 'only the one valid linkifier');
  });
});
