import t from 'tap';
import { CAPABILITIES, convergenceHarness, type Viewer } from '../../helpers/convergence.js';
import { createUser } from '../../helpers/server.js';
import { streamId, subscribe } from '../streams/world.js';
import { startGroupWorld } from './world.js';

/**
 * user_group events keep every client's /register state converged: for each action, each
 * viewer's snapshot plus the events it received equals a fresh snapshot, for clients that keep
 * deactivated groups and for those that do not, guests included.
 */
t.test('user group events converge', async (t) => {
  const w = await startGroupWorld(t);
  const { owner, admin, hamlet, othello, polonius } = w.root;
  const { ok, converges: convergesFor } = convergenceHarness(t, w.ts);
  const viewers: Viewer[] = [owner, admin, hamlet, othello, polonius];
  const withoutDeactivated = { client_capabilities: { ...CAPABILITIES, include_deactivated_groups: false } };
  const converges = async (name: string, action: () => Promise<unknown>, who: Viewer[] = viewers) => {
    await convergesFor(name, action, who);
  };
  /** Runs the action twice over, once per kind of client; `make` builds a fresh action each time. */
  const bothKinds = async (name: string, make: () => () => Promise<unknown>, who: Viewer[] = viewers) => {
    await convergesFor(`${name} (include_deactivated_groups)`, make(), who);
    await convergesFor(`${name} (without deactivated groups)`, make(), who, { register: withoutDeactivated });
  };
  const ids: Record<string, number> = {};
  let n = 0;

  await converges('creating a group with members and a subgroup', async () => {
    ids.devs = await w.create(hamlet, 'devs', { members: [hamlet.userId] });
    ids.team = await w.create(hamlet, 'team', { members: [othello.userId], subgroups: [ids.devs] });
  });
  await converges('renaming, describing and a setting', () =>
    ok(hamlet, 'PATCH', `/user_groups/${ids.team}`, { name: 'the-team', description: 'All of us', can_mention_group: { new: { direct_members: [admin.userId], direct_subgroups: [ids.devs] } } }),
  );
  await converges('adding and removing members and subgroups', async () => {
    ids.extra = await w.create(owner, 'extra', { members: [admin.userId] });
    await ok(owner, 'POST', `/user_groups/${ids.team}/members`, { add: [admin.userId, polonius.userId], delete: [othello.userId], add_subgroups: [ids.extra] });
    await ok(owner, 'POST', `/user_groups/${ids.team}/subgroups`, { delete: [ids.extra] });
  });
  await converges('joining oneself', async () => {
    await ok(owner, 'PATCH', `/user_groups/${ids.devs}`, { can_join_group: { new: w.system['role:members'] } });
    await ok(othello, 'POST', `/user_groups/${ids.devs}/members`, { add: [othello.userId] });
  });
  await bothKinds('deactivating a group', () => async () => {
    const id = await w.create(owner, `short-lived-${++n}`, { members: [hamlet.userId] });
    await ok(owner, 'POST', `/user_groups/${id}/deactivate`);
  });
  await bothKinds('renaming a deactivated group', () => async () => {
    const id = await w.create(owner, `renamed-${++n}`);
    await ok(owner, 'POST', `/user_groups/${id}/deactivate`);
    await ok(owner, 'PATCH', `/user_groups/${id}`, { name: `renamed-later-${n}`, description: 'gone' });
  });

  // A private channel whose can_subscribe_group is the group: membership decides who sees it.
  await subscribe(w.as(owner), ['war-room'], { invite_only: true });
  const warRoom = await streamId(w.as(owner), 'war-room');
  const responders = await w.create(owner, 'responders');
  const outer = await w.create(owner, 'outer', { subgroups: [responders] });
  await ok(owner, 'PATCH', `/streams/${warRoom}`, { can_subscribe_group: { new: outer } });
  await converges('joining a group that opens a private channel (through a subgroup)', () => ok(owner, 'POST', `/user_groups/${responders}/members`, { add: [othello.userId] }));
  const channelSeen = async (p: Viewer) => ((await ok(p, 'GET', '/streams', { include_all: true })).streams as { stream_id: number }[]).some((s) => s.stream_id === warRoom);
  t.equal(await channelSeen(othello), true, 'othello sees the private channel now');
  await converges('leaving it again', () => ok(owner, 'POST', `/user_groups/${outer}/members`, { delete_subgroups: [responders] }));
  t.equal(await channelSeen(othello), false, 'and no longer');

  // A deactivated user: clients that see the user drop them; a guest who cannot is told.
  await ok(owner, 'PATCH', '/realm', { can_access_all_users_group: { new: w.system['role:members'] } });
  const loner = await createUser(w.ts, 'loner@example.com', 'Loner');
  await w.ok(loner, 'DELETE', '/users/me/subscriptions', { subscriptions: ['general'] });
  await ok(owner, 'POST', `/user_groups/${ids.devs}/members`, { add: [loner.userId] });
  await ok(owner, 'PATCH', `/user_groups/${ids.team}`, { can_mention_group: { new: { direct_members: [loner.userId, admin.userId], direct_subgroups: [] } } });
  await ok(owner, 'PATCH', '/realm', { can_create_groups: { new: { direct_members: [loner.userId], direct_subgroups: [w.system['role:moderators']] } } });
  await ok(owner, 'PATCH', `/streams/${warRoom}`, { can_send_message_group: { new: { direct_members: [loner.userId, owner.userId], direct_subgroups: [] } } });
  const gone = await w.ok(polonius, 'GET', `/users/${loner.userId}`).catch((e: Error) => e);
  t.ok(gone instanceof Error, 'the guest cannot access the loner');
  await converges('deactivating a user who is in groups and settings', () => ok(owner, 'DELETE', `/users/${loner.userId}`));
  await converges('reactivating them', () => ok(owner, 'POST', `/users/${loner.userId}/reactivate`));

  await converges('a message mentioning a group', () => ok(admin, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'ping', content: `hey @*the-team* and @_*devs*` }));
});
