import t from 'tap';
import { convergenceHarness } from '../../helpers/convergence.js';
import { listen } from '../streams/queues.js';
import { startWorld, streamId, subscribe, type Person } from '../streams/world.js';

/**
 * The automatic visibility policies of a send: automatically_follow_topics_policy (1
 * participation, 2 send, 3 start, 4 never), automatically_unmute_topics_in_muted_streams_policy,
 * and automatically_follow_topics_where_mentioned, with automatic_new_visibility_policy in the
 * send response and user_topic events before the message event.
 */
t.test('automatic topic visibility on send', async (t) => {
  const w = await startWorld(t);
  const { owner, hamlet, othello, polonius, bot } = w.root;
  const general = await streamId(w.as(owner), 'general');
  const send = async (who: Person, topic: string, content = 'hello', to: unknown = 'general') => {
    const res = await w.as(who)('POST', '/messages', { params: { type: 'stream', to, topic, content } });
    t.equal(res.status, 200, `${who.email} sends to ${topic}`);
    return res.body;
  };
  const settings = (who: Person, params: Record<string, unknown>) => w.as(who)('PATCH', '/settings', { params });
  const policy = async (who: Person, stream: number, topic: string) => {
    const state = (await w.as(who)('POST', '/register', { params: { fetch_event_types: ['user_topic'] } })).body;
    return state.user_topics.find((u: { stream_id: number; topic_name: string }) => u.stream_id === stream && u.topic_name.toLowerCase() === topic.toLowerCase())?.visibility_policy ?? 0;
  };

  t.test('by default, starting a topic follows it, and only that', async (t) => {
    const q = await listen(w.as(hamlet), { event_types: ['user_topic', 'message'] });
    const first = await send(hamlet, 'Started');
    t.equal(first.automatic_new_visibility_policy, 3, 'the response says the topic is now followed');
    t.same((await q.drain(t)).map((e) => e.type), ['user_topic', 'message'], 'the user_topic event comes before the message');
    const second = await send(hamlet, 'started');
    t.notOk('automatic_new_visibility_policy' in second, 'a second message changes nothing, and the field is absent');
    const reply = await send(othello, 'Started');
    t.notOk('automatic_new_visibility_policy' in reply, 'replying to a topic one did not start does not follow it');
    t.equal(await policy(othello, general, 'Started'), 0, 'othello has no policy');
    t.equal(await policy(hamlet, general, 'Started'), 3, 'hamlet follows it');
  });

  t.test('following on participation or on send', async (t) => {
    for (const value of [1, 2]) {
      await settings(othello, { automatically_follow_topics_policy: value });
      const topic = `Joined ${value}`;
      await send(hamlet, topic);
      t.equal((await send(othello, topic)).automatic_new_visibility_policy, 3, `policy ${value}: replying follows`);
    }
  });

  t.test('the policies only raise visibility', async (t) => {
    await settings(othello, { automatically_follow_topics_policy: 2 });
    await w.as(othello)('POST', '/user_topics', { params: { stream_id: general, topic: 'Muted one', visibility_policy: 1 } });
    t.equal((await send(othello, 'Muted one')).automatic_new_visibility_policy, 3, 'a muted topic one writes to is followed');
    t.notOk('automatic_new_visibility_policy' in (await send(othello, 'Muted one')), 'a followed topic stays as it is');
  });

  t.test('never', async (t) => {
    await settings(othello, { automatically_follow_topics_policy: 4, automatically_unmute_topics_in_muted_streams_policy: 4 });
    t.notOk('automatic_new_visibility_policy' in (await send(othello, 'Never followed')), 'starting a topic changes nothing');
    t.equal(await policy(othello, general, 'Never followed'), 0, 'no policy');
  });

  t.test('unmuting in a muted channel', async (t) => {
    await subscribe(w.as(othello), ['quiet']);
    const quiet = await streamId(w.as(owner), 'quiet');
    await w.as(othello)('POST', '/users/me/subscriptions/properties', { params: { subscription_data: [{ stream_id: quiet, property: 'is_muted', value: true }] } });
    await settings(othello, { automatically_follow_topics_policy: 4, automatically_unmute_topics_in_muted_streams_policy: 2 });
    t.equal((await send(othello, 'Loud', 'hi', 'quiet')).automatic_new_visibility_policy, 2, 'sending to a muted channel unmutes the topic');
    t.notOk('automatic_new_visibility_policy' in (await send(othello, 'Loud', 'again', 'quiet')), 'once');
    t.notOk('automatic_new_visibility_policy' in (await send(othello, 'Unmuted channel topic')), 'not in an unmuted channel');
    await settings(othello, { automatically_unmute_topics_in_muted_streams_policy: 3 });
    t.equal((await send(othello, 'New quiet topic', 'hi', 'quiet')).automatic_new_visibility_policy, 2, 'starting a topic in a muted channel unmutes it');
    await settings(othello, { automatically_follow_topics_policy: 3, automatically_unmute_topics_in_muted_streams_policy: 3 });
    t.equal((await send(othello, 'Both', 'hi', 'quiet')).automatic_new_visibility_policy, 3, 'following wins over unmuting');
  });

  t.test('bots and direct messages', async (t) => {
    t.notOk('automatic_new_visibility_policy' in (await send(bot, 'Bot topic')), 'a bot follows nothing');
    const dm = await w.as(hamlet)('POST', '/messages', { params: { type: 'direct', to: [othello.userId], content: 'hi' } });
    t.notOk('automatic_new_visibility_policy' in dm.body, 'direct messages have no topics');
  });

  t.test('users mentioned follow the topic', async (t) => {
    await send(hamlet, 'Mentions');
    await settings(owner, { automatically_follow_topics_policy: 4 });
    const q = await listen(w.as(othello), { event_types: ['user_topic', 'message'] });
    await send(owner, 'Mentions', '@**othello** and @**hamlet-bot** and @_**polonius**');
    t.same((await q.drain(t)).map((e) => [e.type, e.visibility_policy]), [['user_topic', 3], ['message', undefined]], 'othello follows, before the message');
    t.equal(await policy(polonius, general, 'Mentions'), 0, 'a silent mention does not count');
    t.equal(await policy(bot, general, 'Mentions'), 0, 'bots never follow');

    await w.as(polonius)('POST', '/user_topics', { params: { stream_id: general, topic: 'Quiet mentions', visibility_policy: 1 } });
    await settings(othello, { automatically_follow_topics_where_mentioned: false });
    await send(owner, 'Quiet mentions', '@**polonius** @**othello**');
    t.equal(await policy(polonius, general, 'Quiet mentions'), 1, 'an explicit mute wins');
    t.equal(await policy(othello, general, 'Quiet mentions'), 0, 'the setting turned off');

    await subscribe(w.as(owner), ['elsewhere']);
    const elsewhere = await streamId(w.as(owner), 'elsewhere');
    await send(owner, 'Absent', '@**hamlet**', 'elsewhere');
    t.equal(await policy(hamlet, elsewhere, 'Absent'), 0, 'a mentioned user who does not receive the message is not changed');
  });

  t.test('reacting is participating', async (t) => {
    const sent = await send(hamlet, 'Reacted');
    await settings(othello, { automatically_follow_topics_policy: 2, automatically_unmute_topics_in_muted_streams_policy: 4 });
    await w.as(othello)('POST', `/messages/${sent.id}/reactions`, { params: { emoji_name: 'smile' } });
    t.equal(await policy(othello, general, 'Reacted'), 0, 'not for who follows only what they send to');
    await settings(othello, { automatically_follow_topics_policy: 1 });
    const q = await listen(w.as(othello), { event_types: ['user_topic', 'reaction'] });
    await w.as(othello)('POST', `/messages/${sent.id}/reactions`, { params: { emoji_name: 'heart' } });
    t.same((await q.drain(t)).map((e) => e.type), ['user_topic', 'reaction'], 'a reaction follows the topic for who follows on participation');
    t.equal(await policy(othello, general, 'Reacted'), 3, 'followed');
    await w.as(othello)('DELETE', `/messages/${sent.id}/reactions`, { params: { emoji_name: 'heart' } });
    t.equal(await policy(othello, general, 'Reacted'), 3, 'removing a reaction changes nothing');
  });

  t.test('a client applying the events converges', async (t) => {
    const { converges } = convergenceHarness(t, w.ts);
    await settings(hamlet, { automatically_follow_topics_policy: 3 });
    await settings(othello, { automatically_follow_topics_where_mentioned: true });
    await converges('a send that follows a topic for its sender and a user mentioned', () => send(hamlet, 'Converging start', 'hi @**othello**'), [hamlet, othello, owner], {
      sections: ['user_topics', 'muted_topics'],
    });
  });

  t.test('with protected history, only the messages one received count', async (t) => {
    await subscribe(w.as(owner), ['vault'], { invite_only: true, history_public_to_subscribers: false });
    await send(owner, 'Old business', 'before hamlet', 'vault');
    await subscribe(w.as(owner), ['vault'], { principals: [hamlet.userId] });
    await settings(hamlet, { automatically_follow_topics_policy: 3 });
    t.equal((await send(hamlet, 'Old business', 'first one I see', 'vault')).automatic_new_visibility_policy, 3, 'a topic whose earlier messages one cannot see counts as started');
  });
});
