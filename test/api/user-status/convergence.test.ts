import t from 'tap';
import { convergenceHarness, type Viewer } from '../../helpers/convergence.js';
import { startWorld } from '../streams/world.js';

t.test('status changes converge with a fresh snapshot', async (t) => {
  const w = await startWorld(t);
  const { owner, admin, hamlet, othello, polonius } = w.root;
  const viewers: Viewer[] = [owner, hamlet, othello, polonius];
  const { ok, converges } = convergenceHarness(t, w.ts);
  const options = { sections: ['user_status', 'user_settings'] };

  await converges('text and emoji', () => ok(hamlet, 'POST', '/users/me/status', { status_text: 'on vacation', emoji_name: 'car' }), viewers, options);
  await converges('only the text', () => ok(hamlet, 'POST', '/users/me/status', { status_text: 'back soon' }), viewers, options);
  await converges('clearing the emoji', () => ok(hamlet, 'POST', '/users/me/status', { emoji_name: '' }), viewers, options);
  await converges('away', () => ok(othello, 'POST', '/users/me/status', { away: true }), viewers, options);
  await converges('away with text', () => ok(polonius, 'POST', '/users/me/status', { away: true, status_text: 'lurking', emoji_name: 'zulip' }), viewers, options);
  await converges('back again', () => ok(othello, 'POST', '/users/me/status', { away: false, status_text: 'here' }), viewers, options);
  await converges('by an administrator', () => ok(admin, 'POST', `/users/${hamlet.userId}/status`, { status_text: '', emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji' }), viewers, options);
  await converges('clearing everything', () => ok(hamlet, 'POST', '/users/me/status', { status_text: '', emoji_name: '' }), viewers, options);
});
