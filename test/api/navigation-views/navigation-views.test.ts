import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { convergenceHarness } from '../../helpers/convergence.js';
import { createUser, startTestServer } from '../../helpers/server.js';

// Navigation views (feature level 390), as the reference's API test suite uses them
// (python_examples add/get/update/remove_navigation_views): a custom view "narrow/is/alerted".
t.test('navigation views: add, list, update, remove, per user', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const asAnn = ts.as(ann);
  const list = async (c = ann) => (await ts.as(c)('GET', '/navigation_views')).body.navigation_views;

  t.same(await list(), [], 'none at first');
  const add = await asAnn('POST', '/navigation_views', { params: { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alert Word' } });
  t.same(add.body, { result: 'success', msg: '' }, 'a custom view is added');
  const builtIn = await asAnn('POST', '/navigation_views', { params: { fragment: 'inbox', is_pinned: false } });
  t.equal(builtIn.status, 200, 'a built-in view is added without a name');
  t.same(await list(), [{ fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alert Word' }, { fragment: 'inbox', is_pinned: false, name: null }], 'listed in creation order');
  t.same(await list(bob), [], 'another user does not see them');

  const pin = await asAnn('PATCH', '/navigation_views/narrow/is/alerted', { params: { is_pinned: false, name: 'Alerts' } });
  t.equal(pin.status, 200, 'PATCH with a fragment holding slashes');
  t.same((await list())[0], { fragment: 'narrow/is/alerted', is_pinned: false, name: 'Alerts' }, 'updated');

  t.test('errors', async (t) => {
    const again = await asAnn('POST', '/navigation_views', { params: { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Again' } });
    t.same([again.status, again.body.msg], [400, 'Navigation view already exists.'], 'a fragment twice');
    const unnamed = await asAnn('POST', '/navigation_views', { params: { fragment: 'narrow/is/starred', is_pinned: true } });
    t.same([unnamed.status, unnamed.body.msg], [400, 'Custom views must have a valid name.'], 'a custom view needs a name');
    const named = await asAnn('POST', '/navigation_views', { params: { fragment: 'recent', is_pinned: true, name: 'Mine' } });
    t.same([named.status, named.body.msg], [400, 'Built-in views cannot have a custom name.'], 'a built-in view takes none');
    const rename = await asAnn('PATCH', '/navigation_views/inbox', { params: { name: 'Mine' } });
    t.same([rename.status, rename.body.msg], [400, 'Built-in views cannot have a custom name.'], 'nor by PATCH');
    const nothing = await asAnn('PATCH', '/navigation_views/inbox', { params: {} });
    t.equal(nothing.status, 400, 'PATCH with nothing to change');
    const missing = await asAnn('PATCH', '/navigation_views/narrow/nowhere', { params: { is_pinned: true } });
    t.same([missing.status, missing.body.msg], [404, 'Navigation view does not exist.'], 'PATCH of an unknown view');
    const othersView = await ts.as(bob)('DELETE', '/navigation_views/narrow/is/alerted');
    t.same([othersView.status, othersView.body.msg], [404, 'Navigation view does not exist.'], 'one user cannot remove another\'s view');
    const noPin = await asAnn('POST', '/navigation_views', { params: { fragment: 'narrow/x', name: 'X' } });
    t.same([noPin.status, noPin.body.code], [400, 'REQUEST_VARIABLE_MISSING'], 'is_pinned is required');
    t.equal((await list()).length, 2, 'no refused request changed anything');
  });

  t.test('DELETE', async (t) => {
    const del = await asAnn('DELETE', '/navigation_views/narrow/is/alerted');
    t.equal(del.status, 200, 'removed');
    t.same((await list()).map((v: any) => v.fragment), ['inbox'], 'gone from the list');
    const twice = await asAnn('DELETE', '/navigation_views/narrow/is/alerted');
    t.equal(twice.status, 404, 'a second DELETE: does not exist');
  });
});

t.test('navigation views: events converge, and they survive a restart', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-test-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const ts = await startTestServer(t, {}, { dataDir });
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const { ok, converges } = convergenceHarness(t, ts);
  const opts = { sections: ['navigation_views'] };
  await converges('adding a view', () => ok(ann, 'POST', '/navigation_views', { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alert Word' }), [ann, bob], opts);
  await converges('adding a built-in view', () => ok(ann, 'POST', '/navigation_views', { fragment: 'inbox', is_pinned: false }), [ann, bob], opts);
  await converges('updating one', () => ok(ann, 'PATCH', '/navigation_views/narrow/is/alerted', { is_pinned: false }), [ann, bob], opts);
  await converges('removing one', () => ok(ann, 'DELETE', '/navigation_views/inbox'), [ann, bob], opts);
  t.test('after a restart', async (t) => {
    const before = await ok(ann, 'GET', '/navigation_views');
    t.equal(before.navigation_views.length, 1, 'one view left');
    await ts.close();
    const again = await startTestServer(t, {}, { dataDir });
    t.same((await again.as(ann)('GET', '/navigation_views')).body, before, 'the same views');
  });
});
