import t from 'tap';
import { startWorld, subscribe } from '../streams/world.js';

const names = (res: { body: { subscriptions: { name: string }[] } }) => res.body.subscriptions.map((s) => s.name);

t.test('DELETE /users/me/subscriptions', async (t) => {
  const w = await startWorld(t);
  const { admin, hamlet, othello, polonius, bot } = w.root;
  await subscribe(w.as(hamlet), ['Verona', 'Mantua'], { principals: [hamlet.userId, othello.userId, bot.userId] });
  await subscribe(w.as(hamlet), ['secret'], { invite_only: true });
  await subscribe(w.asOther(w.other.hamlet), ['elsewhere']);

  t.test('DELETE /users/me/subscriptions: unsubscribes the caller, parameters in the query string as zulip-js sends them', async (t) => {
    const res = await w.as(othello)('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['Verona'] } });
    t.equal(res.status, 200, 'status 200');
    t.same(res.body.removed, ['Verona'], 'removed');
    t.same(res.body.not_removed, [], 'nothing left out');
    t.notOk(names(await w.as(othello)('GET', '/users/me/subscriptions')).includes('Verona'), 'othello left Verona');
    const again = await w.as(othello)('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['verona'] } });
    t.same(again.body, { result: 'success', msg: '', removed: [], not_removed: ['Verona'] }, 'a second time, not_removed');
  });

  t.test('DELETE /users/me/subscriptions: urlencoded body, as the Python bindings send it', async (t) => {
    const res = await w.as(othello)('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['Mantua'] }, encoding: 'form' });
    t.same(res.body.removed, ['Mantua'], 'removed');
  });

  t.test('DELETE /users/me/subscriptions: an unknown channel is an error', async (t) => {
    const res = await w.as(hamlet)('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['Verona', 'nonexistent'] } });
    t.equal(res.status, 400, 'status 400');
    t.same(res.body, { result: 'error', msg: "Channel 'nonexistent' does not exist", code: 'STREAM_DOES_NOT_EXIST', stream: 'nonexistent' }, 'the reference error');
    t.ok(names(await w.as(hamlet)('GET', '/users/me/subscriptions')).includes('Verona'), 'nothing was removed');
  });

  t.test("DELETE /users/me/subscriptions: private and other realms' channels look unknown", async (t) => {
    const hidden = await w.as(othello)('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['secret'] } });
    t.equal(hidden.body.code, 'STREAM_DOES_NOT_EXIST', 'a private channel othello cannot see');
    const elsewhere = await w.as(othello)('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['elsewhere'] } });
    t.equal(elsewhere.body.code, 'STREAM_DOES_NOT_EXIST', "realm other's channel");
  });

  t.test('DELETE /users/me/subscriptions: removing others needs permission', async (t) => {
    const res = await w.as(othello)('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['Verona'], principals: [hamlet.userId] } });
    t.equal(res.status, 400, 'status 400');
    t.same(res.body, { result: 'error', msg: 'Insufficient permission', code: 'BAD_REQUEST' }, 'a member may not remove another member');
    const guest = await w.as(polonius)('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['general'], principals: [hamlet.userId] } });
    t.equal(guest.body.msg, 'Insufficient permission', 'nor may a guest');
    t.ok(names(await w.as(hamlet)('GET', '/users/me/subscriptions')).includes('Verona'), 'hamlet is still in Verona');
  });

  t.test("DELETE /users/me/subscriptions: a member removes their own bot", async (t) => {
    const res = await w.as(hamlet)('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['Verona'], principals: [bot.userId] } });
    t.same(res.body.removed, ['Verona'], 'the bot left');
  });

  t.test('DELETE /users/me/subscriptions: an administrator removes others, even from a private channel', async (t) => {
    const res = await w.as(admin)('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['secret'], principals: [hamlet.email] } });
    t.same(res.body.removed, ['secret'], 'removed');
    t.notOk(names(await w.as(hamlet)('GET', '/users/me/subscriptions')).includes('secret'), 'hamlet left secret');
  });

  t.test('DELETE /users/me/subscriptions: a guest unsubscribes itself', async (t) => {
    const res = await w.as(polonius)('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['general'] } });
    t.same(res.body.removed, ['general'], 'removed');
  });

  t.test('DELETE /users/me/subscriptions: rejects bad input', async (t) => {
    const missing = await w.as(hamlet)('DELETE', '/users/me/subscriptions');
    t.same(missing.body, { result: 'error', msg: "Missing 'subscriptions' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'subscriptions' }, 'missing');
    const blank = await w.as(hamlet)('DELETE', '/users/me/subscriptions', { params: { subscriptions: [' '] } });
    t.equal(blank.body.msg, "Channel name can't be empty.", 'blank name');
    const nobody = await w.as(hamlet)('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['general'], principals: [99999] } });
    t.equal(nobody.body.msg, 'No such user', 'unknown principal');
  });
});

t.test('DELETE /users/me/subscriptions: can_remove_subscribers_group', async (t) => {
  const w = await startWorld(t);
  const { hamlet, othello } = w.root;
  const everyone = (await w.as(w.root.owner)('GET', '/users/me/subscriptions')).body.subscriptions[0].can_send_message_group;
  await subscribe(w.as(hamlet), ['open-door'], { principals: [hamlet.userId, othello.userId], can_remove_subscribers_group: everyone });

  t.test('DELETE /users/me/subscriptions: a member of the channel\'s group removes another member', async (t) => {
    const res = await w.as(othello)('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['open-door'], principals: [hamlet.userId] } });
    t.equal(res.status, 200, 'status 200');
    t.same(res.body.removed, ['open-door'], 'hamlet was removed by othello');
  });

  t.test("DELETE /users/me/subscriptions: the channel's administrator removes others", async (t) => {
    await subscribe(w.as(hamlet), ['hamlets'], { principals: [hamlet.userId, othello.userId] });
    const res = await w.as(hamlet)('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['hamlets'], principals: [othello.userId] } });
    t.same(res.body.removed, ['hamlets'], 'the creator administers the channel');
  });
});
