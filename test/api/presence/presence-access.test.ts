import t from 'tap';
import { startWorld } from '../streams/world.js';

/** Presence across bots, roles and realms. */
t.test('presence access', async (t) => {
  const w = await startWorld(t);
  const { hamlet, polonius, bot } = w.root;
  const other = w.other;
  const ping = (client: ReturnType<typeof w.as>) => client('POST', '/users/me/presence', { params: { status: 'active' } });

  t.test('POST /users/me/presence: bots are refused', async (t) => {
    const res = await ping(w.as(bot));
    t.same(res.body, { result: 'error', msg: 'This endpoint does not accept bot requests.', code: 'BAD_REQUEST' }, 'the reference\'s error');
    const lookup = await w.as(hamlet)('GET', `/users/${bot.userId}/presence`);
    t.same(lookup.body, { result: 'error', msg: 'Presence is not supported for bot users.', code: 'BAD_REQUEST' }, 'and a bot has none to read');
  });

  t.test('GET /realm/presence: a guest sees the realm\'s presence', async (t) => {
    t.equal((await ping(w.as(hamlet))).status, 200, 'hamlet reports');
    const res = await w.as(polonius)('GET', '/realm/presence');
    t.same(Object.keys(res.body.presences), [hamlet.email], 'hamlet is listed');
  });

  t.test('presence does not cross realms', async (t) => {
    t.equal((await ping(w.asOther(other.hamlet))).status, 200, 'the other realm\'s hamlet reports');
    const root = await w.as(hamlet)('GET', '/realm/presence');
    t.notOk(other.hamlet.email in root.body.presences, 'not visible in the root realm');
    const otherView = await w.asOther(other.othello)('GET', '/realm/presence');
    t.same(Object.keys(otherView.body.presences), [other.hamlet.email], 'the other realm sees only its own');
    const lookup = await w.as(hamlet)('GET', `/users/${other.hamlet.email}/presence`);
    t.equal(lookup.body.msg, 'No such user', 'a user of another realm is unknown');
    const queue = await w.as(hamlet)('POST', '/register', { params: { fetch_event_types: ['presence'], slim_presence: true } });
    t.same(Object.keys(queue.body.presences), [String(hamlet.userId)], '/register too');
  });
});
