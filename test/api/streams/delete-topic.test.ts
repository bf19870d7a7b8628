import t from 'tap';
import { convergenceHarness } from '../../helpers/convergence.js';
import { startTestServer } from '../../helpers/server.js';
import { listen } from './queues.js';
import { startWorld, streamId, subscribe, type Person } from './world.js';

const ADMIN_ONLY = { result: 'error', msg: 'Must be an organization administrator', code: 'UNAUTHORIZED_PRINCIPAL' };

t.test('POST /streams/{stream_id}/delete_topic', async (t) => {
  const w = await startWorld(t);
  const { owner, admin, hamlet, othello, polonius } = w.root;
  const general = await streamId(w.as(owner), 'general');
  const send = async (to: string, topic: string, who: Person = othello) => (await w.as(who)('POST', '/messages', { params: { type: 'stream', to, topic, content: 'x' } })).body.id as number;
  const topicIds = async (stream: number, topic: string, who: Person = owner) =>
    ((await w.as(who)('GET', '/messages', { params: { anchor: 'newest', num_before: 1000, num_after: 0, narrow: [{ operator: 'channel', operand: stream }, { operator: 'topic', operand: topic }] } })).body.messages as { id: number }[]).map((m) => m.id);
  const del = (who: Person, stream: number, topic_name: string) => w.as(who)('POST', `/streams/${stream}/delete_topic`, { params: { topic_name } });

  t.test('deletes the topic, announces it, and clears its visibility policies', async (t) => {
    const doomed = [await send('general', 'Doomed'), await send('general', 'doomed'), await send('general', 'DOOMED')];
    const kept = await send('general', 'Kept');
    await w.as(hamlet)('POST', '/user_topics', { params: { stream_id: general, topic: 'Doomed', visibility_policy: 1 } });
    const q = await listen(w.as(hamlet), { event_types: ['delete_message', 'user_topic'], client_capabilities: { bulk_message_deletion: true } });
    const res = await del(admin, general, 'dOOMED');
    t.same(res.body, { result: 'success', msg: '', complete: true }, 'complete, whatever the case of the name');
    const events = await q.drain(t);
    t.match(events, [
      { type: 'delete_message', message_ids: doomed, message_type: 'stream', stream_id: general, topic: 'doomed' },
      { type: 'user_topic', stream_id: general, topic_name: 'dOOMED', visibility_policy: 0 },
    ], 'delete_message, then the policy cleared');
    t.same(await topicIds(general, 'doomed'), [], 'the messages are gone');
    t.same(await topicIds(general, 'kept'), [kept], 'other topics are not touched');
  });

  t.test('the empty topic, by its display name', async (t) => {
    await send('general', '');
    t.equal((await del(owner, general, 'general chat')).body.complete, true, 'deleted');
    t.same(await topicIds(general, ''), [], 'gone');
  });

  t.test('errors and permissions', async (t) => {
    const id = await send('general', 'Safe');
    t.same((await del(hamlet, general, 'Safe')).body, ADMIN_ONLY, 'members may not');
    t.same((await del(polonius, general, 'Safe')).body, ADMIN_ONLY, 'guests may not');
    await subscribe(w.as(othello), ['private'], { invite_only: true });
    const priv = await streamId(w.as(owner), 'private');
    t.match((await del(admin, priv, 'x')).body, { msg: 'Invalid channel ID' }, 'a private channel the administrator cannot read');
    t.match((await del(admin, 9999, 'x')).body, { msg: 'Invalid channel ID' }, 'an unknown channel');
    t.match((await del(admin, general, undefined as unknown as string)).body, { code: 'REQUEST_VARIABLE_MISSING' }, 'no topic');
    t.same((await w.asOther(w.other.owner)('POST', `/streams/${general}/delete_topic`, { params: { topic_name: 'Safe' } })).body.msg, 'Invalid channel ID', "another realm's channel");
    t.same(await topicIds(general, 'Safe'), [id], 'nothing was deleted');
    t.equal((await del(admin, general, 'never existed')).body.complete, true, 'a topic without messages: complete');
  });

  t.test('protected history: only what the administrator can see, and policies of who still has some', async (t) => {
    await subscribe(w.as(othello), ['vault'], { invite_only: true, history_public_to_subscribers: false });
    const vault = await streamId(w.as(owner), 'vault');
    const early = await send('vault', 'Plans');
    await w.as(othello)('POST', '/user_topics', { params: { stream_id: vault, topic: 'Plans', visibility_policy: 3 } });
    await subscribe(w.as(othello), ['vault'], { principals: [admin.userId, hamlet.userId] });
    const late = await send('vault', 'Plans');
    await w.as(hamlet)('POST', '/user_topics', { params: { stream_id: vault, topic: 'Plans', visibility_policy: 3 } });
    t.equal((await del(admin, vault, 'Plans')).body.complete, true, 'complete');
    t.same(await topicIds(vault, 'Plans', othello), [early], 'the message from before the administrator joined stays');
    t.notOk((await topicIds(vault, 'Plans', othello)).includes(late), 'the later one is gone');
    const policy = async (who: Person) =>
      (await w.as(who)('POST', '/register', { params: { fetch_event_types: ['user_topic'] } })).body.user_topics.find((u: { stream_id: number }) => u.stream_id === vault)?.visibility_policy ?? 0;
    t.equal(await policy(othello), 3, 'othello, who still has a message there, keeps the policy');
    t.equal(await policy(hamlet), 0, "hamlet's is cleared");
  });

  t.test('clients applying the events converge', async (t) => {
    const { converges } = convergenceHarness(t, w.ts);
    await send('general', 'Converge', hamlet);
    await send('general', 'converge');
    // A later message elsewhere: max_message_id does not go back down when the newest is deleted.
    await send('general', 'Tail');
    await w.as(othello)('POST', '/user_topics', { params: { stream_id: general, topic: 'Converge', visibility_policy: 1 } });
    await converges('a topic deleted', () => del(admin, general, 'Converge'), [hamlet, othello, polonius], { sections: ['user_topics', 'muted_topics'] });
  });
});

t.test('POST /streams/{stream_id}/delete_topic: in batches, past its time budget', async (t) => {
  // With no time at all, each request deletes one batch of 100 and says it is not done.
  const ts = await startTestServer(t, { deleteTopicBudgetMs: 0 });
  const ids: number[] = [];
  for (let i = 0; i < 150; i++) ids.push((await ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'Huge', content: `m${i}` } })).body.id);
  const general = (await ts.request('GET', '/get_stream_id', { params: { stream: 'general' } })).body.stream_id;
  const left = async () =>
    ((await ts.request('GET', '/messages', { params: { anchor: 'newest', num_before: 1000, num_after: 0, narrow: [{ operator: 'topic', operand: 'Huge' }] } })).body.messages as { id: number }[]).map((m) => m.id);
  const reg = await ts.request('POST', '/register', { params: { event_types: ['delete_message'], client_capabilities: { bulk_message_deletion: true } } });
  const del = () => ts.request('POST', `/streams/${general}/delete_topic`, { params: { topic_name: 'Huge' } });
  t.same((await del()).body, { result: 'success', msg: '', complete: false }, 'first request: not complete');
  t.same(await left(), ids.slice(0, 50), 'the newest 100 went first');
  t.equal((await del()).body.complete, false, 'second request: not complete either (its time ran out after its batch)');
  t.same(await left(), [], 'everything is gone');
  t.equal((await del()).body.complete, true, 'a third finds nothing left: complete');
  const events = (await ts.request('GET', '/events', { params: { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true } })).body.events;
  t.same(events.map((e: { message_ids: number[] }) => e.message_ids.length), [100, 50], 'one delete_message per batch');
});
