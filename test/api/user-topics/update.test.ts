import t from 'tap';
import { listen } from '../streams/queues.js';
import { startWorld, streamId, subscribe } from '../streams/world.js';

/**
 * POST /user_topics and PATCH /users/me/subscriptions/muted_topics: the policies, their errors,
 * who may set them on which channel, and the user_topic / legacy muted_topics events.
 */
const userTopics = async (client: ReturnType<Awaited<ReturnType<typeof startWorld>>['as']>, caps: Record<string, boolean> = { empty_topic_name: true }) =>
  (await client('POST', '/register', { params: { fetch_event_types: ['user_topic', 'muted_topics'], client_capabilities: caps } })).body;

t.test('POST /user_topics', async (t) => {
  const w = await startWorld(t);
  const { owner, hamlet, othello, polonius } = w.root;
  const general = await streamId(w.as(owner), 'general');
  await subscribe(w.as(othello), ['secret'], { invite_only: true });
  const secret = await streamId(w.as(owner), 'secret');
  await subscribe(w.as(owner), ['lounge']);
  const lounge = await streamId(w.as(owner), 'lounge');
  const set = (who: typeof hamlet, stream_id: number, topic: string, visibility_policy: unknown) =>
    w.as(who)('POST', '/user_topics', { params: { stream_id, topic, visibility_policy } });

  t.test('each policy, for a topic without messages, with its events', async (t) => {
    const both = await listen(w.as(hamlet), { event_types: undefined });
    const modern = await listen(w.as(hamlet), { event_types: ['user_topic', 'muted_topics'] });
    const legacy = await listen(w.as(hamlet), { event_types: ['muted_topics'] });
    const res = await set(hamlet, general, 'Lunch plans', 1);
    t.same(res.body, { result: 'success', msg: '' }, 'muted');
    const [mutedEvent, topicEvent] = (await both.drain(t)).filter((e) => e.type !== 'stream');
    t.same(mutedEvent.muted_topics.map((m: unknown[]) => m.slice(0, 2)), [['general', 'Lunch plans']], 'the legacy event lists the muted topics');
    t.match(topicEvent, { type: 'user_topic', stream_id: general, topic_name: 'Lunch plans', visibility_policy: 1 }, 'user_topic');
    t.equal(topicEvent.last_updated, mutedEvent.muted_topics[0][2], 'one timestamp');
    t.same((await modern.drain(t)).map((e) => e.type), ['user_topic'], 'clients that ask for user_topic get no legacy event');
    t.same((await legacy.drain(t)).map((e) => e.type), ['muted_topics'], 'clients that ask for muted_topics only get it');

    for (const policy of [2, 3]) {
      t.equal((await set(hamlet, general, 'lunch PLANS', policy)).status, 200, `policy ${policy}`);
      const events = await modern.drain(t);
      t.same(events.map((e) => [e.topic_name, e.visibility_policy]), [['lunch PLANS', policy]], `policy ${policy}: one event`);
    }
    const state = await userTopics(w.as(hamlet));
    t.same(state.user_topics.map((u: Record<string, unknown>) => [u.stream_id, u.topic_name, u.visibility_policy]), [[general, 'lunch PLANS', 3]], 'one entry per topic, case aside');
    t.same(state.muted_topics, undefined, 'no legacy list for a client that asked for user_topic too');

    t.equal((await set(hamlet, general, 'Lunch Plans', 3)).status, 200, 'the same policy again');
    t.same(await modern.drain(t), [], 'changes nothing and sends nothing');
    t.equal((await set(hamlet, general, 'LUNCH plans', 0)).status, 200, 'policy 0');
    t.same((await modern.drain(t)).map((e) => e.visibility_policy), [0], 'removes it, announced with 0');
    t.equal((await set(hamlet, general, 'never set', 0)).status, 200, 'policy 0 for a topic without one');
    t.same(await modern.drain(t), [], 'succeeds silently');
    t.same((await userTopics(w.as(hamlet))).user_topics, [], 'nothing left');
  });

  t.test('the empty topic and its display name', async (t) => {
    t.equal((await set(hamlet, general, 'general chat', 1)).status, 200, 'the display name');
    t.same((await userTopics(w.as(hamlet))).user_topics.map((u: { topic_name: string }) => u.topic_name), [''], 'reads as the empty topic');
    const old = await userTopics(w.as(hamlet), {});
    t.same(old.user_topics.map((u: { topic_name: string }) => u.topic_name), ['general chat'], 'shown as the display name without empty_topic_name');
    const q = await listen(w.as(hamlet), { event_types: ['user_topic'] });
    await set(hamlet, general, '', 0);
    t.same((await q.drain(t)).map((e) => e.topic_name), ['general chat'], 'events too');
  });

  t.test('errors', async (t) => {
    const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ['no such channel', { stream_id: 9999, topic: 'x', visibility_policy: 1 }, { msg: 'Invalid channel ID', code: 'BAD_REQUEST' }],
      ['an unknown policy', { stream_id: general, topic: 'x', visibility_policy: 4 }, { msg: 'Invalid visibility_policy', code: 'REQUEST_VARIABLE_INVALID' }],
      ['a policy that is no number', { stream_id: general, topic: 'x', visibility_policy: 'muted' }, { code: 'REQUEST_VARIABLE_INVALID', var_name: 'visibility_policy' }],
      ['a topic over 60 characters', { stream_id: general, topic: 'x'.repeat(61), visibility_policy: 1 }, { msg: 'topic is too long (limit: 60 characters)', code: 'REQUEST_VARIABLE_INVALID' }],
      ['no topic', { stream_id: general, visibility_policy: 1 }, { msg: "Missing 'topic' argument", code: 'REQUEST_VARIABLE_MISSING' }],
      ['no policy', { stream_id: general, topic: 'x' }, { msg: "Missing 'visibility_policy' argument", code: 'REQUEST_VARIABLE_MISSING' }],
    ];
    for (const [name, params, expected] of cases) {
      const res = await w.as(hamlet)('POST', '/user_topics', { params });
      t.equal(res.status, 400, `${name}: 400`);
      t.match(res.body, { result: 'error', ...expected }, name);
    }
    t.equal((await set(hamlet, general, 'x'.repeat(60), 1)).status, 200, 'a topic of 60 characters is fine');
    await set(hamlet, general, 'x'.repeat(60), 0);
  });

  t.test('who may set a policy on which channel', async (t) => {
    t.match((await set(hamlet, secret, 'plans', 1)).body, { msg: 'Invalid channel ID' }, 'a member: not in a private channel they cannot read');
    t.match((await set(polonius, lounge, 'plans', 1)).body, { msg: 'Invalid channel ID' }, 'a guest: not in a public channel they are not in');
    t.equal((await set(polonius, general, 'plans', 3)).status, 200, 'a guest: in their own channel');
    t.equal((await set(othello, secret, 'plans', 1)).status, 200, 'a subscriber of the private channel');
    await w.as(othello)('DELETE', '/users/me/subscriptions', { params: { subscriptions: ['secret'] } });
    t.match((await set(othello, secret, 'plans', 3)).body, { msg: 'Invalid channel ID' }, 'once out, no new policy');
    t.equal((await set(othello, secret, 'plans', 0)).status, 200, 'but the old one can still be cleared');
    t.same((await userTopics(w.as(othello))).user_topics, [], 'cleared');
    const other = w.other;
    const res = await w.asOther(other.hamlet)('POST', '/user_topics', { params: { stream_id: general, topic: 'x', visibility_policy: 0 } });
    t.match(res.body, { msg: 'Invalid channel ID' }, "another realm's channel does not exist, even to clear");
    t.same((await userTopics(w.as(hamlet))).user_topics, [], "one user's policies are theirs alone");
    await set(polonius, general, 'plans', 0);
  });
});

t.test('PATCH /users/me/subscriptions/muted_topics', async (t) => {
  const w = await startWorld(t);
  const { owner, hamlet, othello } = w.root;
  const general = await streamId(w.as(owner), 'general');
  await subscribe(w.as(othello), ['secret'], { invite_only: true });
  const mute = (params: Record<string, unknown>) => w.as(hamlet)('PATCH', '/users/me/subscriptions/muted_topics', { params });

  const q = await listen(w.as(hamlet), { event_types: ['user_topic', 'muted_topics'] });
  t.equal((await mute({ stream_id: general, topic: 'Vacations', op: 'add' })).status, 200, 'add by channel id');
  t.equal((await mute({ stream: 'General', topic: 'vacations', op: 'add' })).status, 200, 'add again, by name: still a success (level 169)');
  t.same((await q.drain(t)).map((e) => e.visibility_policy), [1], 'muted once');
  t.equal((await mute({ stream: 'general', topic: 'Vacations', op: 'remove' })).status, 200, 'remove');
  t.equal((await mute({ stream_id: general, topic: 'Vacations', op: 'remove' })).status, 200, 'remove again: still a success');
  t.same((await q.drain(t)).map((e) => e.visibility_policy), [0], 'unmuted once');

  await w.as(hamlet)('POST', '/user_topics', { params: { stream_id: general, topic: 'Followed', visibility_policy: 3 } });
  await mute({ stream_id: general, topic: 'followed', op: 'remove' });
  t.same((await q.drain(t)).map((e) => e.visibility_policy), [3, 0], "remove clears any policy, as the reference's unmute_topic");

  const errors: [string, Record<string, unknown>, string][] = [
    ['both channel forms', { stream_id: general, stream: 'general', topic: 'x', op: 'add' }, "Please choose one: 'stream' or 'stream_id'."],
    ['no channel', { topic: 'x', op: 'add' }, "Please choose one: 'stream' or 'stream_id'."],
    ['an unknown channel name', { stream: 'nowhere', topic: 'x', op: 'add' }, "Invalid channel name 'nowhere'"],
    ['a private channel the user cannot read', { stream: 'secret', topic: 'x', op: 'add' }, "Invalid channel name 'secret'"],
    ['an unknown channel id', { stream_id: 9999, topic: 'x', op: 'add' }, 'Invalid channel ID'],
    ['removing in an unknown channel', { stream: 'nowhere', topic: 'x', op: 'remove' }, 'Topic is not muted'],
    ['an unknown op', { stream_id: general, topic: 'x', op: 'toggle' }, 'Invalid op'],
  ];
  for (const [name, params, msg] of errors) {
    const res = await mute(params);
    t.equal(res.status, 400, `${name}: 400`);
    t.equal(res.body.msg, msg, name);
  }
  t.same(await q.drain(t), [], 'the errors changed nothing');
});
