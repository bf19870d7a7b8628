import t from 'tap';
import { convergenceHarness, type Viewer } from '../../helpers/convergence.js';
import { startWorld } from '../streams/world.js';
import { addRealm, restart } from './restart.js';
import { startTestServer } from '../../helpers/server.js';

t.test('DELETE /users/me', async (t) => {
  const w = await startWorld(t);
  const { owner, admin, hamlet, othello, polonius, bot } = w.root;

  t.test('the only owner cannot leave', async (t) => {
    const res = await w.as(owner)('DELETE', '/users/me');
    t.same(res.body, { result: 'error', msg: 'Cannot deactivate the only organization owner.', code: 'CANNOT_DEACTIVATE_LAST_USER', is_last_owner: true, entity: 'organization owner' }, "the reference's error");
    t.equal(res.status, 400, 'status 400');
    t.equal((await w.as(owner)('GET', '/users/me')).status, 200, 'still active');
  });

  t.test('a member deactivates themself: the events converge, the key stops working', async (t) => {
    const { ok, converges } = convergenceHarness(t, w.ts);
    const viewers: Viewer[] = [owner, hamlet, polonius];
    await ok(othello, 'POST', '/users/me/status', { status_text: 'leaving' });
    // othello owns no bot: the realm_bot events of a bot's deactivation belong to the bots work.
    await converges('deactivating', () => ok(othello, 'DELETE', '/users/me'), viewers, { sections: ['user_status'] });
    const me = await w.as(othello)('GET', '/users/me');
    t.same(me.body, { result: 'error', msg: 'Account is deactivated', code: 'UNAUTHORIZED' }, 'the API key stops working');
    t.equal(me.status, 401, 'status 401');
    const seen = await w.as(hamlet)('GET', `/users/${othello.userId}`);
    t.equal(seen.body.user.is_active, false, 'others see the account deactivated');
    t.equal((await w.as(admin)('POST', `/users/${othello.userId}/reactivate`)).status, 200, 'an administrator may reactivate it');
    t.equal((await w.as(othello)('GET', '/users/me')).status, 200, 'and the key works again');
  });

  t.test("a user's bots are deactivated with them", async (t) => {
    t.equal((await w.as(hamlet)('DELETE', '/users/me')).status, 200, 'hamlet leaves');
    t.equal((await w.as(bot)('GET', '/users/me')).status, 401, "hamlet's bot no longer works");
    t.equal((await w.as(othello)('GET', `/users/${bot.userId}`)).body.user.is_active, false, 'and shows deactivated');
  });

  t.test('a bot may deactivate itself', async (t) => {
    const theirs = w.other.bot;
    t.equal((await w.asOther(theirs)('DELETE', '/users/me')).status, 200, 'deactivated');
    t.equal((await w.asOther(theirs)('GET', '/users/me')).status, 401, 'its key stops working');
    t.equal((await w.asOther(w.other.hamlet)('GET', '/users/me')).status, 200, 'its owner is untouched');
  });

  t.test('guests and administrators may leave; a second owner lets the first go', async (t) => {
    t.equal((await w.as(polonius)('DELETE', '/users/me')).status, 200, 'a guest');
    await w.as(owner)('PATCH', `/users/${admin.userId}`, { params: { role: 100 } });
    t.equal((await w.as(owner)('DELETE', '/users/me')).status, 200, 'an owner, with another owner left');
    t.same((await w.as(admin)('DELETE', '/users/me')).body.is_last_owner, true, 'now the other is the last owner');
  });
});

t.test('DELETE /users/me: the only user of a realm cannot leave', async (t) => {
  const ts = await startTestServer(t);
  const lone = await restart(t, ts, addRealm('lone', 'lonely@example.com'));
  const res = await ts.request('DELETE', '/users/me', { auth: { email: lone.owner.email, apiKey: lone.owner.apiKey }, host: `lone.${ts.server.config.externalHost}` });
  t.same(res.body, { result: 'error', msg: 'Cannot deactivate the only user.', code: 'CANNOT_DEACTIVATE_LAST_USER', is_last_owner: false, entity: 'user' }, 'the only user');
});
