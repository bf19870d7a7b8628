import t from 'tap';
import { startWorld } from './edit-world.js';

t.test('GET /messages/{id}/history: visibility policy and access', async (t) => {
  const w = await startWorld(t);
  const ann = await w.user('Ann');
  const bob = await w.user('Bob');
  const carl = await w.user('Carl');
  const quiet = { send_notification_to_new_thread: false };
  const history = (user: typeof ann, id: number) => w.call(user, 'messages.history', { message_id: id });

  const id = await w.send(ann, 'general', 'policy', 'one');
  await w.edit(ann, id, { content: 'two' });
  await w.edit(ann, id, { topic: 'policy moved', ...quiet });

  t.test('GET /messages/{id}/history: message_edit_history_visibility_policy "moves" hides content edits', async (t) => {
    await w.setRealm({ message_edit_history_visibility_policy: 'moves' });
    const h = (await history(bob, id)).body.message_history;
    t.equal(h.length, 2, 'the original and the move; the content edit is left out');
    t.match(h[1], { topic: 'policy moved', prev_topic: 'policy' }, 'the move');
    t.ok(h.every((e: Record<string, unknown>) => !('prev_content' in e) && !('content_html_diff' in e)), 'no previous content anywhere');
    const got = (await w.get(bob, id)).body.message;
    t.equal(got.edit_history.length, 1, 'GET /messages/{id} shows only the move in edit_history');
    t.notOk('prev_content' in got.edit_history[0], 'without content');
  });

  t.test('GET /messages/{id}/history: "none" disables it', async (t) => {
    await w.setRealm({ message_edit_history_visibility_policy: 'none' });
    const res = await history(bob, id);
    t.same(res.body, { result: 'error', msg: 'Message edit history is disabled in this organization', code: 'BAD_REQUEST' }, 'the reference error');
    t.notOk('edit_history' in (await w.get(bob, id)).body.message, 'and GET /messages/{id} leaves edit_history out');
    await w.setRealm({ message_edit_history_visibility_policy: 'all' });
  });

  t.test('GET /messages/{id}/history: only for messages the user may read', async (t) => {
    const dm = await w.dm(ann, [bob], 'ours');
    t.equal((await history(bob, dm)).status, 200, 'a participant may');
    t.same((await history(carl, dm)).body, { result: 'error', msg: 'Invalid message(s)', code: 'BAD_REQUEST' }, 'another user may not');
    await w.channel(ann, 'vault', { inviteOnly: true, historyPublic: false });
    const secret = await w.send(ann, 'vault', 'shh', 'secret');
    await w.call(ann, 'subscriptions.add', { subscriptions: [{ name: 'vault' }], principals: [carl.id] });
    t.equal((await history(carl, secret)).body.msg, 'Invalid message(s)', 'nor a subscriber who joined a protected history later');
    t.equal((await history(ann, 99_999_999)).body.msg, 'Invalid message(s)', 'nor a message that does not exist');
  });
});
