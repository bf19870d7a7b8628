import t from 'tap';
import { convergenceHarness } from '../../helpers/convergence.js';
import { listen } from '../streams/queues.js';
import { startWorld, streamId, subscribe, type Person } from '../streams/world.js';

/**
 * What muting a topic (or a channel, with topics unmuted or followed in it) does to messages: they
 * arrive unread with the usual flags; /register's unread count leaves them out and wildcard
 * mentions in them are not mentions; in:home, is:muted, -is:muted, is:followed and the
 * first_unread anchor sort them out; marking one unread says it is muted. And that a client that
 * applies the events converges.
 */
t.test('muted and followed topics: flags, unread state and narrows', async (t) => {
  const w = await startWorld(t);
  const { owner, hamlet, othello } = w.root;
  const general = await streamId(w.as(owner), 'general');
  await subscribe(w.as(hamlet), ['lounge']);
  await subscribe(w.as(othello), ['lounge']);
  const lounge = await streamId(w.as(owner), 'lounge');
  // Nobody follows what they start here, so only the test's own policies are in play.
  for (const who of [owner, hamlet, othello]) await w.as(who)('PATCH', '/settings', { params: { automatically_follow_topics_policy: 4, automatically_follow_topics_where_mentioned: false } });
  const setPolicy = (stream_id: number, topic: string, visibility_policy: number) => w.as(hamlet)('POST', '/user_topics', { params: { stream_id, topic, visibility_policy } });
  const send = async (to: string, topic: string, content: string) => (await w.as(othello)('POST', '/messages', { params: { type: 'stream', to, topic, content } })).body.id as number;
  const fetch = async (narrow: unknown[], anchor = 'newest') =>
    ((await w.as(hamlet)('GET', '/messages', { params: { anchor, num_before: 100, num_after: 100, narrow } })).body.messages as { id: number }[]).map((m) => m.id);
  const unread = async () => (await w.as(hamlet)('POST', '/register', { params: { fetch_event_types: ['message', 'update_message_flags'] } })).body.unread_msgs;

  await setPolicy(general, 'Noise', 1);
  const q = await listen(w.as(hamlet), { event_types: ['message'] });
  const noise1 = await send('general', 'noise', 'first noise');
  const noise2 = await send('general', 'NOISE', 'hey @**all**');
  const noise3 = await send('general', 'noise', 'hey @**hamlet**');
  const signal = await send('general', 'signal', 'something');
  const events = await q.drain(t);
  t.same(events.map((e) => [e.message.id, e.flags]), [
    [noise1, []],
    [noise2, ['stream_wildcard_mentioned', 'wildcard_mentioned']],
    [noise3, ['mentioned']],
    [signal, []],
  ], 'messages in a muted topic arrive unread with their usual flags');

  t.test('unread_msgs', async (t) => {
    const state = await unread();
    t.equal(state.count, 1, 'the count leaves the muted topic out');
    t.same(state.streams.map((s: { topic: string; unread_message_ids: number[] }) => [s.topic.toLowerCase(), s.unread_message_ids]), [['noise', [noise1, noise2, noise3]], ['signal', [signal]]], 'its messages are still listed as unread');
    t.same(state.mentions, [noise3], 'a wildcard mention in a muted topic is not a mention; a direct one is');
  });

  t.test('narrows', async (t) => {
    t.same(await fetch([{ operator: 'is', operand: 'muted' }]), [noise1, noise2, noise3], 'is:muted');
    t.same((await fetch([{ operator: 'is', operand: 'muted', negated: true }])).filter((id) => id >= noise1), [signal], '-is:muted');
    t.same((await fetch([{ operator: 'in', operand: 'home' }])).filter((id) => id >= noise1), [signal], 'in:home');
    const first = await w.as(hamlet)('GET', '/messages', { params: { anchor: 'first_unread', num_before: 0, num_after: 0, narrow: [] } });
    t.equal(first.body.anchor, signal, 'first_unread skips the muted topic');
    const inChannel = await w.as(hamlet)('GET', '/messages', { params: { anchor: 'first_unread', num_before: 0, num_after: 0, narrow: [{ operator: 'channel', operand: general }] } });
    t.equal(inChannel.body.anchor, signal, 'also within its channel');
  });

  t.test('a muted channel, but for a followed topic', async (t) => {
    await w.as(hamlet)('POST', '/users/me/subscriptions/properties', { params: { subscription_data: [{ stream_id: lounge, property: 'is_muted', value: true }] } });
    const chatter = await send('lounge', 'chatter', 'blah');
    const important = await send('lounge', 'Important', 'read me');
    await setPolicy(lounge, 'important', 3);
    t.same((await fetch([{ operator: 'is', operand: 'muted' }])).filter((id) => id > signal), [chatter], 'is:muted: the channel, not its followed topic');
    t.same(await fetch([{ operator: 'is', operand: 'followed' }]), [important], 'is:followed');
    t.same((await fetch([{ operator: 'is', operand: 'followed', negated: true }])).includes(important), false, '-is:followed');
    t.same((await fetch([{ operator: 'in', operand: 'home' }])).filter((id) => id > signal), [important], 'in:home keeps the followed topic');
    const first = await w.as(hamlet)('GET', '/messages', { params: { anchor: 'first_unread', num_before: 0, num_after: 0, narrow: [{ operator: 'channel', operand: 'lounge' }] } });
    t.equal(first.body.anchor, chatter, 'narrowed to the muted channel, first_unread only skips muted topics');
    t.equal((await unread()).count, 2, 'the count: signal and the followed topic');
    await setPolicy(lounge, 'important', 2);
    t.equal((await unread()).count, 2, 'an unmuted topic counts too');
    await setPolicy(lounge, 'important', 0);
    t.equal((await unread()).count, 1, 'with no policy it is muted with its channel');
  });

  t.test('marking a muted message unread says so', async (t) => {
    await w.as(hamlet)('POST', '/messages/flags', { params: { messages: [noise1, signal], op: 'add', flag: 'read' } });
    const q2 = await listen(w.as(hamlet), { event_types: ['update_message_flags'] });
    await w.as(hamlet)('POST', '/messages/flags', { params: { messages: [noise1, signal], op: 'remove', flag: 'read' } });
    const [event] = await q2.drain(t);
    t.equal(event.message_details[noise1].unmuted_stream_msg, false, 'in the muted topic');
    t.equal(event.message_details[signal].unmuted_stream_msg, true, 'elsewhere');
  });

  t.test('a client applying the events converges', async (t) => {
    const { converges } = convergenceHarness(t, w.ts);
    const viewers = [hamlet, othello].map((p: Person) => p);
    const sections = ['user_topics', 'muted_topics'];
    await converges('muting a topic with unread messages', () => setPolicy(general, 'signal', 1), viewers, { sections });
    await converges('unmuting it', () => setPolicy(general, 'signal', 0), viewers, { sections });
    await converges('following a topic of a muted channel', () => setPolicy(lounge, 'chatter', 3), viewers, { sections });
    await converges('unmuting the channel', () => w.as(hamlet)('POST', '/users/me/subscriptions/properties', { params: { subscription_data: [{ stream_id: lounge, property: 'is_muted', value: false }] } }), viewers, { sections });
    await converges('a message to a muted topic', () => send('general', 'noise', 'more noise'), viewers, { sections });
  });
});
