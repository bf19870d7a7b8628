import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { convergenceHarness } from '../../helpers/convergence.js';
import { createUser, startTestServer } from '../../helpers/server.js';

// POST /channels/create (feature level 417), as the reference's API test suite calls it
// (python_examples.add_channel): {name, description, subscribers: []} -> {id}.
t.test('POST /channels/create', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-test-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const ts = await startTestServer(t, {}, { dataDir });
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const guest = await createUser(ts, 'guest@example.com', 'Guest');
  t.equal((await ts.request('PATCH', `/users/${guest.userId}`, { params: { role: 600 } })).status, 200, 'the owner makes Guest a guest');
  const { ok, converges } = convergenceHarness(t, ts);

  t.test('with no subscribers: the channel exists, nobody (not even its creator) is subscribed', async (t) => {
    const res = await ts.as(ann)('POST', '/channels/create', { params: { name: 'music_group', description: 'Channel for discussing and learning about music.', subscribers: [] } });
    t.equal(res.status, 200, '200, and the documented {id}');
    const id = res.body.id;
    const stream = (await ts.as(ann)('GET', `/streams/${id}`)).body.stream;
    t.match(stream, { name: 'music_group', description: 'Channel for discussing and learning about music.', invite_only: false, creator_id: ann.userId }, 'as asked, created by Ann');
    const subs = (await ts.as(ann)('GET', '/users/me/subscriptions')).body.subscriptions;
    t.notOk(subs.some((s: any) => s.stream_id === id), 'Ann is not subscribed');
    t.equal((await ts.as(ann)('GET', '/get_stream_id', { params: { stream: 'music_group' } })).body.stream_id, id, 'found by name');
  });

  await converges('a private channel with subscribers: they, and only they, get it', async () => {
    const body = await ok(ann, 'POST', '/channels/create', { name: 'secret plans', subscribers: [ann.userId, bob.userId], invite_only: true });
    const bobSubs = (await ts.as(bob)('GET', '/users/me/subscriptions')).body.subscriptions;
    t.ok(bobSubs.some((s: any) => s.stream_id === body.id && s.invite_only), 'Bob is subscribed to the private channel');
    const guestView = await ts.as(guest)('GET', `/streams/${body.id}`);
    t.equal(guestView.status, 400, 'a non-subscriber does not see it');
  }, [ann, bob, guest]);

  t.test('errors', async (t) => {
    const taken = await ts.as(bob)('POST', '/channels/create', { params: { name: 'Music_Group', subscribers: [] } });
    t.same([taken.status, taken.body.msg], [400, "Channel 'Music_Group' already exists"], 'a name taken (ignoring case)');
    const noSuch = await ts.as(bob)('POST', '/channels/create', { params: { name: 'fresh', subscribers: [9999] } });
    t.same([noSuch.status, noSuch.body.msg], [400, 'No such user'], 'an unknown subscriber');
    const emails = await ts.as(bob)('POST', '/channels/create', { params: { name: 'fresh', subscribers: ['ann@example.com'] } });
    t.equal(emails.status, 400, 'subscribers are user IDs');
    const missing = await ts.as(bob)('POST', '/channels/create', { params: { name: 'fresh' } });
    t.same([missing.status, missing.body.code], [400, 'REQUEST_VARIABLE_MISSING'], 'subscribers is required');
    const empty = await ts.as(bob)('POST', '/channels/create', { params: { name: '  ', subscribers: [] } });
    t.same([empty.status, empty.body.msg], [400, "Channel name can't be empty."], 'an empty name');
    const byGuest = await ts.as(guest)('POST', '/channels/create', { params: { name: 'fresh', subscribers: [] } });
    t.same([byGuest.status, byGuest.body.msg], [400, 'Not allowed for guest users'], 'guests cannot create channels');
    const defaultByMember = await ts.as(bob)('POST', '/channels/create', { params: { name: 'fresh', subscribers: [], is_default_stream: true } });
    t.equal(defaultByMember.status, 400, 'only administrators make default channels');
    t.notOk((await ts.as(bob)('GET', '/streams')).body.streams.some((s: any) => s.name === 'fresh'), 'no refused request created anything');
  });

  t.test('after a restart the channels are still there', async (t) => {
    const before = (await ts.as(ann)('GET', '/streams')).body.streams.map((s: any) => s.name).sort();
    await ts.close();
    const again = await startTestServer(t, {}, { dataDir });
    const after = (await again.as(ann)('GET', '/streams')).body.streams.map((s: any) => s.name).sort();
    t.same(after, before, 'the same channels');
    t.ok(after.includes('music_group') && after.includes('secret plans'), 'including both created here');
  });
});
