import t from 'tap';
import { topicMessageIds } from '../../../src/api/messages/edit-rules.js';
import type { MessageRecord } from '../../../src/model/message.js';
import { startWorld } from './edit-world.js';

t.test('PATCH /messages/{id}: resolving and unresolving topics', async (t) => {
  const w = await startWorld(t);
  const ann = await w.user('Ann');
  const bob = await w.user('Bob');
  const general = w.realm.streamByName('general')!;
  const inTopic = (topic: string) => topicMessageIds(w.shard, w.realm, general.id, topic).map((id) => w.stored(id)!);
  const group = (name: string) => ({ new: w.groupId(name) });

  t.test('PATCH /messages/{id}: resolving renames the topic with ✔, posts a notice and is not a move', async (t) => {
    const ids = [await w.send(ann, 'general', 'bug 1', 'broken'), await w.send(bob, 'general', 'bug 1', 'fixed')];
    const res = await w.edit(bob, ids[1], { topic: '✔ bug 1', propagate_mode: 'change_all' });
    t.equal(res.status, 200, 'resolved');
    const resolved = inTopic('✔ bug 1');
    t.same(resolved.slice(0, 2).map((m) => m.id), ids, 'the whole topic is renamed');
    t.equal(resolved.length, 3, 'and a notice follows');
    const notice = resolved[2];
    const bot = w.realm.users.get(notice.senderId)!;
    t.match(bot, { email: 'notification-bot@zulip.com', fullName: 'Notification Bot', isBot: true, botType: 1 }, 'from the Notification Bot');
    t.equal(notice.content, `@_**Bob|${bob.id}** has marked this topic as resolved.`, 'the reference text');
    t.same((await w.get(ann, notice.id)).body.message.flags, ['read'], 'the notice starts out read');
    const got = (await w.get(ann, ids[0])).body.message;
    t.equal(got.subject, '✔ bug 1', 'the message reads back resolved');
    t.notOk('last_moved_timestamp' in got, 'a pure resolve sets no last_moved_timestamp');
    t.match(got.edit_history, [{ prev_topic: 'bug 1', topic: '✔ bug 1' }], 'but is in edit_history');
    t.notOk(resolved.some((m) => /moved here/.test(m.content)), 'no "moved here" notice for a resolve');
  });

  t.test('PATCH /messages/{id}: unresolving soon after deletes the notice; later it posts one', async (t) => {
    const id = await w.send(ann, 'general', 'bug 2', 'broken');
    await w.edit(ann, id, { topic: '✔ bug 2', propagate_mode: 'change_all' });
    const notice = inTopic('✔ bug 2')[1];
    await w.edit(ann, id, { topic: 'bug 2', propagate_mode: 'change_all' });
    t.equal(w.stored(notice.id), undefined, 'the resolve notice is deleted');
    t.ok(w.events.some((e) => e.event.type === 'delete_message' && (e.event.message_ids as number[]).includes(notice.id)), 'with delete_message');
    t.same(inTopic('bug 2').map((m) => m.id), [id], 'and no unresolve notice is posted');
    t.notOk('last_moved_timestamp' in (await w.get(ann, id)).body.message, 'unresolving is not a move either');

    await w.edit(ann, id, { topic: '✔ bug 2', propagate_mode: 'change_all' });
    const second = inTopic('✔ bug 2')[1];
    await w.age(second.id, 120);
    await w.edit(ann, id, { topic: 'bug 2', propagate_mode: 'change_all' });
    t.ok(w.stored(second.id), 'an older notice stays');
    const last = inTopic('bug 2').at(-1) as MessageRecord;
    t.equal(last.content, `@_**Ann|${ann.id}** has marked this topic as unresolved.`, 'and the unresolve notice is posted');
  });

  t.test('PATCH /messages/{id}: the empty topic cannot be resolved', async (t) => {
    const id = await w.send(ann, 'general', '', 'no topic here');
    for (const topic of ['✔ ', '✔ general chat']) {
      const res = await w.edit(ann, id, { topic, propagate_mode: 'change_all' });
      t.equal(res.body.msg, 'General chat cannot be marked as resolved', `"${topic}" is refused`);
    }
    t.equal(w.stored(id)!.topic, '', 'the topic is unchanged');
  });

  t.test('PATCH /messages/{id}: can_resolve_topics_group, apart from moving permissions and limits', async (t) => {
    const id = await w.send(ann, 'general', 'bug 3', 'broken');
    await w.setRealm({ can_resolve_topics_group: group('role:administrators') });
    const refused = await w.edit(ann, id, { topic: '✔ bug 3', propagate_mode: 'change_all' });
    t.equal(refused.body.msg, "You don't have permission to resolve topics in this channel.", 'a member outside the group is refused');
    t.equal((await w.edit(w.owner, id, { topic: '✔ bug 3', propagate_mode: 'change_all' })).status, 200, 'an administrator may');

    await w.setRealm({ can_resolve_topics_group: group('role:everyone'), can_move_messages_between_topics_group: group('role:nobody'), move_messages_within_stream_limit_seconds: 60 });
    const old = await w.send(ann, 'general', 'bug 4', 'old and broken');
    await w.age(old, 5000);
    const res = await w.edit(bob, old, { topic: '✔ bug 4', propagate_mode: 'change_all' });
    t.equal(res.status, 200, 'resolving needs neither the move permission nor the time limit');
    const rename = await w.edit(bob, old, { topic: 'something else', propagate_mode: 'change_all' });
    t.equal(rename.body.msg, "You don't have permission to edit this message", 'while renaming does');
    await w.setRealm({ can_move_messages_between_topics_group: group('role:everyone'), move_messages_within_stream_limit_seconds: 'unlimited' });
  });

  t.test('PATCH /messages/{id}: ✔ with another name is an ordinary move', async (t) => {
    const id = await w.send(ann, 'general', 'bug 5', 'x');
    await w.edit(ann, id, { topic: '✔ bug 6', send_notification_to_new_thread: false });
    t.type((await w.get(ann, id)).body.message.last_moved_timestamp, 'number', 'last_moved_timestamp is set');
    t.notOk(inTopic('✔ bug 6').some((m) => /marked this topic/.test(m.content)), 'and no resolve notice');
  });
});
