import t from 'tap';
import { applyEvent, normalized } from '../../helpers/apply-events.js';
import { checkEvent } from '../../helpers/openapi.js';
import { createUser, startTestServer, type Credentials } from '../../helpers/server.js';

/**
 * The reference server's convergence test, over HTTP: for each action, every viewer registers,
 * the action runs, and the events each viewer's queue received, applied to its snapshot, must
 * give exactly what a fresh POST /register returns.
 */
const CAPABILITIES = { bulk_message_deletion: true, user_settings_object: true, empty_topic_name: true, stream_typing_notifications: true, include_deactivated_groups: true };
/** The sections the client-side applier (helpers/apply-events.ts) keeps current. */
const SECTIONS = ['max_message_id', 'unread_msgs', 'starred_messages', 'recent_private_conversations', 'subscriptions', 'unsubscribed', 'never_subscribed', 'streams', 'realm_users', 'realm_non_active_users', 'realm_linkifiers'];

function comparable(state: Record<string, unknown>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(state)) if (SECTIONS.includes(k) || (k.startsWith('realm_') && k !== 'realm_presence_disabled')) picked[k] = v;
  return normalized(picked);
}

t.test('events converge with a fresh snapshot', async (t) => {
  const ts = await startTestServer(t);
  const owner: Credentials & { userId: number } = ts.owner;
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const bob = await createUser(ts, 'bob@example.com', 'Bob');
  const cy = await createUser(ts, 'cy@example.com', 'Cy');
  const as = (c: Credentials) => ts.as(c);
  const ok = async (c: Credentials, method: string, path: string, params: Record<string, unknown> = {}) => {
    const res = await as(c)(method, path, { params });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const register = (c: Credentials) => ok(c, 'POST', '/register', { client_capabilities: CAPABILITIES, include_subscribers: true, apply_markdown: true });
  const everyone = [owner, ann, bob, cy];

  /** Runs `action` between snapshots of each viewer and checks that they converge. */
  const converges = (name: string, action: () => Promise<unknown>, viewers: (Credentials & { userId: number })[] = everyone) =>
    t.test(name, async (t) => {
      const before = await Promise.all(viewers.map(register));
      await action();
      for (const [i, viewer] of viewers.entries()) {
        const got = await ok(viewer, 'GET', '/events', { queue_id: before[i].queue_id, last_event_id: -1, dont_block: true });
        const state = structuredClone(before[i]);
        for (const event of got.events) {
          t.doesNotThrow(() => checkEvent(event), `${viewer.email}: ${event.type} ${event.op ?? ''} matches the reference schema`);
          applyEvent(state, viewer.userId, event);
        }
        const fresh = await register(viewer);
        t.same(comparable(state), comparable(fresh), `${viewer.email}: snapshot + ${got.events.length} events = a fresh snapshot`);
        await ok(viewer, 'DELETE', '/events', { queue_id: before[i].queue_id });
        await ok(viewer, 'DELETE', '/events', { queue_id: fresh.queue_id });
      }
    });

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
