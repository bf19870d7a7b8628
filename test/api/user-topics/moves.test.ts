import t from 'tap';
import { convergenceHarness } from '../../helpers/convergence.js';
import { listen } from '../streams/queues.js';
import { startWorld, streamId, subscribe, type Person } from '../streams/world.js';

/**
 * Moving a topic carries its visibility policies, as the reference's do_update_message does:
 * a whole-topic move takes each user's policy along (merging with the destination's when that
 * topic already has messages: followed > unmuted > none > muted), users who cannot follow the
 * messages into their new channel just lose theirs, and a partial move that starts a topic
 * counts as its sender starting it.
 */
t.test('topic moves carry visibility', async (t) => {
  const w = await startWorld(t);
  const { owner, hamlet, othello } = w.root;
  const general = await streamId(w.as(owner), 'general');
  for (const who of [owner, hamlet, othello]) await w.as(who)('PATCH', '/settings', { params: { automatically_follow_topics_policy: 4, automatically_follow_topics_where_mentioned: false } });
  const setPolicy = (who: Person, stream_id: number, topic: string, visibility_policy: number) => w.as(who)('POST', '/user_topics', { params: { stream_id, topic, visibility_policy } });
  const send = async (to: string, topic: string, who: Person = owner) => (await w.as(who)('POST', '/messages', { params: { type: 'stream', to, topic, content: 'x' } })).body.id as number;
  const move = async (id: number, params: Record<string, unknown>) => {
    const res = await w.as(owner)('PATCH', `/messages/${id}`, { params: { send_notification_to_old_thread: false, send_notification_to_new_thread: false, ...params } });
    t.equal(res.status, 200, `moved: ${JSON.stringify(res.body)}`);
  };
  const policies = async (who: Person) =>
    Object.fromEntries(
      ((await w.as(who)('POST', '/register', { params: { fetch_event_types: ['user_topic'] } })).body.user_topics as { stream_id: number; topic_name: string; visibility_policy: number }[]).map((u) => [
        `${u.stream_id}/${u.topic_name}`,
        u.visibility_policy,
      ]),
    );

  t.test('a whole topic renamed: policies follow it', async (t) => {
    const id = await send('general', 'Old name');
    await setPolicy(hamlet, general, 'old name', 1);
    await setPolicy(othello, general, 'Old name', 3);
    const q = await listen(w.as(hamlet), { event_types: ['user_topic', 'update_message'] });
    await move(id, { topic: 'New name', propagate_mode: 'change_all' });
    t.same((await q.drain(t)).map((e) => [e.type, e.topic_name, e.visibility_policy]), [
      ['user_topic', 'Old name', 0],
      ['user_topic', 'New name', 1],
      ['update_message', undefined, undefined],
    ], "the old topic's policy goes, the new one's comes, before update_message");
    t.same(await policies(hamlet), { [`${general}/New name`]: 1 }, 'hamlet: muted under the new name');
    t.same(await policies(othello), { [`${general}/New name`]: 3 }, 'othello: followed under the new name');
    await setPolicy(hamlet, general, 'New name', 0);
    await setPolicy(othello, general, 'New name', 0);
  });

  t.test('into a topic with messages: the more visible policy wins', async (t) => {
    const cases: [string, number, number, number][] = [
      ['followed over muted', 3, 1, 3],
      ['unmuted over muted', 2, 1, 2],
      ['none over muted', 0, 1, 0],
      ['muted and muted', 1, 1, 1],
      ['muted under a followed destination', 1, 3, 3],
    ];
    for (const [name, from, to, expected] of cases) {
      const source = await send('general', `from ${name}`);
      await send('general', `into ${name}`);
      await setPolicy(hamlet, general, `from ${name}`, from);
      await setPolicy(hamlet, general, `into ${name}`, to);
      await move(source, { topic: `into ${name}`, propagate_mode: 'change_all' });
      const got = await policies(hamlet);
      t.equal(got[`${general}/into ${name}`] ?? 0, expected, name);
      t.notOk(`${general}/from ${name}` in got, `${name}: nothing left on the old topic`);
      await setPolicy(hamlet, general, `into ${name}`, 0);
    }
  });

  t.test('a partial move leaves policies; a message that starts a topic makes its sender follow it', async (t) => {
    const first = await send('general', 'Split', hamlet);
    const second = await send('general', 'Split', othello);
    await setPolicy(hamlet, general, 'split', 1);
    await w.as(othello)('PATCH', '/settings', { params: { automatically_follow_topics_policy: 3 } });
    await move(second, { topic: 'Split off', propagate_mode: 'change_one' });
    const got = await policies(othello);
    t.equal(got[`${general}/Split off`], 3, 'othello, whose message starts the new topic, follows it');
    t.equal((await policies(hamlet))[`${general}/split`], 1, "hamlet's mute stays with the topic left behind");
    await move(first, { topic: 'Split off', propagate_mode: 'change_later' });
    const after = await policies(hamlet);
    t.equal(after[`${general}/Split off`] ?? 0, 0, 'moving the rest of it merges into the (unfollowed by hamlet) destination: none over muted');
    t.notOk(`${general}/split` in after, 'and clears the old one');
    await w.as(othello)('PATCH', '/settings', { params: { automatically_follow_topics_policy: 4 } });
  });

  t.test('to another channel: users who cannot follow the messages lose their policy', async (t) => {
    await subscribe(w.as(owner), ['inner'], { invite_only: true, principals: [owner.userId, othello.userId] });
    const inner = await streamId(w.as(owner), 'inner');
    const id = await send('general', 'Going private');
    await setPolicy(hamlet, general, 'Going private', 3);
    await setPolicy(othello, general, 'Going private', 1);
    const q = await listen(w.as(hamlet), { event_types: ['user_topic', 'delete_message'] });
    await move(id, { stream_id: inner, propagate_mode: 'change_all' });
    t.same((await q.drain(t)).map((e) => [e.type, e.visibility_policy]), [['delete_message', undefined], ['user_topic', 0]], 'hamlet: the move is a deletion, and the policy goes');
    t.same(await policies(hamlet), {}, 'hamlet has no policy left');
    const kept = await policies(othello);
    t.equal(kept[`${inner}/Going private`], 1, 'othello, in the new channel, keeps hers there');
    t.notOk(`${general}/Going private` in kept, 'and nothing on the old topic');
  });

  t.test('a client applying the events converges', async (t) => {
    const { converges } = convergenceHarness(t, w.ts);
    // Subscribed before the message is sent: /register derives the unread messages of a channel
    // from subscription history, which a message moved in from elsewhere falls outside of.
    await subscribe(w.as(owner), ['landing'], { principals: [owner.userId, hamlet.userId, othello.userId] });
    const landing = await streamId(w.as(owner), 'landing');
    const id = await send('general', 'Converging');
    await setPolicy(hamlet, general, 'Converging', 1);
    await setPolicy(othello, general, 'converging', 3);
    await converges('a whole topic moved to another channel', () => move(id, { stream_id: landing, topic: 'Landed', propagate_mode: 'change_all' }), [hamlet, othello], {
      sections: ['user_topics', 'muted_topics'],
    });
  });
});
