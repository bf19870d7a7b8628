import t from 'tap';
import { convergenceHarness, type Viewer } from '../../helpers/convergence.js';
import { createUser, startTestServer, type Credentials } from '../../helpers/server.js';

t.test('events converge with a fresh snapshot', async (t) => {
  const ts = await startTestServer(t);
  const owner: Viewer = ts.owner;
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const cy = await createUser(ts, 'cy@example.com', 'Cy');
  const everyone: Viewer[] = [owner, ann, bob, cy];
  const { ok, converges: convergesFor } = convergenceHarness(t, ts);
  const converges = (name: string, action: () => Promise<unknown>, viewers: Viewer[] = everyone) => convergesFor(name, action, viewers);

  const send = (c: Credentials, params: Record<string, unknown>) => ok(c, 'POST', '/messages', params).then((b) => b.id as number);
  const ids: Record<string, number> = {};

  await converges('a channel message', async () => (ids.channel = await send(bob, { type: 'stream', to: 'general', topic: 'plans', content: 'hello @**Ann**' })));
  await converges('a direct message', async () => (ids.dm = await send(bob, { type: 'direct', to: [ann.userId], content: 'psst' })));
  await converges('a group direct message', async () => (ids.group = await send(bob, { type: 'direct', to: [ann.userId, cy.userId], content: 'all three' })));
  await converges('marking read', () => ok(ann, 'POST', '/messages/flags', { messages: [ids.channel, ids.dm], op: 'add', flag: 'read' }));
  await converges('marking unread', () => ok(ann, 'POST', '/messages/flags', { messages: [ids.channel, ids.dm, ids.group], op: 'remove', flag: 'read' }));
  await converges('starring', () => ok(ann, 'POST', '/messages/flags', { messages: [ids.channel], op: 'add', flag: 'starred' }));
  await converges('unstarring', () => ok(ann, 'POST', '/messages/flags', { messages: [ids.channel], op: 'remove', flag: 'starred' }));
  await converges('a topic move', () => ok(bob, 'PATCH', `/messages/${ids.channel}`, { topic: 'moved plans', propagate_mode: 'change_all' }));
  await converges('a content edit', () => ok(bob, 'PATCH', `/messages/${ids.channel}`, { content: 'hello again @**Cy**' }));
  await converges('a reaction', () => ok(cy, 'POST', `/messages/${ids.channel}/reactions`, { emoji_name: 'octopus' }));
  await converges('marking a channel read', () => ok(ann, 'POST', '/mark_stream_as_read', { stream_id: 1 }));
  await converges('marking everything read', () => ok(cy, 'POST', '/mark_all_as_read'));
  await converges('deleting a message', () => ok(bob, 'DELETE', `/messages/${ids.group}`), [ann, bob, cy]);
  await converges('an administrator deleting a channel message', () => ok(owner, 'DELETE', `/messages/${ids.channel}`));
  await converges('creating a public channel by subscribing', () => ok(ann, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: 'projects' }] }));
  await converges('subscribing another user', () => ok(ann, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: 'projects' }], principals: [bob.userId] }));
  // Read by its sender: an unread message of a channel left and rejoined counts again, which no
  // event can tell a client (the reference's clients refetch), so it would not converge.
  await converges('a message in the new channel', () => send(bob, { type: 'stream', to: 'projects', topic: 'kickoff', content: 'first', read_by_sender: true }));
  await converges('unsubscribing', () => ok(bob, 'DELETE', '/users/me/subscriptions', { subscriptions: ['projects'] }));
  await converges('subscribing again', () => ok(bob, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: 'projects' }] }));
  await converges('creating a private channel', () => ok(ann, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: 'secret' }], invite_only: true, principals: [ann.userId, cy.userId] }));
  await converges('a new user', () => createUser(ts, 'dee@example.com', 'Dee'));
  await converges('deactivating a user', () => ok(owner, 'DELETE', `/users/${cy.userId}`), [owner, ann, bob]);
  await converges('reactivating a user', () => ok(owner, 'POST', `/users/${cy.userId}/reactivate`), [owner, ann, bob]);
  await converges('a realm setting', () => ok(owner, 'PATCH', '/realm', { name: 'Renamed', message_retention_days: 30 }));
  await converges('a linkifier', () => ok(owner, 'POST', '/realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example.com/{id}' }));
});
