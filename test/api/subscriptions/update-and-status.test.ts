import t from 'tap';
import { convergenceHarness } from '../../helpers/convergence.js';
import { listen } from '../streams/queues.js';
import { startWorld, streamId, subscribe } from '../streams/world.js';

t.test('PATCH /users/me/subscriptions', async (t) => {
  const w = await startWorld(t);
  const { owner, hamlet, othello, polonius } = w.root;
  await subscribe(w.as(owner), ['old news']);
  await subscribe(w.as(owner), ['vault'], { invite_only: true });
  await subscribe(w.as(hamlet), ['old news']);
  const names = async () => ((await w.as(hamlet)('GET', '/users/me/subscriptions')).body.subscriptions as { name: string; color: string }[]).map((s) => s.name).sort();
  const patch = (params: Record<string, unknown>, who = hamlet) => w.as(who)('PATCH', '/users/me/subscriptions', { params });

  t.test('adding and removing in one request', async (t) => {
    const q = await listen(w.as(hamlet), { event_types: ['subscription', 'stream'] });
    const res = await patch({ add: [{ name: 'fresh', description: 'new here', color: '#123456' }, { name: 'general' }], delete: ['old news'] });
    t.same(res.body, {
      result: 'success',
      msg: '',
      subscribed: { [hamlet.userId]: ['fresh'] },
      already_subscribed: { [hamlet.userId]: ['general'] },
      removed: ['old news'],
      not_removed: [],
    }, 'both results in one answer');
    t.same(await names(), ['fresh', 'general'], 'done');
    const colour = ((await w.as(hamlet)('GET', '/users/me/subscriptions')).body.subscriptions as { name: string; color: string }[]).find((s) => s.name === 'fresh')!.color;
    t.equal(colour, '#123456', 'with the colour asked for');
    t.same((await q.drain(t)).map((e) => `${e.type} ${e.op}`), ['stream create', 'subscription add', 'subscription remove'], 'the channel created, the add, then the removal');
    t.same((await patch({ delete: ['old news'] })).body.not_removed, ['old news'], 'leaving a channel one is not in');
  });

  t.test('all or nothing', async (t) => {
    const before = await names();
    const bad = await patch({ add: [{ name: 'another' }], delete: ['no such channel'] });
    t.match(bad.body, { result: 'error', code: 'STREAM_DOES_NOT_EXIST', stream: 'no such channel' }, 'a bad delete');
    t.same(await names(), before, 'refuses the add too');
    t.match((await patch({ add: [{ name: 'vault' }], delete: ['general'] })).body, { msg: 'Unable to access channel (vault).' }, 'a bad add');
    t.same(await names(), before, 'refuses the delete too');
    t.match((await patch({})).body, { msg: 'Nothing to do. Specify at least one of "add" or "delete".' }, 'neither');
    t.match((await patch({ add: [], delete: [] })).body, { msg: 'Nothing to do. Specify at least one of "add" or "delete".' }, 'two empty lists');
    t.match((await patch({ add: [{ color: '#000000' }] })).body, { code: 'REQUEST_VARIABLE_MISSING' }, 'a channel without a name');
    t.match((await patch({ delete: ['general'] }, polonius)).body, { msg: 'Not allowed for guest users' }, 'guests may not, as with POST');
    t.equal((await patch({ delete: ['general'] }, othello)).status, 200, 'a member may just leave');
  });

  t.test('clients applying the events converge', async (t) => {
    const { converges } = convergenceHarness(t, w.ts);
    await converges('one request adding and removing', () => patch({ add: [{ name: 'old news' }], delete: ['fresh'] }), [hamlet, owner, polonius]);
  });
});

t.test('GET /users/{user_id}/subscriptions/{stream_id}', async (t) => {
  const w = await startWorld(t);
  const { owner, admin, hamlet, othello, polonius, bot } = w.root;
  await subscribe(w.as(othello), ['secret'], { invite_only: true });
  await subscribe(w.as(owner), ['lounge']);
  const general = await streamId(w.as(owner), 'general');
  const secret = await streamId(w.as(owner), 'secret');
  const lounge = await streamId(w.as(owner), 'lounge');
  const status = (who: typeof owner, userId: number, streamId: number) => w.as(who)('GET', `/users/${userId}/subscriptions/${streamId}`);

  t.same((await status(hamlet, othello.userId, general)).body, { result: 'success', msg: '', is_subscribed: true }, 'subscribed');
  t.same((await status(hamlet, othello.userId, lounge)).body.is_subscribed, false, 'not subscribed');
  t.same((await status(hamlet, hamlet.userId, general)).body.is_subscribed, true, 'oneself');
  t.same((await status(admin, othello.userId, secret)).body.is_subscribed, true, 'an administrator, about a private channel');
  t.same((await status(othello, owner.userId, secret)).body.is_subscribed, false, 'a subscriber, about a private channel');
  t.match((await status(hamlet, othello.userId, secret)).body, { msg: 'Invalid channel ID' }, 'a private channel the user cannot see');
  t.match((await status(polonius, owner.userId, lounge)).body, { msg: 'Invalid channel ID' }, "a guest, a channel they do not see");
  t.same((await status(polonius, owner.userId, general)).body.is_subscribed, true, 'a guest, their own channel');
  t.match((await status(hamlet, 9999, general)).body, { msg: 'No such user' }, 'an unknown user');
  t.match((await status(hamlet, bot.userId, general)).body, { msg: 'No such user' }, 'a bot, as the reference answers');
  t.match((await status(hamlet, othello.userId, 9999)).body, { msg: 'Invalid channel ID' }, 'an unknown channel');
  t.match((await w.asOther(w.other.hamlet)('GET', `/users/${othello.userId}/subscriptions/${general}`)).body, { msg: 'No such user' }, "another realm's user");
  await w.as(owner)('DELETE', `/users/${othello.userId}`);
  t.match((await status(hamlet, othello.userId, general)).body, { msg: 'User is deactivated' }, 'a deactivated user');
});

t.test('GET /users/{user_id}/subscriptions/{stream_id}: a guest who may not see a user', async (t) => {
  const w = await startWorld(t, { groupSettings: { can_access_all_users_group: 'role:members' } });
  const { owner, hamlet, othello, polonius } = w.root;
  await subscribe(w.as(owner), ['lounge']);
  await w.as(owner)('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['general'], principals: [othello.userId] } });
  const general = await streamId(w.as(owner), 'general');
  t.same((await w.as(polonius)('GET', `/users/${hamlet.userId}/subscriptions/${general}`)).body.is_subscribed, true, 'someone who shares a channel with the guest');
  t.match((await w.as(polonius)('GET', `/users/${othello.userId}/subscriptions/${general}`)).body, { msg: 'Insufficient permission' }, 'someone the guest cannot access');
});
