import t from 'tap';
import { startTestServer } from '../../helpers/server.js';

t.test('PATCH /realm/linkifiers: reorder', async (t) => {
  const ts = await startTestServer(t);
  const reorder = (ids: unknown, encoding?: 'form' | 'json' | 'multipart' | 'query') => ts.request('PATCH', '/realm/linkifiers', { params: { ordered_linkifier_ids: ids }, encoding });
  const order = async () => (await ts.request('GET', '/realm/linkifiers')).body.linkifiers.map((l: { id: number }) => l.id) as number[];

  await t.test('an empty list is accepted while there are no linkifiers', async (t) => {
    const res = await reorder([]);
    t.same(res.body, { result: 'success', msg: '' }, 'success');
    t.same(await order(), [], 'still none');
  });

  const ids: number[] = [];
  for (const n of [1, 2, 3]) {
    const res = await ts.request('POST', '/realm/filters', { params: { pattern: `${n}#(?P<id>[123])`, url_template: `https://filter.com/${n}/{id}` } });
    ids.push(res.body.id);
  }

  t.test('the new order applies, and new linkifiers still come last', async (t) => {
    const reversed = [...ids].reverse();
    const res = await reorder(reversed);
    t.equal(res.status, 200, 'status 200');
    t.same(await order(), reversed, 'listed in the new order');
    const added = await ts.request('POST', '/realm/filters', { params: { pattern: '3#123', url_template: 'https://example.com' } });
    t.same(await order(), [...reversed, added.body.id], 'a new linkifier is appended');
    ids.push(added.body.id);
  });

  t.test('parameters as zulip-js and the Python bindings send them', async (t) => {
    const wanted = [ids[1], ids[3], ids[0], ids[2]];
    const res = await reorder(JSON.stringify(wanted), 'query');
    t.equal(res.status, 200, 'JSON text in the query string');
    t.same(await order(), wanted, 'applied');
    const multipart = await reorder(wanted.slice().reverse(), 'multipart');
    t.equal(multipart.status, 200, 'multipart');
    t.same(await order(), wanted.slice().reverse(), 'applied');
  });

  t.test('errors', async (t) => {
    const before = await order();
    let res = await reorder([...before, before[0]]);
    t.same(res.body, { result: 'error', msg: 'The ordered list must not contain duplicated linkifiers', code: 'BAD_REQUEST' }, 'a duplicated id');
    res = await reorder(before.slice(0, 2));
    t.same(res.body, { result: 'error', msg: 'The ordered list must enumerate all existing linkifiers exactly once', code: 'BAD_REQUEST' }, 'an incomplete list');
    res = await reorder([99999, ...before]);
    t.equal(res.body.msg, 'The ordered list must enumerate all existing linkifiers exactly once', 'an unknown id');
    res = await reorder([99999, ...before.slice(1)]);
    t.equal(res.body.msg, 'The ordered list must enumerate all existing linkifiers exactly once', 'an unknown id in place of a known one');
    res = await reorder([]);
    t.equal(res.body.msg, 'The ordered list must enumerate all existing linkifiers exactly once', 'an empty list while there are linkifiers');
    res = await ts.request('PATCH', '/realm/linkifiers', { params: { ordered_linkifier_ids: 'not json' } });
    t.same(res.body, { result: 'error', msg: 'Argument "ordered_linkifier_ids" is not valid JSON.', code: 'INVALID_JSON' }, 'not JSON');
    res = await reorder(['a', 'b']);
    t.equal(res.body.code, 'REQUEST_VARIABLE_INVALID', 'not integers');
    res = await ts.request('PATCH', '/realm/linkifiers', { params: {} });
    t.same(res.body, { result: 'error', msg: "Missing 'ordered_linkifier_ids' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'ordered_linkifier_ids' }, 'missing');
    t.same(await order(), before, 'the order is unchanged');
  });
});
