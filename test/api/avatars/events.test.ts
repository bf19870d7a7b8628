import t from 'tap';
import { convergenceHarness } from '../../helpers/convergence.js';
import { sendFiles } from '../../helpers/upload.js';
import { startWorld } from '../streams/world.js';
import { part, redPng } from './images.js';

/**
 * Avatar changes reach every client as the reference's realm_user (and, for bots, realm_bot)
 * update events, and a snapshot plus them equals a fresh /register, with and without
 * client_gravatar.
 */
t.test('avatar events converge', async (t) => {
  const w = await startWorld(t);
  const { ts, root } = w;
  const h = convergenceHarness(t, ts);
  const png = await redPng();
  const viewers = (['hamlet', 'othello', 'polonius', 'admin'] as const).map((who) => root[who]);
  const sections = ['avatar_source', 'avatar_url', 'avatar_url_medium'];
  const upload = (who: typeof root.hamlet) => async () => {
    const res = await sendFiles(ts, 'POST', '/users/me/avatar', [part(png)], { auth: who });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  };

  await h.converges('POST /users/me/avatar', upload(root.hamlet), viewers, { sections });
  await h.converges('DELETE /users/me/avatar', () => h.ok(root.hamlet, 'DELETE', '/users/me/avatar'), viewers, { sections });
  await h.converges('POST /users/me/avatar, clients without client_gravatar', upload(root.othello), viewers, { sections, register: { client_gravatar: false } });
  await h.converges('DELETE /users/me/avatar, clients without client_gravatar', () => h.ok(root.othello, 'DELETE', '/users/me/avatar'), viewers, { sections, register: { client_gravatar: false } });
  await h.converges('a bot uploads its own avatar (realm_bot update to its owner and the admins)', upload(root.bot), viewers, { sections });
  await h.converges('PATCH /bots/{bot_id} with a file', async () => {
    const res = await sendFiles(ts, 'PATCH', `/bots/${root.bot.userId}`, [part(png)], { auth: root.hamlet });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  }, viewers, { sections });

  t.test('the events themselves', async (t) => {
    const reg = await h.ok(root.othello, 'POST', '/register', { event_types: ['realm_user'] });
    await upload(root.hamlet)();
    const got = await h.ok(root.othello, 'GET', '/events', { queue_id: reg.queue_id, last_event_id: -1, dont_block: true });
    const event = got.events.find((e: { type: string }) => e.type === 'realm_user');
    t.same(Object.keys(event.person).sort(), ['avatar_source', 'avatar_url', 'avatar_url_medium', 'avatar_version', 'user_id'], 'the reference\'s fields');
    t.equal(event.person.avatar_source, 'U', 'avatar_source U');
  });
});
