import t from 'tap';
import { convergenceHarness } from '../../helpers/convergence.js';
import { createUser } from '../../helpers/server.js';
import { listen } from '../streams/queues.js';
import { startWorld, streamId, subscribe } from '../streams/world.js';

const ADMIN_ONLY = { result: 'error', msg: 'Must be an organization administrator', code: 'UNAUTHORIZED_PRINCIPAL' };

t.test('POST and DELETE /default_streams', async (t) => {
  const w = await startWorld(t);
  const { owner, admin, hamlet, polonius } = w.root;
  await subscribe(w.as(hamlet), ['welcome']);
  await subscribe(w.as(hamlet), ['hideout'], { invite_only: true });
  await subscribe(w.as(admin), ['admins only'], { invite_only: true });
  const welcome = await streamId(w.as(owner), 'welcome');
  const hideout = await streamId(w.as(owner), 'hideout');
  const general = await streamId(w.as(owner), 'general');
  const defaults = async (who = admin) => (await w.as(who)('POST', '/register', { params: { fetch_event_types: ['default_streams'] } })).body.realm_default_streams;

  t.test('adding and removing, with the events', async (t) => {
    const members = await listen(w.as(hamlet), { event_types: ['default_streams'] });
    const guests = await listen(w.as(polonius), { event_types: ['default_streams'] });
    t.same((await w.as(admin)('POST', '/default_streams', { params: { stream_id: welcome } })).body, { result: 'success', msg: '' }, 'added');
    t.same(await members.drain(t), [{ type: 'default_streams', default_streams: [general, welcome].sort((a, b) => a - b) }], 'members hear the new list of ids');
    t.same(await guests.drain(t), [], 'guests, who see no default channels, hear nothing');
    t.same(await defaults(), [general, welcome].sort((a, b) => a - b), 'in /register');
    t.same(await defaults(polonius), [], 'a guest sees none');
    t.equal((await w.as(admin)('POST', '/default_streams', { params: { stream_id: welcome } })).status, 200, 'adding it again is fine');
    t.same(await members.drain(t), [], 'and changes nothing');
    const streams = await w.as(hamlet)('GET', '/streams', { params: { include_default: true } });
    t.equal(streams.body.streams.find((s: { stream_id: number }) => s.stream_id === welcome).is_default, true, 'GET /streams include_default');

    const newcomer = await createUser(w.ts, 'newcomer@example.com', 'Newcomer');
    const subs = (await w.ts.as(newcomer)('GET', '/users/me/subscriptions')).body.subscriptions.map((s: { name: string }) => s.name);
    t.same(subs.sort(), ['general', 'welcome'], 'a new user joins the default channels');

    t.equal((await w.as(owner)('DELETE', '/default_streams', { params: { stream_id: welcome } })).status, 200, 'removed');
    t.same(await members.drain(t), [{ type: 'default_streams', default_streams: [general] }], 'announced');
    t.equal((await w.as(owner)('DELETE', '/default_streams', { params: { stream_id: welcome } })).status, 200, 'removing one that is not default is fine');
  });

  t.test('errors and permissions', async (t) => {
    t.match((await w.as(admin)('POST', '/default_streams', { params: { stream_id: hideout } })).body, { msg: 'Invalid channel ID' }, 'a private channel one cannot read');
    t.match((await w.as(hamlet)('POST', '/default_streams', { params: { stream_id: hideout } })).body, ADMIN_ONLY, 'members may not, even in their own channel');
    const adminsOnly = await streamId(w.as(owner), 'admins only');
    t.match((await w.as(admin)('POST', '/default_streams', { params: { stream_id: adminsOnly } })).body, { msg: 'Private channels cannot be made default.', code: 'BAD_REQUEST' }, 'a private channel');
    t.match((await w.as(admin)('POST', '/default_streams', { params: { stream_id: 9999 } })).body, { msg: 'Invalid channel ID' }, 'an unknown channel');
    t.match((await w.as(admin)('POST', '/default_streams', { params: {} })).body, { code: 'REQUEST_VARIABLE_MISSING' }, 'no channel');
    t.same((await w.as(polonius)('DELETE', '/default_streams', { params: { stream_id: general } })).body, ADMIN_ONLY, 'guests may not remove');
    t.match((await w.as(admin)('DELETE', '/default_streams', { params: { stream_id: 9999 } })).body, { msg: 'Invalid channel ID' }, 'removing an unknown channel');
    t.equal((await w.as(admin)('DELETE', '/default_streams', { params: { stream_id: hideout } })).status, 200, 'an administrator may remove a private channel they can see exists');
    await w.asOther(w.other.owner)('POST', '/default_streams', { params: { stream_id: welcome } }).then((r) => t.match(r.body, { msg: 'Invalid channel ID' }, "another realm's channel"));
    t.same(await defaults(), [general], 'the errors changed nothing');
  });

  t.test('clients applying the events converge', async (t) => {
    const { converges } = convergenceHarness(t, w.ts);
    const viewers = [owner, hamlet, polonius];
    await converges('a default channel added', () => w.as(admin)('POST', '/default_streams', { params: { stream_id: welcome } }), viewers, { sections: ['realm_default_streams'] });
    await converges('and removed', () => w.as(admin)('DELETE', '/default_streams', { params: { stream_id: welcome } }), viewers, { sections: ['realm_default_streams'] });
  });
});
