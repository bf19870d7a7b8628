import t from 'tap';
import { checkEvent } from '../../helpers/openapi.js';
import { createUser, startTestServer } from '../../helpers/server.js';

/** Invisible mode: presence_enabled off hides a user's presence, as the reference does. */
t.test('invisible mode', async (t) => {
  const ts = await startTestServer(t, { heartbeatSeconds: 1 });
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const ping = (who: typeof ann) => ts.as(who)('POST', '/users/me/presence', { params: { status: 'active' } });
  const setPresence = (who: typeof ann, on: boolean) => ts.as(who)('PATCH', '/settings', { params: { presence_enabled: on } });
  const now = () => Math.floor(Date.now() / 1000);
  const aggregated = async () => (await ts.as(bob)('GET', `/users/${ann.userId}/presence`)).body.presence.aggregated;

  await ping(ann);
  const queue = (await ts.as(bob)('POST', '/register', { params: { event_types: ['presence'] } })).body.queue_id as string;
  let lastEventId = -1;
  const events = async () => {
    const res = await ts.as(bob)('GET', '/events', { params: { queue_id: queue, last_event_id: lastEventId, dont_block: true } });
    const got = res.body.events.filter((e: { type: string }) => e.type === 'presence');
    if (res.body.events.length) lastEventId = res.body.events.at(-1).id;
    return got;
  };

  t.test('turning it off: the realm sees the user offline at once', async (t) => {
    t.equal((await aggregated()).status, 'active', 'Ann is online before');
    const before = now();
    t.equal((await setPresence(ann, false)).status, 200, 'setting accepted');
    const [event, ...rest] = await events();
    t.same(rest, [], 'one presence event');
    t.match(event, { type: 'presence', user_id: ann.userId, email: ann.email, presence: { website: { client: 'website' } } }, 'Ann\'s presence event');
    t.doesNotThrow(() => checkEvent(event), 'matches the reference event schema');
    t.ok(before - event.presence.website.timestamp > 200, 'last seen past the offline threshold');
    t.equal((await aggregated()).status, 'offline', 'GET presence: offline');
  });

  t.test('while invisible, reports change nothing', async (t) => {
    const before = await aggregated();
    t.equal((await ping(ann)).status, 200, 'the report is accepted');
    t.same(await aggregated(), before, 'and ignored');
    t.same(await events(), [], 'no presence event');
    const realm = await ts.as(bob)('GET', '/realm/presence');
    t.ok(now() - realm.body.presences[ann.email].aggregated.timestamp > 200, 'GET /realm/presence: Ann last seen past the offline threshold');
  });

  t.test('turning it back on: online again, announced', async (t) => {
    const before = now();
    await setPresence(ann, true);
    const [event] = await events();
    t.match(event, { type: 'presence', user_id: ann.userId, presence: { website: { status: 'active' } } }, 'Ann is announced active');
    t.ok(event.presence.website.timestamp >= before, 'as of now');
    t.equal((await aggregated()).status, 'active', 'GET presence: active');
  });
});
