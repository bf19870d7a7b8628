import t from 'tap';
import { streamId, subscribe } from '../streams/world.js';
import { startGroupWorld } from './world.js';

/**
 * Group-valued settings of realms and channels accept user groups and anonymous groups, and
 * permission checks follow membership through nested subgroups: changing a setting to a group,
 * or a group's membership, changes who may act.
 */
t.test('realm and channel settings that name user groups', async (t) => {
  const w = await startGroupWorld(t);
  const { owner, hamlet, othello, polonius } = w.root;
  // inner holds othello; outer holds inner (and nobody directly).
  const inner = await w.create(owner, 'inner', { members: [othello.userId] });
  const outer = await w.create(owner, 'outer', { subgroups: [inner] });

  t.test('a realm setting: can_create_groups', async (t) => {
    const tryCreate = (p: typeof owner, name: string) => w.as(p)('POST', '/user_groups/create', { params: { name, description: '', members: [] } });
    t.equal((await tryCreate(hamlet, 'h1')).status, 200, 'role:members: hamlet may');
    await w.ok(owner, 'PATCH', '/realm', { can_create_groups: { new: outer, old: w.system['role:members'] } });
    t.equal((await tryCreate(hamlet, 'h2')).body.msg, 'Insufficient permission', 'the setting names outer: hamlet may not');
    t.equal((await tryCreate(othello, 'o1')).status, 200, 'othello may, through inner inside outer');
    await w.ok(owner, 'POST', `/user_groups/${inner}/members`, { add: [hamlet.userId] });
    t.equal((await tryCreate(hamlet, 'h3')).status, 200, 'joining inner lets hamlet');
    await w.ok(owner, 'POST', `/user_groups/${outer}/subgroups`, { delete: [inner] });
    t.equal((await tryCreate(othello, 'o2')).body.msg, 'Insufficient permission', 'inner taken out of outer: othello may no longer');
    await w.ok(owner, 'PATCH', '/realm', { can_create_groups: { new: { direct_members: [othello.userId], direct_subgroups: [outer] } } });
    t.equal((await tryCreate(othello, 'o3')).status, 200, 'an anonymous group naming othello');
    t.equal((await tryCreate(hamlet, 'h4')).body.msg, 'Insufficient permission', 'but not hamlet');
    await w.ok(owner, 'POST', `/user_groups/${outer}/subgroups`, { add: [inner] });
    t.equal((await tryCreate(hamlet, 'h5')).status, 200, 'hamlet again, through the anonymous group\'s subgroup');
    await w.ok(owner, 'POST', `/user_groups/${inner}/members`, { add: [polonius.userId] });
    t.equal((await tryCreate(polonius, 'p1')).body.msg, 'Not allowed for guest users', 'a guest never may');
    const shown = (await w.ok(owner, 'POST', '/register', { fetch_event_types: ['realm'] })).realm_can_create_groups;
    t.same(shown, { direct_members: [othello.userId], direct_subgroups: [outer] }, '/register shows the value');
    await w.ok(owner, 'PATCH', '/realm', { can_create_groups: { new: w.system['role:members'] } });
  });

  t.test('a realm setting: can_resolve_topics_group', async (t) => {
    await w.ok(owner, 'PATCH', '/realm', { can_resolve_topics_group: { new: outer } });
    const id = (await w.ok(hamlet, 'POST', '/messages', { type: 'stream', to: 'general', topic: 'bug', content: 'x' })).id;
    await w.ok(owner, 'POST', `/user_groups/${inner}/members`, { delete: [hamlet.userId] });
    t.equal((await w.fails(hamlet, 'PATCH', `/messages/${id}`, { topic: '✔ bug' })).msg, "You don't have permission to resolve topics in this channel.", 'hamlet is in no group the setting names');
    await w.ok(othello, 'PATCH', `/messages/${id}`, { topic: '✔ bug' });
    t.pass('othello resolves it, through inner inside outer');
  });

  t.test('a channel setting: can_send_message_group', async (t) => {
    await subscribe(w.as(owner), ['announce'], { principals: [owner.userId, hamlet.userId, othello.userId] });
    const id = await streamId(w.as(owner), 'announce');
    const post = (p: typeof owner) => w.as(p)('POST', '/messages', { params: { type: 'stream', to: 'announce', topic: 'news', content: 'hello' } });
    t.equal((await post(hamlet)).status, 200, 'anyone subscribed may post at first');
    await w.ok(owner, 'PATCH', `/streams/${id}`, { can_send_message_group: { new: outer } });
    t.equal((await post(hamlet)).body.msg, "Not authorized to send to channel 'announce'", 'hamlet is not in outer');
    t.equal((await post(othello)).status, 200, 'othello is, through inner');
    await w.ok(owner, 'POST', `/user_groups/${inner}/members`, { delete: [othello.userId] });
    t.equal((await post(othello)).body.msg, "Not authorized to send to channel 'announce'", 'not after leaving inner');
    await w.ok(owner, 'PATCH', `/streams/${id}`, { can_send_message_group: { new: { direct_members: [hamlet.userId], direct_subgroups: [outer] } } });
    t.equal((await post(hamlet)).status, 200, 'an anonymous group naming hamlet');
    const shown = ((await w.ok(owner, 'GET', `/streams/${id}`)).stream as Record<string, unknown>).can_send_message_group;
    t.same(shown, { direct_members: [hamlet.userId], direct_subgroups: [outer] }, 'the channel shows the value');
  });

  t.test('a channel setting: can_subscribe_group opens a private channel', async (t) => {
    await subscribe(w.as(owner), ['vault'], { invite_only: true });
    const id = await streamId(w.as(owner), 'vault');
    const join = (p: typeof owner) => w.as(p)('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name: 'vault' }] } });
    t.not((await join(hamlet)).status, 200, 'a private channel: hamlet may not subscribe');
    await w.ok(owner, 'PATCH', `/streams/${id}`, { can_subscribe_group: { new: outer } });
    await w.ok(owner, 'POST', `/user_groups/${inner}/members`, { add: [hamlet.userId] });
    t.equal((await join(hamlet)).status, 200, 'through inner inside outer, hamlet may');
  });
});
