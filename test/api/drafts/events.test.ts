import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { convergenceHarness, type Viewer } from '../../helpers/convergence.js';
import { createUser, startTestServer } from '../../helpers/server.js';

/** Drafts events converge; enable_drafts_synchronization = false; drafts survive a restart. */

t.test('drafts events converge with a fresh /register, for the author only', async (t) => {
  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const viewers: Viewer[] = [ann, bob];
  const { ok, converges } = convergenceHarness(t, ts);
  const opts = { sections: ['drafts'] };
  let ids: number[] = [];
  await converges('creating drafts', async () => {
    ids = (await ok(ann, 'POST', '/drafts', { drafts: [{ type: 'stream', to: [1], topic: 'a', content: 'one', timestamp: 10 }, { type: '', to: [], topic: '', content: 'two', timestamp: 30 }] })).ids;
  }, viewers, opts);
  await converges('editing a draft', () => ok(ann, 'PATCH', `/drafts/${ids[0]}`, { draft: { type: 'private', to: [bob.userId], topic: '', content: 'one, edited', timestamp: 40 } }), viewers, opts);
  await converges('deleting a draft', () => ok(ann, 'DELETE', `/drafts/${ids[1]}`), viewers, opts);

  t.test('/register sends the most recently edited first', async (t) => {
    await ok(bob, 'POST', '/drafts', { drafts: [{ type: '', to: [], topic: '', content: 'old', timestamp: 5 }, { type: '', to: [], topic: '', content: 'new', timestamp: 50 }, { type: '', to: [], topic: '', content: 'mid', timestamp: 20 }] });
    const reg = await ok(bob, 'POST', '/register', { fetch_event_types: ['drafts'] });
    t.same(reg.drafts.map((d: { content: string }) => d.content), ['new', 'mid', 'old'], 'newest first');
    const got = await ok(bob, 'GET', '/drafts');
    t.same(got.drafts.map((d: { content: string }) => d.content), ['old', 'mid', 'new'], 'GET /drafts: oldest first');
  });

  t.test('enable_drafts_synchronization = false deletes the drafts without events and refuses the endpoints', async (t) => {
    const reg = await ok(ann, 'POST', '/register', { event_types: ['drafts', 'user_settings'] });
    t.ok(reg.drafts.length > 0, 'ann has drafts');
    await ok(ann, 'PATCH', '/settings', { enable_drafts_synchronization: false });
    const got = await ok(ann, 'GET', '/events', { queue_id: reg.queue_id, last_event_id: -1, dont_block: true });
    t.same(got.events.map((e: { type: string }) => e.type), ['user_settings'], 'only the setting changes, no drafts event');
    for (const [method, path, params] of [
      ['GET', '/drafts', {}],
      ['POST', '/drafts', { drafts: [] }],
      ['PATCH', `/drafts/${ids[0]}`, { draft: { type: '', to: [], topic: '', content: 'x' } }],
      ['DELETE', `/drafts/${ids[0]}`, {}],
    ] as const) {
      const res = await ts.as(ann)(method, path, { params });
      t.same([res.status, res.body.msg], [400, 'User has disabled synchronizing drafts.'], `${method} ${path} refused`);
    }
    const fresh = await ok(ann, 'POST', '/register', { fetch_event_types: ['drafts'] });
    t.same(fresh.drafts, [], 'the drafts are gone from /register');
    await ok(ann, 'PATCH', '/settings', { enable_drafts_synchronization: true });
    const again = await ok(ann, 'GET', '/drafts');
    t.same(again.drafts, [], 'turning it back on brings nothing back');
    const bobs = await ok(bob, 'GET', '/drafts');
    t.equal(bobs.count, 3, "another user's drafts are untouched");
  });
});

t.test('drafts survive a restart, ids keep increasing', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-test-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startTestServer(t, {}, { dataDir });
  const made = await first.request('POST', '/drafts', { params: { drafts: [{ type: 'stream', to: [1], topic: 'kept', content: 'across restarts', timestamp: 77 }] } });
  const before = (await first.request('GET', '/drafts')).body.drafts;
  await first.close();
  const second = await startTestServer(t, {}, { dataDir });
  t.same((await second.request('GET', '/drafts')).body.drafts, before, 'the same drafts');
  const next = await second.request('POST', '/drafts', { params: { drafts: [{ type: '', to: [], topic: '', content: 'new' }] } });
  t.ok(next.body.ids[0] > made.body.ids[0], 'a new id after the restart');
});
