import t from 'tap';
import { convergenceHarness, type Viewer } from '../../helpers/convergence.js';
import { startWorld } from '../streams/world.js';

t.test('custom profile field changes converge with a fresh snapshot', async (t) => {
  const w = await startWorld(t, { groupSettings: { can_access_all_users_group: 'role:members' } });
  const { owner, admin, hamlet, othello, polonius } = w.root;
  const viewers: Viewer[] = [owner, hamlet, othello, polonius];
  const { ok, converges } = convergenceHarness(t, w.ts);
  const options = { sections: ['custom_profile_fields', 'custom_profile_field_types'] };
  const ids: Record<string, number> = {};

  await converges('creating fields', async () => {
    ids.short = (await ok(admin, 'POST', '/realm/profile_fields', { name: 'Phone', field_type: 1 })).id;
    ids.select = (await ok(admin, 'POST', '/realm/profile_fields', { name: 'Editor', field_type: 3, field_data: { vim: { text: 'Vim', order: '1' }, emacs: { text: 'Emacs', order: '2' } } })).id;
    ids.users = (await ok(admin, 'POST', '/realm/profile_fields', { name: 'Mentor', field_type: 6 })).id;
  }, viewers, options);
  await converges('setting values', () => ok(hamlet, 'PATCH', '/users/me/profile_data', { data: [{ id: ids.short, value: '*555*' }, { id: ids.select, value: 'emacs' }, { id: ids.users, value: [othello.userId] }] }), viewers, options);
  await converges('the same values again', () => ok(hamlet, 'PATCH', '/users/me/profile_data', { data: [{ id: ids.short, value: '*555*' }] }), viewers, options);
  await converges('an empty text', () => ok(othello, 'PATCH', '/users/me/profile_data', { data: [{ id: ids.short, value: '' }] }), viewers, options);
  await converges('an administrator sets and clears', () => ok(admin, 'PATCH', `/users/${othello.userId}`, { profile_data: [{ id: ids.select, value: 'vim' }, { id: ids.short, value: null }] }), viewers, options);
  await converges('removing values', () => ok(hamlet, 'DELETE', '/users/me/profile_data', { data: [ids.users] }), viewers, options);
  await converges('editing a field', () => ok(admin, 'PATCH', `/realm/profile_fields/${ids.short}`, { name: 'Mobile', required: true, display_in_profile_summary: true }), viewers, options);
  await converges('a choice goes away', () => ok(admin, 'PATCH', `/realm/profile_fields/${ids.select}`, { field_data: { vim: { text: 'Vim', order: '1' } } }), viewers, options);
  await converges('reordering', () => ok(admin, 'PATCH', '/realm/profile_fields', { order: [ids.users, ids.select, ids.short] }), viewers, options);
  await converges('deleting a field with values', () => ok(admin, 'DELETE', `/realm/profile_fields/${ids.short}`), viewers, options);
});
