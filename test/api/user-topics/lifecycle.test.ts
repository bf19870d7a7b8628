import t from 'tap';
import { CAPABILITIES, convergenceHarness, SECTIONS } from '../../helpers/convergence.js';
import { normalized } from '../../helpers/apply-events.js';
import { startTestServer, type Credentials } from '../../helpers/server.js';
import { startWorld, streamId, subscribe } from '../streams/world.js';

/**
 * One topic's life as hamlet's clients see it through /register: muted, unmuted, followed, moved
 * to another channel, and the server restarted. At every step the snapshot plus the events
 * equals a fresh snapshot, and the user_topics entry says what it should.
 */
t.test('a topic through mute, unmute, follow, a move and a restart', async (t) => {
  const w = await startWorld(t);
  const { owner, hamlet, othello } = w.root;
  await w.as(hamlet)('PATCH', '/settings', { params: { automatically_follow_topics_policy: 4 } });
  await subscribe(w.as(owner), ['destination'], { principals: [owner.userId, hamlet.userId, othello.userId] });
  const general = await streamId(w.as(owner), 'general');
  const destination = await streamId(w.as(owner), 'destination');
  const ids: number[] = [];
  // (Wildcard mentions in muted topics are checked in muting.test.ts: a client cannot tell from
  // unread_msgs which of its mentions were wildcards, so they are left out of the convergence.)
  for (const content of ['one', 'two @**hamlet**', 'three']) {
    ids.push((await w.as(othello)('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'Journey', content } })).body.id);
  }
  const sections = ['user_topics', 'muted_topics'];
  const viewers = [hamlet, othello];
  const register = async (client: (m: string, p: string, o?: object) => Promise<{ body: any }>) =>
    (await client('POST', '/register', { params: { client_capabilities: CAPABILITIES, include_subscribers: true, apply_markdown: true } })).body;
  const entry = (state: { user_topics: { stream_id: number; topic_name: string; visibility_policy: number }[] }) =>
    state.user_topics.map((u) => [u.stream_id, u.topic_name, u.visibility_policy]);
  const policy = (stream_id: number, topic: string, visibility_policy: number) => () =>
    w.as(hamlet)('POST', '/user_topics', { params: { stream_id, topic, visibility_policy } }).then((r) => {
      if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    });

  const { converges } = convergenceHarness(t, w.ts);
  await converges('muted', policy(general, 'Journey', 1), viewers, { sections });
  let state = await register(w.as(hamlet));
  t.same(entry(state), [[general, 'Journey', 1]], 'muted');
  t.same(state.muted_topics.map((m: unknown[]) => m.slice(0, 2)), [['general', 'Journey']], 'in the legacy list too');
  t.equal(state.unread_msgs.count, 0, 'its unread messages leave the count');
  t.same(state.unread_msgs.mentions, [ids[1]], 'a direct mention in it still is one');

  await converges('unmuted', policy(general, 'journey', 2), viewers, { sections });
  state = await register(w.as(hamlet));
  t.same(entry(state), [[general, 'journey', 2]], 'unmuted');
  t.same(state.muted_topics, [], 'no longer in the legacy list');
  t.equal(state.unread_msgs.count, 3, 'counted again');

  await converges('followed', policy(general, 'Journey', 3), viewers, { sections });
  t.same(entry(await register(w.as(hamlet))), [[general, 'Journey', 3]], 'followed');

  await converges(
    'moved to another channel',
    async () => {
      const res = await w.as(owner)('PATCH', `/messages/${ids[0]}`, { params: { stream_id: destination, topic: 'Arrived', propagate_mode: 'change_all', send_notification_to_old_thread: false, send_notification_to_new_thread: false } });
      if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    },
    viewers,
    { sections },
  );
  const beforeRestart = await register(w.as(hamlet));
  t.same(entry(beforeRestart), [[destination, 'Arrived', 3]], 'followed in its new channel, under its new name');
  const followed = await w.as(hamlet)('GET', '/messages', { params: { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'is', operand: 'followed' }] } });
  t.same(followed.body.messages.map((m: { id: number }) => m.id), ids, 'is:followed finds its messages there');

  // A client that keeps its queue over the restart, as clients do.
  const queue = await register(w.as(hamlet));
  await w.ts.close();
  const ts = await startTestServer(t, {}, { dataDir: w.ts.dataDir });
  const as = (who: Credentials) => ts.as(who);
  const afterRestart = await register(as(hamlet));
  // Everything a client keeps of these sections; realm_url and the like name the new port.
  const comparable = (s: Record<string, unknown>) => {
    const kept = normalized(s);
    return Object.fromEntries([...SECTIONS, ...sections, 'subscriptions'].map((k) => [k, kept[k]]));
  };
  t.same(comparable(afterRestart), comparable(beforeRestart), 'after the restart, /register gives the same state');
  t.same(entry(afterRestart), [[destination, 'Arrived', 3]], 'the policy survived');
  const polled = await as(hamlet)('GET', '/events', { params: { queue_id: queue.queue_id, last_event_id: queue.last_event_id, dont_block: true } });
  t.equal(polled.status, 200, 'the queue survived too');

  const after = convergenceHarness(t, ts);
  await after.converges('and after the restart, unfollowed', async () => {
    const res = await as(hamlet)('POST', '/user_topics', { params: { stream_id: destination, topic: 'Arrived', visibility_policy: 0 } });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  }, viewers, { sections });
  t.same(entry(await register(as(hamlet))), [], 'no policy left');
});
