import t from 'tap';
import { startWorld, subscribe } from '../streams/world.js';

const names = (res: { body: { subscriptions: { name: string }[] } }) => res.body.subscriptions.map((s) => s.name);

t.test('POST /users/me/subscriptions: subscribing other users', async (t) => {
  const w = await startWorld(t);
  const { owner, admin, hamlet, othello, polonius, bot } = w.root;
  await subscribe(w.as(othello), ['othello-private'], { invite_only: true });
  await subscribe(w.as(hamlet), ['Verona']);

  t.test('POST /users/me/subscriptions: principals by id and by email', async (t) => {
    const res = await w.as(hamlet)('POST', '/users/me/subscriptions', {
      params: { subscriptions: [{ name: 'Verona' }], principals: [othello.userId, hamlet.userId] },
    });
    t.equal(res.status, 200, 'status 200');
    t.same(res.body.subscribed, { [othello.userId]: ['Verona'] }, 'othello was subscribed');
    t.same(res.body.already_subscribed, { [hamlet.userId]: ['Verona'] }, 'hamlet was already');
    const byEmail = await w.as(hamlet)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'Mantua' }], principals: [othello.email.toUpperCase()] } });
    t.same(byEmail.body.subscribed, { [othello.userId]: ['Mantua'] }, 'emails match without regard to case');
    t.same(names(await w.as(othello)('GET', '/users/me/subscriptions')), ['Mantua', 'Verona', 'general', 'othello-private'], 'othello has the new channels');
    t.notOk(names(await w.as(hamlet)('GET', '/users/me/subscriptions')).includes('Mantua'), 'the creator subscribed only othello to Mantua');
  });

  t.test('POST /users/me/subscriptions: an empty principals list means the caller', async (t) => {
    const res = await w.as(hamlet)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'Mantua' }], principals: [] } });
    t.same(res.body.subscribed, { [hamlet.userId]: ['Mantua'] }, 'hamlet subscribed himself');
  });

  t.test('POST /users/me/subscriptions: a private channel the caller cannot access', async (t) => {
    const fatal = await w.as(hamlet)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'othello-private' }] } });
    t.equal(fatal.status, 400, 'status 400');
    t.same(fatal.body, { result: 'error', msg: 'Unable to access channel (othello-private).', code: 'BAD_REQUEST' }, 'the reference error');
    const soft = await w.as(hamlet)('POST', '/users/me/subscriptions', {
      params: { subscriptions: [{ name: 'othello-private' }, { name: 'Padua' }], authorization_errors_fatal: false },
    });
    t.equal(soft.status, 200, 'with authorization_errors_fatal=false the rest goes ahead');
    t.same(soft.body.unauthorized, ['othello-private'], 'the private channel is listed as unauthorized');
    t.same(soft.body.subscribed, { [hamlet.userId]: ['Padua'] }, 'Padua was created and joined');
    const adminTry = await w.as(admin)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'othello-private' }] } });
    t.equal(adminTry.body.msg, 'Unable to access channel (othello-private).', 'administrators lack content access to private channels too');
    t.notOk(names(await w.as(hamlet)('GET', '/users/me/subscriptions')).includes('othello-private'), 'hamlet is not in it');
  });

  t.test('POST /users/me/subscriptions: a subscriber of a private channel may add others', async (t) => {
    const res = await w.as(othello)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'othello-private' }], principals: [hamlet.userId] } });
    t.same(res.body.subscribed, { [hamlet.userId]: ['othello-private'] }, 'hamlet was added');
    const view = await w.as(hamlet)('GET', '/users/me/subscriptions', { params: { include_subscribers: true } });
    const sub = view.body.subscriptions.find((s: { name: string }) => s.name === 'othello-private');
    t.same(sub.subscribers, [hamlet.userId, othello.userId].sort((a, b) => a - b), 'hamlet now sees its subscribers');
  });

  t.test('POST /users/me/subscriptions: an administrator subscribes a guest', async (t) => {
    const res = await w.as(admin)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'Verona' }], principals: [polonius.email] } });
    t.same(res.body.subscribed, { [polonius.userId]: ['Verona'] }, 'the guest was subscribed');
    t.same(names(await w.as(polonius)('GET', '/users/me/subscriptions')), ['Verona', 'general'], 'the guest has the channel');
    const listed = await w.as(polonius)('GET', '/streams');
    t.same(listed.body.streams.map((s: { name: string }) => s.name), ['Verona', 'general'], 'and can now see it');
  });

  t.test("POST /users/me/subscriptions: a member subscribes their bot", async (t) => {
    const res = await w.as(hamlet)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'Verona' }], principals: [bot.userId] } });
    t.same(res.body.subscribed, { [bot.userId]: ['Verona'] }, 'bots can be principals');
  });

  t.test('POST /users/me/subscriptions: the owner subscribes someone to a channel the owner creates', async (t) => {
    const res = await w.as(owner)('POST', '/users/me/subscriptions', {
      params: { subscriptions: [{ name: 'owners-pick' }], principals: [othello.userId], invite_only: true },
    });
    t.same(res.body.subscribed, { [othello.userId]: ['owners-pick'] }, 'only othello is subscribed');
    const view = await w.as(othello)('GET', '/users/me/subscriptions');
    t.ok(names(view).includes('owners-pick'), 'othello is in the private channel');
  });
});

t.test('POST /users/me/subscriptions: who may add subscribers follows can_add_subscribers_group', async (t) => {
  const w = await startWorld(t, { groupSettings: { can_add_subscribers_group: 'role:administrators' } });
  const { admin, hamlet, othello } = w.root;
  await subscribe(w.as(hamlet), ['Verona']);
  await subscribe(w.as(hamlet), ['guarded'], { can_add_subscribers_group: { direct_members: [hamlet.userId], direct_subgroups: [] } });

  t.test('POST /users/me/subscriptions: a member may not subscribe others when only administrators may', async (t) => {
    const res = await w.as(othello)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'Verona' }], principals: [hamlet.userId, othello.userId] } });
    t.equal(res.status, 400, 'status 400');
    t.same(res.body, { result: 'error', msg: 'Insufficient permission', code: 'BAD_REQUEST' }, 'insufficient permission');
    const view = await w.as(othello)('GET', '/users/me/subscriptions');
    t.notOk(view.body.subscriptions.some((s: { name: string }) => s.name === 'Verona'), 'nothing changed, not even for othello');
    const self = await w.as(othello)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'Verona' }], principals: [othello.userId] } });
    t.equal(self.status, 200, 'subscribing oneself is still fine');
    const byAdmin = await w.as(admin)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'Verona' }], principals: [w.root.owner.userId] } });
    t.equal(byAdmin.status, 200, 'an administrator may');
  });

  t.test("POST /users/me/subscriptions: the channel's can_add_subscribers_group also grants it", async (t) => {
    const res = await w.as(hamlet)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'guarded' }], principals: [othello.userId] } });
    t.equal(res.status, 200, 'hamlet is in the channel\'s group');
    t.same(res.body.subscribed, { [othello.userId]: ['guarded'] }, 'othello was subscribed');
  });
});
