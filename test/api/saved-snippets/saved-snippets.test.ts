import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { convergenceHarness } from '../../helpers/convergence.js';
import { createUser, startTestServer } from '../../helpers/server.js';
import { startWorld } from '../streams/world.js';

/** GET, POST /saved_snippets; PATCH, DELETE /saved_snippets/{id}. */

t.test('saved snippets: create, list, edit, delete, errors, ownership', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello, polonius, bot } = w.root;
  const as = w.as(hamlet);
  const list = async (who = hamlet) => (await w.as(who)('GET', '/saved_snippets')).body.saved_snippets;

  t.same(await list(), [], 'none at first');
  const res = await as('POST', '/saved_snippets', { params: { title: '  Welcome message ', content: '**Welcome** to the organization.  ' } });
  t.equal(res.status, 200, 'created');
  const id = res.body.saved_snippet_id;
  const [snippet] = await list();
  t.same({ ...snippet, date_created: 0 }, { id, title: 'Welcome message', content: '**Welcome** to the organization.', date_created: 0 }, 'stripped title and content');
  t.ok(Math.abs(snippet.date_created - Date.now() / 1000) < 5, 'date_created is now');

  const errors: [Record<string, unknown>, string][] = [
    [{ title: '   ', content: 'x' }, 'Title cannot be empty.'],
    [{ title: 'x', content: '' }, 'Content cannot be empty.'],
    [{ title: 'A'.repeat(160), content: 'x' }, 'title is too long (limit: 100 characters)'],
    [{ title: 'x', content: 'c'.repeat(10001) }, 'content is too long (limit: 10000 characters)'],
  ];
  for (const [params, msg] of errors) {
    const bad = await as('POST', '/saved_snippets', { params });
    t.same([bad.status, bad.body.code, bad.body.msg], [400, 'BAD_REQUEST', msg], msg);
  }
  const missing = await as('POST', '/saved_snippets', { params: { title: 'x' } });
  t.same([missing.body.code, missing.body.var_name], ['REQUEST_VARIABLE_MISSING', 'content'], 'content is required');

  let edit = await as('PATCH', `/saved_snippets/${id}`, { params: { title: 'New title' } });
  t.equal(edit.status, 200, 'title edited');
  edit = await as('PATCH', `/saved_snippets/${id}`, { params: { content: 'New content' } });
  t.equal(edit.status, 200, 'content edited');
  t.same((await list())[0], { ...snippet, title: 'New title', content: 'New content' }, 'both changed, date_created kept');
  edit = await as('PATCH', `/saved_snippets/${id}`);
  t.same([edit.status, edit.body.msg], [400, 'No new data is supplied'], 'nothing to change');
  edit = await as('PATCH', `/saved_snippets/${id}`, { params: { title: '' } });
  t.equal(edit.body.msg, 'Title cannot be empty.', 'an edit is checked like a creation');
  edit = await as('PATCH', '/saved_snippets/99999', { params: { content: 'x' } });
  t.same([edit.status, edit.body.msg, edit.body.code], [404, 'Saved snippet does not exist.', 'BAD_REQUEST'], 'an unknown id');
  edit = await w.as(othello)('PATCH', `/saved_snippets/${id}`, { params: { content: 'x' } });
  t.same([edit.status, edit.body.msg], [404, 'Saved snippet does not exist.'], "another user's snippet does not exist for them");
  let del = await w.as(othello)('DELETE', `/saved_snippets/${id}`);
  t.equal(del.status, 404, 'others cannot delete it');
  for (const who of [othello, polonius, bot]) t.same(await list(who), [], `${who.email} does not see hamlet's snippet`);
  t.same((await w.asOther(w.other.hamlet)('GET', '/saved_snippets')).body.saved_snippets, [], 'nor does the other realm');
  const guest = await w.as(polonius)('POST', '/saved_snippets', { params: { title: 'g', content: 'guest snippet' } });
  t.equal(guest.status, 200, 'guests have snippets too');
  del = await as('DELETE', `/saved_snippets/${id}`);
  t.equal(del.status, 200, 'deleted');
  del = await as('DELETE', `/saved_snippets/${id}`);
  t.same([del.status, del.body.msg], [404, 'Saved snippet does not exist.'], 'gone');
  t.same(await list(), [], 'the list is empty');
});

t.test('saved snippets: events converge, and they survive a restart', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-test-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const ts = await startTestServer(t, {}, { dataDir });
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const { ok, converges } = convergenceHarness(t, ts);
  const opts = { sections: ['saved_snippets'] };
  let id = 0;
  await converges('creating a snippet', async () => (id = (await ok(ann, 'POST', '/saved_snippets', { title: 'Hi', content: 'Hello there' })).saved_snippet_id), [ann, bob], opts);
  await converges('another snippet', () => ok(ann, 'POST', '/saved_snippets', { title: 'Bye', content: 'See you' }), [ann, bob], opts);
  await converges('editing a snippet', () => ok(ann, 'PATCH', `/saved_snippets/${id}`, { content: 'Hello again' }), [ann, bob], opts);
  await converges('deleting a snippet', () => ok(ann, 'DELETE', `/saved_snippets/${id}`), [ann, bob], opts);
  t.test('after a restart', async (t) => {
    const before = await ok(ann, 'GET', '/saved_snippets');
    await ts.close();
    const again = await startTestServer(t, {}, { dataDir });
    const after = await again.as(ann)('GET', '/saved_snippets');
    t.same(after.body, before, 'the same snippets');
  });
});
