import t from 'tap';
import { checkEvent } from '../../helpers/openapi.js';
import { createUser, startTestServer } from '../../helpers/server.js';

/** POST /users/me/presence, GET /realm/presence, GET /users/{user}/presence, presence events and /register's presences. */
t.test('presence', async (t) => {
  const ts = await startTestServer(t, { heartbeatSeconds: 1 });
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const cy = await createUser(ts, 'cy@example.com', 'Cy');
  const ping = (who: typeof ann, params: Record<string, unknown>) => ts.as(who)('POST', '/users/me/presence', { params });
  const now = () => Math.floor(Date.now() / 1000);

  const annQueue = (await ts.as(ann)('POST', '/register', { params: { event_types: ['presence'] } })).body.queue_id as string;

  t.test('POST /users/me/presence: reports, and answers with everyone\'s presence in the legacy format', async (t) => {
    const before = now();
    const res = await ping(bob, { status: 'active', new_user_input: true });
    t.equal(res.status, 200, 'accepted');
    const entry = res.body.presences[bob.email];
    t.same(Object.keys(res.body.presences), [bob.email], 'keyed by email; only Bob has reported');
    t.match(entry, { aggregated: { client: 'website', status: 'active' }, website: { client: 'website', status: 'active', pushable: false } }, 'the legacy shape');
    t.ok(entry.website.timestamp >= before && entry.website.timestamp <= now(), 'timestamped now');
    t.type(res.body.server_timestamp, 'number', 'server_timestamp');
    t.ok(res.body.presence_last_update_id > 0, 'the update id of the data');
  });

  t.test('POST /users/me/presence: coming online is announced to the realm', async (t) => {
    const got = await ts.as(ann)('GET', '/events', { params: { queue_id: annQueue, last_event_id: -1, dont_block: true } });
    t.equal(got.body.events.length, 1, 'one event for Bob\'s first report');
    const [event] = got.body.events;
    t.match(event, { type: 'presence', user_id: bob.userId, email: bob.email, presence: { website: { client: 'website', status: 'active', pushable: false } } }, 'the presence event');
    t.doesNotThrow(() => checkEvent(event), 'matches the reference event schema');
    await ping(bob, { status: 'active' });
    const again = await ts.as(ann)('GET', '/events', { params: { queue_id: annQueue, last_event_id: 0, dont_block: true } });
    t.same(again.body.events, [], 'a report a moment later announces nothing');
  });

  t.test('POST /users/me/presence: the modern format and incremental fetches', async (t) => {
    const slim = await ping(ann, { status: 'idle', slim_presence: true });
    t.same(Object.keys(slim.body.presences).sort(), [String(ann.userId), String(bob.userId)].sort(), 'slim_presence: keyed by user id');
    t.same(Object.keys(slim.body.presences[String(bob.userId)]).sort(), ['active_timestamp', 'idle_timestamp'], 'the two timestamps');
    const first = await ping(ann, { status: 'idle', last_update_id: -1 });
    t.same(Object.keys(first.body.presences).sort(), [String(ann.userId), String(bob.userId)].sort(), 'last_update_id -1: everything, modern format');
    const since = first.body.presence_last_update_id;
    const nothing = await ping(ann, { status: 'idle', last_update_id: since });
    t.same(nothing.body.presences, {}, 'nothing changed since');
    t.equal(nothing.body.presence_last_update_id, since, 'and the same id comes back');
    await ping(cy, { status: 'active' });
    const changed = await ping(ann, { status: 'idle', last_update_id: since });
    t.same(Object.keys(changed.body.presences), [String(cy.userId)], 'only what changed: Cy');
    t.ok(changed.body.presence_last_update_id > since, 'a newer id');
    const none = await ping(ann, { status: 'idle', last_update_id: -1, history_limit_days: 0 });
    t.same(none.body.presences, {}, 'history_limit_days 0: no data');
  });

  t.test('POST /users/me/presence: ping_only', async (t) => {
    const res = await ping(bob, { status: 'idle', ping_only: true });
    t.same(res.body, { result: 'success', msg: '' }, 'no presence data in the answer');
  });

  t.test('GET /realm/presence: everyone, legacy format', async (t) => {
    const res = await ts.as(cy)('GET', '/realm/presence');
    t.same(Object.keys(res.body.presences).sort(), [ann.email, bob.email, cy.email].sort(), 'keyed by email');
    t.notOk('presence_last_update_id' in res.body, 'no update id here');
    t.match(res.body.presences[cy.email], { aggregated: { status: 'active' } }, 'Cy is active');
  });

  t.test('GET /users/{user_id_or_email}/presence', async (t) => {
    const byId = await ts.as(ann)('GET', `/users/${bob.userId}/presence`);
    t.same(Object.keys(byId.body.presence).sort(), ['aggregated', 'website'], 'the two entries');
    t.same(Object.keys(byId.body.presence.website).sort(), ['status', 'timestamp'], 'without client or pushable');
    const byEmail = await ts.as(ann)('GET', `/users/${bob.email}/presence`);
    t.same(byEmail.body.presence, byId.body.presence, 'by email too');
  });

  t.test('presence errors', async (t) => {
    t.same((await ping(ann, { status: 'away' })).body, { result: 'error', msg: 'Invalid status: away', code: 'BAD_REQUEST' }, 'status is active or idle');
    t.same((await ping(ann, {})).body, { result: 'error', msg: "Missing 'status' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'status' }, 'status is required');
    t.equal((await ping(ann, { status: 'active', last_update_id: 'x' })).body.code, 'REQUEST_VARIABLE_INVALID', 'last_update_id is an integer');
    const dave = await createUser(ts, 'dave@example.com', 'Dave');
    t.same((await ts.as(ann)('GET', `/users/${dave.userId}/presence`)).body, { result: 'error', msg: `No presence data for ${dave.userId}`, code: 'BAD_REQUEST' }, 'a user who never reported');
    t.same((await ts.as(ann)('GET', '/users/99999/presence')).body, { result: 'error', msg: 'No such user', code: 'BAD_REQUEST' }, 'an unknown user');
    await ping(dave, { status: 'active' });
    t.equal((await ts.request('DELETE', `/users/${dave.userId}`)).status, 200, 'Dave is deactivated');
    t.equal((await ts.as(ann)('GET', `/users/${dave.userId}/presence`)).body.msg, 'No such user', 'a deactivated user has no presence');
    t.notOk(dave.email in (await ts.as(ann)('GET', '/realm/presence')).body.presences, 'nor in the realm\'s');
    t.equal((await ts.request('GET', '/realm/presence', { auth: null })).status, 401, 'credentials are required');
  });

  t.test('POST /register: presences and presence_last_update_id', async (t) => {
    const legacy = (await ts.as(ann)('POST', '/register', { params: { fetch_event_types: ['presence'] } })).body;
    t.same(Object.keys(legacy.presences).sort(), [ann.email, bob.email, cy.email].sort(), 'legacy format by default');
    const slim = (await ts.as(ann)('POST', '/register', { params: { fetch_event_types: ['presence'], slim_presence: true } })).body;
    t.same(Object.keys(slim.presences).sort(), [ann.userId, bob.userId, cy.userId].map(String).sort(), 'slim_presence: by user id');
    const latest = await ping(ann, { status: 'idle', last_update_id: -1 });
    t.equal(slim.presence_last_update_id, latest.body.presence_last_update_id, 'the newest update id');
    const none = (await ts.as(ann)('POST', '/register', { params: { fetch_event_types: ['presence'], presence_history_limit_days: 0 } })).body;
    t.same(none.presences, {}, 'presence_history_limit_days 0: none');
    t.equal(none.presence_last_update_id, -1, 'and -1');
  });
});
